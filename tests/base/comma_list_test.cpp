#include "lidartwin/base/comma_list.h"

#include <gtest/gtest.h>

namespace lt {
namespace {

TEST(CommaSeparated, KeepsOrderAndEmptyItems) {
  EXPECT_EQ(CommaSeparated("0,17,3000-3010"), (std::vector<std::string>{"0", "17", "3000-3010"}));
  EXPECT_EQ(CommaSeparated("a,,b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(CommaSeparated("x,"), (std::vector<std::string>{"x", ""}));
  EXPECT_EQ(CommaSeparated(""), (std::vector<std::string>{""}));
  EXPECT_EQ(CommaSeparated("one"), (std::vector<std::string>{"one"}));
}

}  // namespace
}  // namespace lt
