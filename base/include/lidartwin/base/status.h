// The two error channels (STYLE.md rule 6): LT_CHECK for bugs, Expected<T>/Status for
// expected failures whose message names the file, the key or offset and the problem.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#define LT_CHECK(cond)                                                                 \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "%s:%d: LT_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

namespace lt {

struct Error {
  std::string message;
  // The option the error is about, by its key, where a workflow refuses a value it was given
  // (the message begins with the key; the CLI names its flag instead and exits 2); empty for
  // every other failure. Set by OptionError.
  std::string option = {};
};

// An error about option `key` (an Options struct's field name); `message` begins with the key.
inline Error OptionError(std::string key, std::string message) {
  return Error{std::move(message), std::move(key)};
}

// Success, or an Error with a message for a person.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : error_(std::move(e)) {}  // NOLINT: implicit by design
  bool ok() const { return !error_.has_value(); }
  const std::string& message() const { return error_->message; }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

// A value or an Error (std::expected arrives with C++23).
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Expected(Error e) : v_(std::move(e)) {}      // NOLINT: implicit by design
  bool ok() const { return std::holds_alternative<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<Error>(v_); }
  const std::string& message() const { return error().message; }
  Status status() const { return ok() ? Status() : Status(error()); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace lt
