// lidartwin info: a frames file's metadata and frames (datasets/hdf5_summary_text.h).
#include <fmt/core.h>

#include "command.h"
#include "commands.h"
#include "lidartwin/datasets/hdf5_summary_text.h"

namespace lt::cli {

int InfoCommand(const std::vector<std::string>& argv) {
  const Command info{"info", "", {{}, {"--json"}, 1}, {}};
  return RunCommand(info, argv, [](const Args& args) -> Expected<int> {
    if (Status s = Require(args, "FILE.h5", {}); !s.ok()) return s.error();
    const std::string path = args.positionals()[0];
    auto summary = ReadHdf5Summary(path);
    if (!summary.ok()) return summary.error();
    for (const auto& w : summary->warnings)
      fmt::print(stderr, "lidartwin info: warning: {}\n", w);
    if (args.Has("--json"))
      fmt::print("{}\n", Hdf5SummaryJson(path, *summary));
    else
      fmt::print("{}", Hdf5SummaryText(path, *summary));
    return 0;
  });
}

}  // namespace lt::cli
