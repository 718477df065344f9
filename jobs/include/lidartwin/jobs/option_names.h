// How a job names one of its options inside a message ("streaming needs poses or static_sensor"):
// by its key, unless the caller has its own names for them (the CLI gives its flags, so the
// message reads as the command line was written). The job itself never spells a flag.
#pragma once

#include <map>
#include <string>

namespace lt::jobs {

struct OptionNames {
  std::map<std::string, std::string> names;  // key -> the caller's name for it

  std::string operator()(const std::string& key) const {
    const auto it = names.find(key);
    return it == names.end() ? key : it->second;
  }
};

}  // namespace lt::jobs
