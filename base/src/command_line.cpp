#include "lidartwin/base/command_line.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>

#include "lidartwin/base/comma_list.h"

namespace lt::cli {

Expected<Args> Args::Parse(const std::vector<std::string>& argv, const ArgSpec& spec) {
  Args a;
  bool options_ended = false;  // after "--" everything is a positional argument
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (!options_ended && arg == "--") {
      options_ended = true;
      continue;
    }
    const bool is_option = !options_ended && arg.size() > 1 && arg[0] == '-';
    if (!is_option) {
      if (a.positionals_.size() >= spec.max_positionals) {
        return Error{"unexpected argument '" + arg + "'"};
      }
      a.positionals_.push_back(arg);
      continue;
    }
    if (arg == "-h") {  // the usual short form of --help, for every command
      a.switches_.insert("--help");
      continue;
    }
    // --name=value is --name value.
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    if (spec.valued.count(name)) {
      if (a.values_.count(name)) return Error{"option " + name + " given twice"};
      if (eq != std::string::npos) {
        a.values_[name] = arg.substr(eq + 1);
      } else if (i + 1 >= argv.size()) {
        return Error{"option " + name + " needs a value"};
      } else {
        a.values_[name] = argv[++i];
      }
      if (a.values_[name].empty()) return Error{"option " + name + " needs a value, got ''"};
    } else if (spec.switches.count(name)) {
      if (eq != std::string::npos) return Error{"option " + name + " takes no value"};
      a.switches_.insert(name);
    } else {
      return Error{"unknown option " + name + " (see --help)"};
    }
  }
  return a;
}

Error FlagError(const std::string& flag, std::string message) {
  return Error{std::move(message), flag};
}

Status FirstError(std::initializer_list<Status> statuses) {
  for (const Status& s : statuses)
    if (!s.ok()) return s;
  return {};
}

namespace {

// The value read, or its error.
template <typename T, typename Field>
Status Assign(Expected<T> value, Field& field) {
  if (!value.ok()) return value.error();
  field = static_cast<Field>(std::move(*value));
  return {};
}

}  // namespace

Status Args::Into(const std::string& flag, std::string& field) const {
  return Assign(Expected<std::string>(Get(flag, field)), field);
}

Status Args::Into(const std::string& flag, std::filesystem::path& field) const {
  return Assign(Expected<std::string>(Get(flag, field.string())), field);
}

Status Args::Into(const std::string& flag, double& field) const {
  return Assign(GetDouble(flag, field), field);
}

Status Args::Into(const std::string& flag, std::vector<double>& field) const {
  return Assign(GetDoubleList(flag, field), field);
}

Status Args::Into(const std::string& flag, std::vector<uint32_t>& field) const {
  auto list = GetDoubleList(flag, {});
  if (!list.ok() || !Has(flag)) return list.status();
  field.clear();
  for (double v : *list) {
    if (!(v >= 0 && v <= UINT32_MAX && v == std::floor(v)))
      return FlagError(flag, "option " + flag + ": " + fmt::format("{:.15g}", v) +
                                 " is not a frame number (a whole number below 2^32)");
    field.push_back(static_cast<uint32_t>(v));
  }
  return {};
}

Status Args::Into(const std::string& flag, uint64_t& field) const {
  return Assign(GetUInt(flag, field), field);
}

Status Args::Into(const std::string& flag, uint32_t& field) const {
  return Assign(GetUIntIn(flag, field, 0, UINT32_MAX), field);
}

Status Args::Into(const std::string& flag, int& field) const {
  return Assign(GetUIntIn(flag, field < 0 ? 0 : static_cast<uint64_t>(field), 0, INT32_MAX), field);
}

bool Args::Has(const std::string& flag) const {
  return values_.count(flag) || switches_.count(flag);
}

std::string Args::Get(const std::string& flag, const std::string& fallback) const {
  const auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second;
}

Expected<uint64_t> Args::GetUInt(const std::string& flag, uint64_t fallback) const {
  const auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  uint64_t v = 0;
  const std::string& s = it->second;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    return FlagError(flag,
                     "option " + flag + ": " + s + " is too large (at most 18446744073709551615)");
  }
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return FlagError(flag,
                     "option " + flag + ": expected a non-negative whole number, got '" + s + "'");
  }
  return v;
}

Expected<uint64_t> Args::GetUIntIn(const std::string& flag, uint64_t fallback, uint64_t lo,
                                   uint64_t hi) const {
  auto v = GetUInt(flag, fallback);
  if (!v.ok()) return v;
  if (*v < lo || *v > hi) {
    return FlagError(flag, "option " + flag + ": must be in " + std::to_string(lo) + ".." +
                               std::to_string(hi) + ", got " + Get(flag));
  }
  return v;
}

