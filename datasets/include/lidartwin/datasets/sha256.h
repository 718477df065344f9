// SHA-256 (OpenSSL's libcrypto, ADR 0007): the export manifest's checksums and the lab
// folder's fingerprint.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

#include "lidartwin/sim/status.h"

namespace lt {

// A digest fed piece by piece; Hex() ends it (lower-case hex, 64 digits).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Add(const void* data, size_t n);
  std::string Hex();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// Hex SHA-256 of bytes, and of a file read in 1 MiB pieces (errors name the file).
std::string Sha256Hex(const std::string& bytes);
Expected<std::string> Sha256OfFile(const std::filesystem::path& file);

}  // namespace lt
