// lidartwin info: what a frames file (datasets/hdf5_summary_text.h) or a ROS bag
// (datasets/ros_bag_summary.h) holds.
#include <fmt/core.h>

#include "command.h"
#include "commands.h"
#include "lidartwin/datasets/hdf5_summary_text.h"
#include "lidartwin/datasets/ros_bag_summary.h"

namespace lt::cli {

int InfoCommand(const std::vector<std::string>& argv) {
  const Command info{"info", "", {{}, {"--json"}, 1}, {}};
  return RunCommand(info, argv, [](const Args& args) -> Expected<int> {
    if (Status s = Require(args, "FILE", {}); !s.ok()) return s.error();
    const std::string path = args.positionals()[0];
    if (LooksLikeRosBag(path)) {
      auto bag = SummarizeRosBag(path);
      if (!bag.ok()) return bag.error();
      fmt::print("{}", args.Has("--json") ? RosBagSummaryJson(path, *bag) + "\n"
                                          : RosBagSummaryText(path, *bag));
      return 0;
    }
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