namespace {

bool ParseFinite(const std::string& s, double* v) {
  // Decimal numbers only: strtod would also take leading spaces, hex (0x1p3), "infinity".
  if (s.empty() || s.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(*v);
}

}  // namespace

Expected<double> Args::GetDouble(const std::string& flag, double fallback) const {
  const auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  double v = 0;
  if (!ParseFinite(it->second, &v))
    return FlagError(flag,
                     "option " + flag + ": expected a finite number, got '" + it->second + "'");
  return v;
}

Expected<std::vector<double>> Args::GetDoubleList(const std::string& flag,
                                                  const std::vector<double>& fallback) const {
  const auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  std::vector<double> out;
  for (const std::string& item : CommaSeparated(it->second)) {
    double v = 0;
    if (!ParseFinite(item, &v))
      return FlagError(flag,
                       "option " + flag + ": expected comma-separated numbers, got '" + item + "'");
    out.push_back(v);
  }
  return out;
}

namespace {

// The flag of the error's option, or null.
const std::string* FlagOf(const Error& error, const OptionFlags& flags) {
  if (error.option.empty()) return nullptr;
  for (const auto& [key, flag] : flags)
    if (key == error.option) return &flag;
  return nullptr;
}

// Error::option of a usage error (a flag's own begins with "--" too).
constexpr const char* kUsageOption = "--";

bool IsFlag(const std::string& option) {
  return option.size() >= 2 && option.compare(0, 2, "--") == 0;
}

}  // namespace

std::string FlagMessage(const Error& error, const OptionFlags& flags) {
  const std::string* flag = FlagOf(error, flags);
  const std::string& m = error.message;
  const size_t n = error.option.size();
  if (flag == nullptr || m.size() <= n || m.compare(0, n, error.option) != 0 ||
      (m[n] != ':' && m[n] != ' '))
    return m;
  const std::string rest = m.substr(n);
  return rest[0] == ':' ? "option " + *flag + rest : *flag + rest;
}

bool IsAboutOption(const Error& error, const OptionFlags& flags) {
  return FlagOf(error, flags) != nullptr;
}

Error Usage(std::string message) {
  return Error{std::move(message), kUsageOption};
}

Error ArgumentError(std::string message) {
  return Error{std::move(message), "--*"};
}

Status Require(const Args& args, const char* positional, std::initializer_list<const char*> flags) {
  if (positional && args.positionals().empty()) return Usage(std::string("missing ") + positional);
  for (const char* flag : flags)
    if (!args.Has(flag)) return Usage(std::string("missing required option ") + flag);
  return {};
}

int RunCommandLine(const CommandLine& command, const std::vector<std::string>& argv,
                   const CommandBody& body) {
  const std::string& usage = command.usage;
  ArgSpec spec = command.args;
  spec.switches.insert("--help");
  auto args = Args::Parse(argv, spec);
  if (!args.ok()) {
    fmt::print(stderr, "{} {}: {}\n{}", command.program, command.name, args.message(), usage);
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("{}", usage);
    return 0;
  }
  // Out of memory (a file that claims more than the machine holds and got past the readers'
  // bounds) ends the command with a message, not an abort.
  Expected<int> exit_status = Error{""};
  try {
    exit_status = body(*args);
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "{} {}: error: out of memory\n", command.program, command.name);
    return 1;
  }
  if (exit_status.ok()) return *exit_status;
  const Error& e = exit_status.error();
  if (e.option == kUsageOption) {
    fmt::print(stderr, "{} {}: {}\n{}", command.program, command.name, e.message, usage);
    return 2;
  }
  if (IsFlag(e.option) || IsAboutOption(e, command.flags)) {
    fmt::print(stderr, "{} {}: {}\n", command.program, command.name, FlagMessage(e, command.flags));
    return 2;
  }
  fmt::print(stderr, "{} {}: error: {}\n", command.program, command.name,
             FlagMessage(e, command.names));
  return 1;
}

bool IsStandardOutput(const Args& args, const char* flag) {
  return args.Has(flag) && args.Get(flag) == "-";
}

Status RefuseStandardOutput(const Args& args,
                            std::initializer_list<std::pair<const char*, const char*>> outputs) {
  for (const auto& [flag, what] : outputs)
    if (IsStandardOutput(args, flag))
      return FlagError(flag, fmt::format("option {}: '-' (standard output) cannot take what this "
                                         "command writes; give {}",
                                         flag, what));
  return {};
}

Status CheckOutputsApart(const Args& args, std::initializer_list<const char*> input_flags,
                         const std::vector<std::pair<std::string, std::string>>& outputs) {
  auto same = [](const std::string& a, const std::string& b) {
    std::error_code ec1, ec2;
    const auto ca = std::filesystem::weakly_canonical(a, ec1);
    const auto cb = std::filesystem::weakly_canonical(b, ec2);
    return !ec1 && !ec2 && ca == cb;
  };
  std::vector<std::pair<std::string, std::string>> named;
  for (const char* flag : input_flags)
    if (args.Has(flag)) named.emplace_back(flag, args.Get(flag));
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (const auto& [flag, path] : named)
      if (same(outputs[i].second, path))
        return FlagError(outputs[i].first,
                         fmt::format("option {}: {} is the {} file; it would be overwritten",
                                     outputs[i].first, outputs[i].second, flag));
    for (size_t j = 0; j < i; ++j)
      if (same(outputs[i].second, outputs[j].second))
        return FlagError(outputs[i].first,
                         fmt::format("options {} and {} name the same file ({})", outputs[j].first,
                                     outputs[i].first, outputs[i].second));
  }
  return {};
}

}  // namespace lt::cli
