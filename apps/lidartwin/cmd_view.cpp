// lidartwin view: a real and a simulated recording side by side in the browser (issue 13),
// served on localhost or exported as one self-contained HTML file.
#include <fmt/core.h>

#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "compare_flags.h"
#include "help_text.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/viewer/document_codec.h"
#include "lidartwin/viewer/viewer_document.h"
#include "lidartwin/viewer/viewer_page.h"
#include "lidartwin/viewer/viewer_server.h"

namespace lt::cli {
namespace {

// The encoded document, its notes printed.
Expected<viewer::EncodedComparison> Encode(const compare::CompareInputs& in) {
  auto encoded = viewer::EncodeComparison(in, BuiltInMeshLoader());
  if (encoded.ok())
    for (const std::string& note : encoded->notes)
      fmt::print(stderr, "lidartwin view: {}\n", note);
  return encoded;
}

// One HTML file with the data inlined.
Status Export(const compare::CompareInputs& in, const std::string& title, const std::string& out) {
  if (Status s = CheckOutputTarget(out); !s.ok()) return s;
  auto encoded = Encode(in);
  if (!encoded.ok()) return encoded.error();
  const std::string page = viewer::ExportedPage(title, encoded->bytes);
  if (Status s = WriteTextFileAtomically(out, page); !s.ok()) return s;
  fmt::print("wrote {} ({:.2f} MB): {}\n", out, page.size() / 1e6, encoded->summary);
  return {};
}

// Serving: a document that cannot be built is reported here and on the page, which asks
// again (reading the files again) when reloaded after they changed.
Status Serve(const compare::CompareInputs& in, const std::string& title, int port) {
  std::string signature;
  auto build = [&]() -> Expected<std::string> {
    signature = viewer::InputsSignature(in);
    auto encoded = Encode(in);
    if (!encoded.ok()) {
      fmt::print(stderr, "lidartwin view: error: {}\n", encoded.message());
      return encoded.error();
    }
    fmt::print(stderr, "lidartwin view: loaded {}\n", encoded->summary);
    return std::move(encoded->bytes);
  };
  auto stale = [&] { return viewer::InputsSignature(in) != signature; };
  viewer::ViewerServer server(title, build, stale);
  auto bound = server.Bind("127.0.0.1", port);
  if (!bound.ok()) return bound.error();
  server.Prepare();
  fmt::print("lidartwin view: serving http://127.0.0.1:{}/ (Ctrl-C to stop)\n", *bound);
  std::fflush(stdout);
  return server.Run();
}

}  // namespace

int ViewCommand(const std::vector<std::string>& argv) {
  Command view{"view",
               HelpText("view") + HelpText("compare-inputs"),
               {CompareInputFlags(), {}, 0},
               kCompareInputKeys};
  view.args.valued.insert({"--port", "--export"});
  return RunCommand(view, argv, [](const Args& args) -> Expected<int> {
    auto inputs = ParseCompareInputs(args);
    if (!inputs.ok()) return inputs.error();
    auto port = args.GetUIntIn("--port", 8080, 0, 65535);  // 0: any free port
    if (!port.ok()) return port.error();
    if (args.Has("--export") && args.Has("--port"))
      return Usage("give --export or --port, not both");
    const std::string title =
        fmt::format("lidartwin view: {} vs {}", inputs->real_file, inputs->sim_file);
    if (args.Has("--export")) {
      const std::string out = args.Get("--export");
      if (Status s = CheckOutputsApart(args, {{"--export", out}}); !s.ok()) return s.error();
      if (Status s = Export(*inputs, title, out); !s.ok()) return s.error();
      return 0;
    }
    if (Status s = Serve(*inputs, title, static_cast<int>(*port)); !s.ok()) return s.error();
    return 0;
  });
}

}  // namespace lt::cli
