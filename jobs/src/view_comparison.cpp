#include "lidartwin/jobs/view_comparison.h"

#include <fmt/core.h>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/viewer/document_codec.h"
#include "lidartwin/viewer/viewer_document.h"
#include "lidartwin/viewer/viewer_page.h"
#include "lidartwin/viewer/viewer_server.h"

namespace lt::jobs {
namespace {

// The encoded document, its notes logged.
Expected<viewer::EncodedComparison> Encode(const ViewComparisonOptions& o) {
  auto encoded = viewer::EncodeComparison(o.inputs, o.mesh_loader);
  if (encoded.ok())
    for (const std::string& note : encoded->notes)
      o.log.Note(note);
  return encoded;
}

Status Export(const ViewComparisonOptions& o, const std::string& title) {
  const std::string out = o.export_file.string();
  if (Status s = CheckOutputTarget(out); !s.ok()) return s;
  auto encoded = Encode(o);
  if (!encoded.ok()) return encoded.error();
  const std::string page = viewer::ExportedPage(title, encoded->bytes);
  if (Status s = WriteTextFileAtomically(out, page); !s.ok()) return s;
  o.log.Info(fmt::format("wrote {} ({:.2f} MB): {}\n", out, page.size() / 1e6, encoded->summary));
  return {};
}

// A document that cannot be built is reported here and on the page, which asks again
// (reading the files again) when reloaded after they changed.
Status Serve(const ViewComparisonOptions& o, const std::string& title) {
  std::string signature;
  auto build = [&]() -> Expected<std::string> {
    signature = viewer::InputsSignature(o.inputs);
    auto encoded = Encode(o);
    if (!encoded.ok()) {
      o.log.Note("error: " + encoded.message());
      return encoded.error();
    }
    o.log.Note("loaded " + encoded->summary);
    return std::move(encoded->bytes);
  };
  auto stale = [&] { return viewer::InputsSignature(o.inputs) != signature; };
  viewer::ViewerServer server(title, build, stale);
  auto bound = server.Bind("127.0.0.1", o.port);
  if (!bound.ok()) return bound.error();
  server.Prepare();
  o.log.Info(
      fmt::format("lidartwin view: serving http://127.0.0.1:{}/ (Ctrl-C to stop)\n", *bound));
  return server.Run();
}

}  // namespace

Status ViewComparison(const ViewComparisonOptions& o) {
  const std::string title =
      fmt::format("lidartwin view: {} vs {}", o.inputs.real_file, o.inputs.sim_file);
  return o.export_file.empty() ? Serve(o, title) : Export(o, title);
}

}  // namespace lt::jobs
