// A small command-line parser: --flag value pairs, boolean --switches, positionals; unknown
// flags are errors that name the flag.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt::cli {

// --threads: 0 (every core the process may use) up to this.
inline constexpr uint64_t kMaxThreads = 1024;

struct ArgSpec {
  std::set<std::string> valued;    // flags that take a value, e.g. "--out"
  std::set<std::string> switches;  // flags without a value, e.g. "--json"
  size_t max_positionals = 0;
};

class Args {
 public:
  static Expected<Args> Parse(const std::vector<std::string>& argv, const ArgSpec& spec);
  bool Has(const std::string& flag) const;
  std::string Get(const std::string& flag, const std::string& fallback = "") const;
  // Parses an unsigned integer value; an error names the flag and the bad text.
  Expected<uint64_t> GetUInt(const std::string& flag, uint64_t fallback) const;
  // GetUInt, refused outside lo..hi with "option F: must be in lo..hi, got V" (the value as
  // given, so 4294967296 is never shown wrapped).
  Expected<uint64_t> GetUIntIn(const std::string& flag, uint64_t fallback, uint64_t lo,
                               uint64_t hi) const;
  // Parses a finite number; an error names the flag and the bad text.
  Expected<double> GetDouble(const std::string& flag, double fallback) const;
  // Parses a comma-separated list of finite numbers ("0,5,10").
  Expected<std::vector<double>> GetDoubleList(const std::string& flag,
                                              const std::vector<double>& fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

  // Each sets `field` from the flag's value where the line gives one and leaves it otherwise:
  // text as it is, numbers parsed (an error names the flag, FlagError; a whole number must fit
  // the field's type, the job's Validate says its range).
  Status Into(const std::string& flag, std::string& field) const;
  Status Into(const std::string& flag, std::filesystem::path& field) const;
  Status Into(const std::string& flag, double& field) const;
  Status Into(const std::string& flag, std::vector<double>& field) const;
  Status Into(const std::string& flag, std::vector<uint32_t>& field) const;  // frame numbers
  Status Into(const std::string& flag, uint64_t& field) const;
  Status Into(const std::string& flag, uint32_t& field) const;
  Status Into(const std::string& flag, int& field) const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_;
  std::vector<std::string> positionals_;
};

// An error about the value of `flag` (Error::option is the flag): a usage error, exit 2.
Error FlagError(const std::string& flag, std::string message);

// The first error of several, or success.
Status FirstError(std::initializer_list<Status> statuses);

}  // namespace lt::cli
