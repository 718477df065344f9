// lidartwin view: a real and a simulated recording side by side in the browser (issue 13),
// served on localhost or exported as one self-contained HTML file.
#include <fmt/core.h>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "compare_flags.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/viewer/document_codec.h"
#include "lidartwin/viewer/viewer_document.h"
#include "lidartwin/viewer/viewer_page.h"
#include "lidartwin/viewer/viewer_server.h"

namespace lt::cli {
namespace {

constexpr const char* kUsage =
    "usage: lidartwin view --real REC --sim REC [options] [--port P | --export viewer.html]\n"
    "  serves the viewer on http://127.0.0.1:P/ (default 8080; 0: any free port) until\n"
    "  interrupted, reading the files again when the page is reloaded after they changed;\n"
    "  --export writes one HTML file with the data inlined that opens with no server.\n";

// Port numbers: 0 (any free one) up to 65535.
constexpr uint64_t kMaxPort = 65535;

// The encoded document, its notes printed.
Expected<viewer::EncodedComparison> Encode(const compare::CompareInputs& in) {
  auto encoded = viewer::EncodeComparison(in, BuiltInMeshLoader());
  if (encoded.ok())
    for (const std::string& note : encoded->notes)
      fmt::print(stderr, "lidartwin view: {}\n", note);
  return encoded;
}

}  // namespace

int ViewCommand(const std::vector<std::string>& argv) {
  ArgSpec spec{CompareInputFlags(), {"--help"}, 0};
  spec.valued.insert({"--port", "--export"});
  auto args = Args::Parse(argv, spec);
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin view: {}\n{}{}", args.message(), kUsage, kCompareInputUsage);
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("{}{}", kUsage, kCompareInputUsage);
    return 0;
  }
  auto fail = [](const std::string& message, int code) {
    fmt::print(stderr, "lidartwin view: {}\n", message);
    return code;
  };
  auto inputs = ParseCompareInputs(*args);
  if (!inputs.ok()) return fail(inputs.message() + "\n" + kUsage + kCompareInputUsage, 2);
  auto port = args->GetUIntIn("--port", 8080, 0, kMaxPort);
  if (!port.ok()) return fail(port.message(), 2);
  if (args->Has("--export") && args->Has("--port"))
    return fail("give --export or --port, not both", 2);

  if (args->Has("--export")) {
    const std::string out = args->Get("--export");
    if (Status s = CheckOutputsApart(*args, {{"--export", out}}); !s.ok())
      return fail(s.message(), 2);
    if (Status s = CheckOutputTarget(out); !s.ok()) return fail("error: " + s.message(), 1);
    auto encoded = Encode(*inputs);
    if (!encoded.ok()) return fail("error: " + encoded.message(), 1);
    const std::string page = viewer::ExportedPage(
        fmt::format("lidartwin view: {} vs {}", inputs->real_file, inputs->sim_file),
        encoded->bytes);
    if (Status s = WriteTextFileAtomically(out, page); !s.ok())
      return fail("error: " + s.message(), 1);
    fmt::print("wrote {} ({:.2f} MB): {}\n", out, page.size() / 1e6, encoded->summary);
    return 0;
  }

  // Serving: a document that cannot be built is reported here and on the page, which asks
  // again (reading the files again) when reloaded.
  std::string signature;
  auto build = [&]() -> Expected<std::string> {
    signature = viewer::InputsSignature(*inputs);
    auto encoded = Encode(*inputs);
    if (!encoded.ok()) {
      fmt::print(stderr, "lidartwin view: error: {}\n", encoded.message());
      return encoded.error();
    }
    fmt::print(stderr, "lidartwin view: loaded {}\n", encoded->summary);
    return std::move(encoded->bytes);
  };
  auto stale = [&] { return viewer::InputsSignature(*inputs) != signature; };
  viewer::ViewerServer server(
      fmt::format("lidartwin view: {} vs {}", inputs->real_file, inputs->sim_file), build, stale);
  auto bound = server.Bind("127.0.0.1", static_cast<int>(*port));
  if (!bound.ok()) return fail("error: " + bound.message(), 1);
  server.Prepare();
  fmt::print("lidartwin view: serving http://127.0.0.1:{}/ (Ctrl-C to stop)\n", *bound);
  std::fflush(stdout);
  if (Status s = server.Run(); !s.ok()) return fail("error: " + s.message(), 1);
  return 0;
}

}  // namespace lt::cli
