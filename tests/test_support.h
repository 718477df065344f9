// Helpers shared by the tests: source and real-data paths, temporary directories.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace lt::test {

inline std::filesystem::path SourceDir() {
  return LT_SOURCE_DIR;
}
inline std::filesystem::path ConfigDir() {
  return SourceDir() / "configs";
}
inline std::filesystem::path RealDataDir() {
  return LT_REAL_DATA_DIR;
}

// Skips the calling test when ../shared/real-data is absent (CI always has it).
#define LT_REQUIRE_REAL_DATA()                                                         \
  do {                                                                                 \
    if (!std::filesystem::is_directory(::lt::test::RealDataDir())) {                   \
      GTEST_SKIP() << "../shared/real-data not found at " << ::lt::test::RealDataDir() \
                   << "; this test needs the shared real recordings";                  \
    }                                                                                  \
  } while (0)

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("lidartwin_") + (info ? info->test_suite_name() : "t") + "_" +
                       (info ? info->name() : "x") + "_" + std::to_string(std::random_device{}());
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  // Writes a file and returns its path.
  std::filesystem::path Write(const std::string& name, const std::string& text) const {
    const auto p = path_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

// Writes bytes as a file in `dir` and returns its path.
inline std::filesystem::path WriteBytes(const TempDir& dir, const std::string& name,
                                        const std::vector<uint8_t>& bytes) {
  return dir.Write(name, std::string(bytes.begin(), bytes.end()));
}

// Simpson's rule for the integral of f over [a, b] in n (even) panels: the tests' independent
// quadrature.
template <typename F>
double Simpson(F f, double a, double b, int n = 20000) {
  const double h = (b - a) / n;
  double s = f(a) + f(b);
  for (int i = 1; i < n; ++i)
    s += f(a + i * h) * (i % 2 ? 4 : 2);
  return s * h / 3;
}

}  // namespace lt::test
