#include "lidartwin/datasets/sha256.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "lidartwin/base/parallel_for.h"
#include "lidartwin/base/text_file.h"

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

Expected<FilePieceHashes> HashFilePieces(const std::filesystem::path& file, uint64_t piece_bytes,
                                         unsigned threads) {
  if (piece_bytes == 0) return Error{file.string() + ": cannot hash in pieces of 0 bytes"};
  // Not blocking: opening a FIFO for reading would wait for a writer (it is refused below).
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{file.string() + ": " + CannotOpenReason(file)};
  struct CloseAtExit {
    int fd;
    ~CloseAtExit() { ::close(fd); }
  } close_at_exit{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{file.string() + ": " + std::strerror(errno)};
  if (!S_ISREG(st.st_mode)) return Error{file.string() + ": not a regular file"};
  FilePieceHashes out;
  out.piece_bytes = piece_bytes;
  out.bytes = static_cast<uint64_t>(st.st_size);
  const uint64_t pieces = HashPieceCount(out.bytes, piece_bytes);
  std::vector<std::string> errors;
  try {
    out.sha256.resize(pieces);
    errors.resize(pieces);
  } catch (const std::exception&) {
    return Error{file.string() + ": " + std::to_string(pieces) + " pieces of " +
                 std::to_string(piece_bytes) + " bytes are too many to hash"};
  }
  // pread(2) at each piece's offset: the threads share the descriptor, not a file position.
  // A piece left without its digest (no memory for its buffer or message) is reported below.
  auto hash_piece = [&](size_t i) {
    try {
      std::string buffer(1 << 20, '\0');
      Sha256 h;
      const uint64_t begin = i * piece_bytes;
      const uint64_t end = std::min(out.bytes, begin + piece_bytes);
      for (uint64_t at = begin; at < end;) {
        const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), end - at));
        const ssize_t got = ::pread(fd, buffer.data(), want, static_cast<off_t>(at));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          errors[i] = file.string() + ": at byte " + std::to_string(at) + ": " +
                      (got < 0 ? std::strerror(errno) : "ended early (the file shrank)");
          return;
        }
        h.Add(buffer.data(), static_cast<size_t>(got));
        at += static_cast<uint64_t>(got);
      }
      out.sha256[i] = h.Hex();
    } catch (const std::exception&) {
    }
  };
  ForEachIndexOnThreads(pieces, std::min(kMostHashThreads, threads == 0 ? UsableCores() : threads),
                        hash_piece);
  for (uint64_t i = 0; i < pieces; ++i) {
    if (!errors[i].empty()) return Error{errors[i]};
    if (out.sha256[i].empty()) return Error{file.string() + ": no memory to hash it"};
  }
  return out;
}

// One piece as large as any file can be: the plain SHA-256, read as the pieces are.
Expected<std::string> Sha256OfFile(const std::filesystem::path& file) {
  auto h = HashFilePieces(file, UINT64_MAX, 1);
  if (!h.ok()) return h.error();
  return h->sha256.front();
}

}  // namespace lt
