// A real and a simulated recording side by side in the browser (`lidartwin view`, issue 13):
// served on localhost, the files read again when the page is reloaded after they changed, or
// exported as one HTML file with the data inlined that opens with no server. In builds with
// the viewer.
#pragma once

#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/compare/compare_inputs.h"
#include "lidartwin/jobs/job_log.h"
#include "lidartwin/sim/scene.h"

namespace lt::jobs {

struct ViewComparisonOptions {
  compare::CompareInputs inputs;
  MeshLoader mesh_loader;             // for a scene with meshes
  std::filesystem::path export_file;  // one HTML file; empty: serve
  int port = 8080;                    // served on 127.0.0.1; 0: any free port
  // info: what was written, or the address served (then the server runs until interrupted);
  // note: the document's notes, each load, and a document that could not be built.
  JobLog log;
};

Status ViewComparison(const ViewComparisonOptions& options);

}  // namespace lt::jobs
