#include "lidartwin/base/config_reader.h"
#include "lidartwin/base/text_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace lt {

// State shared by all maps read from one file: the first error, and for each map the keys it
// has and the keys that were asked for.
struct ConfigMap::Shared {
  std::filesystem::path file;
  std::optional<Error> first_error;
  struct MapKeys {
    std::string path;
    std::vector<std::pair<std::string, int>> keys;  // key, line (1-based)
    std::set<std::string> used;
    // Keys the reader asked about (Has) without reading: known here, for the hint only.
    std::set<std::string> asked;
  };
  std::vector<MapKeys> maps;

  void Record(const std::string& message) {
    if (!first_error) first_error = Error{file.string() + ": " + message};
  }
};

namespace {
// The value under `key` of a mapping, or an undefined node. Iterates rather than using
// operator[], which on a non-const node may insert the key.
YAML::Node Lookup(const YAML::Node& map, const std::string& key) {
  if (map.IsMap()) {
    for (const auto& kv : map) {
      // Keys that are not plain strings were reported when the map was read.
      if (kv.first.IsScalar() && kv.first.Scalar() == key) return kv.second;
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string LineOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return "";
  return " (line " + std::to_string(mark.line + 1) + ")";
}
}  // namespace

ConfigMap::ConfigMap(std::shared_ptr<Shared> shared, std::unique_ptr<YAML::Node> node,
                     std::string path)
    : shared_(std::move(shared)), node_(std::move(node)), path_(std::move(path)) {
  Shared::MapKeys keys;
  keys.path = path_;
  if (node_->IsMap()) {
    std::map<std::string, int> first_line;  // one lookup per key: maps of any size stay fast
    for (const auto& kv : *node_) {
      const int line = kv.first.Mark().line + 1;
      if (!kv.first.IsScalar()) {  // [a, b]: 1 or {a: 1}: 1 is valid YAML, never a config key
        shared_->Record("line " + std::to_string(line) + ": a key in " +
                        (path_.empty() ? std::string("the top-level map") : "'" + path_ + "'") +
                        " is a list or map; keys must be plain names");
        continue;
      }
      const std::string key = kv.first.Scalar();
      // YAML readers keep one of two equal keys; which one is a guess the user cannot see.
      const auto [it, inserted] = first_line.emplace(key, line);
      if (!inserted) {
        shared_->Record("key '" + (path_.empty() ? key : path_ + "." + key) + "' (line " +
                        std::to_string(line) + ") appears twice (first at line " +
                        std::to_string(it->second) + ")");
      }
      keys.keys.emplace_back(key, line);
    }
  }
  index_ = shared_->maps.size();
  shared_->maps.push_back(std::move(keys));
}

ConfigMap::ConfigMap(ConfigMap&&) noexcept = default;
ConfigMap& ConfigMap::operator=(ConfigMap&&) noexcept = default;
ConfigMap::~ConfigMap() = default;

Expected<ConfigMap> ConfigMap::FromText(const std::string& text, const std::string& file) {
  auto shared = std::make_shared<Shared>();
  shared->file = file;
  if (Status s = CheckYamlCharacters(text, file); !s.ok()) return s.error();
  YAML::Node root;
  try {
    // One document: a second one after "---" would be ignored without a word.
    const std::vector<YAML::Node> documents = YAML::LoadAll(text);
    if (documents.size() > 1) {
      return Error{file + ": holds " + std::to_string(documents.size()) +
                   " YAML documents (separated by ---); a config is one"};
    }
    if (!documents.empty()) root = documents.front();
  } catch (const YAML::Exception& e) {
    return Error{file + ": invalid YAML at line " + std::to_string(e.mark.line + 1) + ", column " +
                 std::to_string(e.mark.column + 1) + ": " + e.msg};
  }
  if (!root.IsMap()) {
    return Error{file + ": expected a YAML mapping at the top level" +
                 (root.IsNull() ? std::string(" (the file is empty)") : std::string())};
  }
  return ConfigMap(shared, std::make_unique<YAML::Node>(root), "");
}

Expected<ConfigMap> ConfigMap::FromFile(const std::filesystem::path& file) {
  auto text = ReadTextFile(file, " file");
  if (!text.ok()) return text.error();
  return FromText(*text, file.string());
}

std::string ConfigMap::KeyPath(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

const std::filesystem::path& ConfigMap::file() const {
  return shared_->file;
}

std::filesystem::path ConfigMap::Resolve(const std::string& relative_path) const {
  std::filesystem::path p(relative_path);
  if (p.is_absolute()) return p;
  return shared_->file.parent_path() / p;
}

void ConfigMap::Fail(const std::string& key, const std::string& problem) {
  const YAML::Node found = Find(key);
  const YAML::Node* n = found.IsDefined() ? &found : nullptr;
  shared_->Record("key '" + KeyPath(key) + "'" + (n ? LineOf(*n) : std::string()) + ": " + problem);
}

void ConfigMap::Fail(const ConfigProblem& p) {
  // Walk the path's names and list indices from this map; the deepest node found gives the
  // line. Nodes are rebound with reset(): yaml-cpp's operator= would write into the tree.
  YAML::Node node(*node_);
  YAML::Node deepest(node);
  const std::string& path = p.key_path;
  size_t i = 0;
  while (i < path.size() && node.IsDefined()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos) break;
      const size_t index = std::stoul(path.substr(i + 1, close - i - 1));
      const YAML::Node& list = node;
      node.reset(list.IsSequence() && index < list.size() ? list[index]
                                                          : YAML::Node(YAML::NodeType::Undefined));
      i = close + 1;
    } else {
      const size_t end = std::min(path.find_first_of(".[", i), path.size());
      node.reset(Lookup(node, path.substr(i, end - i)));
      i = end;
    }
    if (node.IsDefined()) deepest.reset(node);
  }
  shared_->Record("key '" + KeyPath(p.key_path) + "'" + LineOf(deepest) + ": " + p.problem);
}

void ConfigMap::Used(const std::string& key) {
  shared_->maps[index_].used.insert(key);
}

YAML::Node ConfigMap::Find(const std::string& key) {
  Used(key);
  return Lookup(*node_, key);
}

bool ConfigMap::Has(const std::string& key) const {
  shared_->maps[index_].asked.insert(key);
  const YAML::Node n = Lookup(*node_, key);
  return n.IsDefined() && !n.IsNull();
}

namespace {
template <typename T>
bool Convert(const YAML::Node& n, T& out) {
  if (!n.IsScalar()) return false;
  try {
    out = n.as<T>();
    return true;
  } catch (const YAML::Exception&) {
    return false;
  }
}
}  // namespace

template <typename T>
T ConfigMap::Scalar(const std::string& key, const char* expected) {
  const YAML::Node n = Find(key);
  if (!n.IsDefined() || n.IsNull()) {
    shared_->Record("missing required key '" + KeyPath(key) + "'" + LineOf(*node_));
    return T{};
  }
  T v{};
  if (!Convert(n, v)) {
    shared_->Record("key '" + KeyPath(key) + "'" + LineOf(n) + ": expected " + expected +
                    ", got '" + YAML::Dump(n) + "'");
    return T{};
  }
  return v;
}

template <typename T>
T ConfigMap::OptionalScalar(const std::string& key, T fallback,
                            T (ConfigMap::*required)(const std::string&)) {
  if (!Has(key)) {
    Used(key);
    return fallback;
  }
  return (this->*required)(key);
}

double ConfigMap::Number(const std::string& key) {
  const double v = Scalar<double>(key, "a number");
  if (!std::isfinite(v)) Fail(key, "value must be finite");
  return v;
}

std::string ConfigMap::String(const std::string& key) {
  return Scalar<std::string>(key, "a string");
}

bool ConfigMap::Bool(const std::string& key) {
  return Scalar<bool>(key, "true or false");
}

double ConfigMap::Number(const std::string& key, double fallback) {
  return OptionalScalar<double>(key, fallback, &ConfigMap::Number);
}

std::string ConfigMap::String(const std::string& key, const std::string& fallback) {
  return OptionalScalar<std::string>(key, fallback, &ConfigMap::String);
}

bool ConfigMap::Bool(const std::string& key, bool fallback) {
  return OptionalScalar<bool>(key, fallback, &ConfigMap::Bool);
}

std::vector<double> ConfigMap::Numbers(const std::string& key) {
  const YAML::Node found = Find(key);
  const YAML::Node* n = found.IsDefined() ? &found : nullptr;
  if (!n || n->IsNull()) {
    shared_->Record("missing required key '" + KeyPath(key) + "'" + LineOf(*node_));
    return {};
  }
  if (!n->IsSequence()) {
    shared_->Record("key '" + KeyPath(key) + "'" + LineOf(*n) + ": expected a list of numbers");
    return {};
  }
  std::vector<double> out;
  out.reserve(n->size());
  for (size_t i = 0; i < n->size(); ++i) {
    double v = 0;
    if (!Convert((*n)[i], v) || !std::isfinite(v)) {
      shared_->Record("key '" + KeyPath(key) + "'" + LineOf((*n)[i]) + ": element " +
                      std::to_string(i) + " is not a finite number");
      return {};
    }
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> ConfigMap::Strings(const std::string& key) {
  const YAML::Node found = Find(key);
  if (!found.IsDefined() || found.IsNull()) {
    shared_->Record("missing required key '" + KeyPath(key) + "'" + LineOf(*node_));
    return {};
  }
  if (!found.IsSequence()) {
    shared_->Record("key '" + KeyPath(key) + "'" + LineOf(found) + ": expected a list of strings");
    return {};
  }
  std::vector<std::string> out;
  out.reserve(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    std::string v;
    if (!Convert(found[i], v)) {
      shared_->Record("key '" + KeyPath(key) + "'" + LineOf(found[i]) + ": element " +
                      std::to_string(i) + " is not a string");
      return {};
    }
    out.push_back(v);
  }
  return out;
}

std::vector<double> ConfigMap::NumberRows(const std::string& key, size_t width) {
  const YAML::Node found = Find(key);
  if (!found.IsDefined() || found.IsNull()) {
    shared_->Record("missing required key '" + KeyPath(key) + "'" + LineOf(*node_));
    return {};
  }
  const std::string shape = "expected a list of [" + std::to_string(width) + " numbers] lists";
  if (!found.IsSequence()) {
    shared_->Record("key '" + KeyPath(key) + "'" + LineOf(found) + ": " + shape);
    return {};
  }
  std::vector<double> out;
  for (size_t r = 0; r < found.size(); ++r) {
    const YAML::Node row = found[r];
    if (!row.IsSequence() || row.size() != width) {
      shared_->Record("key '" + KeyPath(key) + "'" + LineOf(row) + ": element " +
                      std::to_string(r) + " is not a list of " + std::to_string(width) +
                      " numbers (" + shape + ")");
      return {};
    }
    for (size_t i = 0; i < width; ++i) {
      double v = 0;
      if (!Convert(row[i], v) || !std::isfinite(v)) {
        shared_->Record("key '" + KeyPath(key) + "'" + LineOf(row[i]) + ": element " +
                        std::to_string(r) + "[" + std::to_string(i) + "] is not a finite number");
        return {};
      }
      out.push_back(v);
    }
  }
  return out;
}

ConfigMap ConfigMap::Map(const std::string& key) {
  const YAML::Node found = Find(key);
  const YAML::Node* n = found.IsDefined() ? &found : nullptr;
  if (!n || !n->IsMap()) {
    shared_->Record((n ? "key '" + KeyPath(key) + "'" + LineOf(*n) + ": expected a mapping"
                       : "missing required key '" + KeyPath(key) + "'" + LineOf(*node_)));
    return ConfigMap(shared_, std::make_unique<YAML::Node>(YAML::NodeType::Map), KeyPath(key));
  }
  return ConfigMap(shared_, std::make_unique<YAML::Node>(*n), KeyPath(key));
}

std::vector<ConfigMap> ConfigMap::MapList(const std::string& key) {
  const YAML::Node found = Find(key);
  const YAML::Node* n = found.IsDefined() ? &found : nullptr;
  std::vector<ConfigMap> out;
  if (!n || !n->IsSequence()) {
    shared_->Record((n ? "key '" + KeyPath(key) + "'" + LineOf(*n) + ": expected a list"
                       : "missing required key '" + KeyPath(key) + "'" + LineOf(*node_)));
    return out;
  }
  const YAML::Node& list = *n;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = KeyPath(key) + "[" + std::to_string(i) + "]";
    if (!list[i].IsMap()) {
      shared_->Record("key '" + path + "'" + LineOf(list[i]) + ": expected a mapping");
      continue;
    }
    out.push_back(ConfigMap(shared_, std::make_unique<YAML::Node>(list[i]), path));
  }
  return out;
}

std::vector<std::string> ConfigMap::Keys() const {
  std::vector<std::string> out;
  for (const auto& [k, line] : shared_->maps[index_].keys)
    out.push_back(k);
  return out;
}

Status ConfigMap::FirstError() const {
  if (shared_->first_error) return *shared_->first_error;
  return {};
}

Status ConfigMap::Finish() const {
  if (shared_->first_error) return *shared_->first_error;
  for (const auto& m : shared_->maps) {
    for (const auto& [k, line] : m.keys) {
      if (!m.used.count(k)) {
        std::set<std::string> names = m.used;  // sorted, each once
        names.insert(m.asked.begin(), m.asked.end());
        std::string known;
        for (const auto& u : names)
          known += (known.empty() ? "" : ", ") + u;
        const std::string where = m.path.empty() ? k : m.path + "." + k;
        return Error{shared_->file.string() + ": unknown key '" + where + "' (line " +
                     std::to_string(line) + "); known keys here: " + known};
      }
    }
  }
  return {};
}

}  // namespace lt
