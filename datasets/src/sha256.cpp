#include "lidartwin/datasets/sha256.h"

#include <openssl/evp.h>

#include <fstream>

#include "lidartwin/sim/text_file.h"

namespace lt {

struct Sha256::Context {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(ctx); }
};

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  EVP_DigestInit_ex(context_->ctx, EVP_sha256(), nullptr);
}

Sha256::~Sha256() = default;

void Sha256::Add(const void* data, size_t n) {
  EVP_DigestUpdate(context_->ctx, data, n);
}

std::string Sha256::Hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(context_->ctx, md, &n);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

std::string Sha256Hex(const std::string& bytes) {
  Sha256 h;
  h.Add(bytes.data(), bytes.size());
  return h.Hex();
}

Expected<std::string> Sha256OfFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{file.string() + ": " + CannotOpenReason(file)};
  Sha256 h;
  std::string buffer(1 << 20, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    h.Add(buffer.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return Error{file.string() + ": read error"};
  return h.Hex();
}

}  // namespace lt
