// Table tests of Validate(): each rule breaks a copy of a valid struct, and Validate() must
// name "<what>: key '<key>': <problem>" (base/include/lidartwin/base/config_check.h).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt::test {

template <typename T>
struct Rule {
  const char* key;
  std::function<void(T&)> breaks;
  const char* problem;
};

template <typename T>
void ExpectRules(const T& valid, const std::string& what, const std::vector<Rule<T>>& rules) {
  ASSERT_TRUE(valid.Validate().ok()) << valid.Validate().message();
  for (const Rule<T>& rule : rules) {
    T broken = valid;
    rule.breaks(broken);
    const Status s = broken.Validate();
    ASSERT_FALSE(s.ok()) << rule.key;
    EXPECT_NE(s.message().find(what + ": key '" + rule.key + "': " + rule.problem),
              std::string::npos)
        << s.message();
  }
}

}  // namespace lt::test
