// configs/README.md lists every key used by the shipped configuration files.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>

#include "test_support.h"

namespace lt {
namespace {

void CollectKeys(const YAML::Node& n, std::set<std::string>& keys) {
  if (n.IsMap()) {
    for (const auto& kv : n) {
      keys.insert(kv.first.as<std::string>());
      CollectKeys(kv.second, keys);
    }
  } else if (n.IsSequence()) {
    for (const auto& e : n)
      CollectKeys(e, keys);
  }
}

TEST(ConfigDocs, ReadmeListsEveryKeyOfTheShippedConfigs) {
  std::ifstream in(test::ConfigDir() / "README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), {});
  ASSERT_FALSE(readme.empty());
  std::set<std::string> keys;
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(test::ConfigDir())) {
    if (e.path().extension() != ".yaml") continue;
    CollectKeys(YAML::LoadFile(e.path().string()), keys);
    ++files;
  }
  EXPECT_GE(files, 8u);
  for (const auto& k : keys) {
    EXPECT_NE(readme.find("`" + k + "`"), std::string::npos)
        << "configs/README.md lacks `" << k << "`";
  }
}

}  // namespace
}  // namespace lt
