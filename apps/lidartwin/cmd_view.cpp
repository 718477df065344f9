// lidartwin view: a real and a simulated recording side by side in the browser (issue 13),
// served on localhost or exported as one self-contained HTML file.
#include <fmt/core.h>

#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "compare_flags.h"
#include "help_text.h"
#include "lidartwin/jobs/view_comparison.h"

namespace lt::cli {

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
    if (Status s = RefuseStandardOutput(args, {{"--export", "a file (viewer.html)"}}); !s.ok())
      return s.error();
    jobs::ViewComparisonOptions o;
    o.inputs = std::move(*inputs);
    o.mesh_loader = BuiltInMeshLoader();
    o.export_file = args.Get("--export");
    o.port = static_cast<int>(*port);
    if (args.Has("--export"))
      if (Status s = CheckOutputsApart(args, {{"--export", args.Get("--export")}}); !s.ok())
        return s.error();
    o.log = PrintingLog("view");
    o.log.info = [](const std::string& line) {
      fmt::print("{}", line);
      std::fflush(stdout);  // the address, before the server blocks
    };
    if (Status s = jobs::ViewComparison(o); !s.ok()) return s.error();
    return 0;
  });
}

}  // namespace lt::cli
