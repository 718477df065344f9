// Typed reading of YAML configuration with exact error messages: every error names the file,
// the key path (e.g. "sensor.spinning.rotation_rate_hz") and the problem, and keys the
// reader did not ask for are errors (STYLE.md rule 7).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/status.h"

namespace YAML {
class Node;
}

namespace lt {

class ConfigMap {
 public:
  // Parses a YAML file whose top level is a mapping.
  static Expected<ConfigMap> FromFile(const std::filesystem::path& file);
  // Parses YAML text; `file` names it in messages.
  static Expected<ConfigMap> FromText(const std::string& text, const std::string& file);

  ConfigMap(ConfigMap&&) noexcept;
  ConfigMap& operator=(ConfigMap&&) noexcept;
  ~ConfigMap();

  bool Has(const std::string& key) const;
  // Required values: a missing key or a wrong type records an error and returns a default.
  double Number(const std::string& key);
  std::string String(const std::string& key);
  bool Bool(const std::string& key);
  std::vector<double> Numbers(const std::string& key);
  std::vector<std::string> Strings(const std::string& key);
  // A list of `width`-number lists ([[x, y, z], ...]), flattened row by row.
  std::vector<double> NumberRows(const std::string& key, size_t width);
  // Optional values.
  double Number(const std::string& key, double fallback);
  std::string String(const std::string& key, const std::string& fallback);
  bool Bool(const std::string& key, bool fallback);
  // Nested mappings; the key must be present.
  ConfigMap Map(const std::string& key);
  std::vector<ConfigMap> MapList(const std::string& key);
  // Keys of this mapping, in file order.
  std::vector<std::string> Keys() const;

  // Records an error about one key (for checks made by the caller, such as ranges).
  void Fail(const std::string& key, const std::string& problem);
  // Records a problem that Validate() found, by its key path relative to this map
  // ("detector.threshold_nw", "objects[2].size_m"), with the line of that value in the file
  // (or of the map that lacks it, for a value that took its default).
  void Fail(const ConfigProblem& problem);
  // The file this map came from, and the directory relative paths resolve against.
  const std::filesystem::path& file() const;
  std::filesystem::path Resolve(const std::string& relative_path) const;
  std::string KeyPath(const std::string& key) const;

  // The first error recorded anywhere in this file, or an error for the first key of any
  // map read from this file that nobody asked for.
  Status Finish() const;
  // Only the first error recorded so far (no unknown-key check): for checks part way.
  Status FirstError() const;

 private:
  struct Shared;
  ConfigMap(std::shared_ptr<Shared> shared, std::unique_ptr<YAML::Node> node, std::string path);
  YAML::Node Find(const std::string& key);
  // A required scalar; `expected` describes the type in the error message.
  template <typename T>
  T Scalar(const std::string& key, const char* expected);
  template <typename T>
  T OptionalScalar(const std::string& key, T fallback,
                   T (ConfigMap::*required)(const std::string&));
  void Used(const std::string& key);
  std::shared_ptr<Shared> shared_;
  std::unique_ptr<YAML::Node> node_;
  std::string path_;
  size_t index_ = 0;  // position in shared_->maps
};

}  // namespace lt
