#include "lidartwin/base/config_root.h"

#include <cstdlib>
#include <system_error>

namespace lt {
namespace {

bool HasConfigs(const std::filesystem::path& root) {
  std::error_code ec;
  return !root.empty() && std::filesystem::is_directory(root / "configs", ec);
}

}  // namespace

std::filesystem::path InstalledDataRoot(const std::filesystem::path& executable) {
  const std::filesystem::path bin = executable.parent_path();
  if (bin.filename() != "bin") return {};
  const std::filesystem::path data = bin.parent_path() / "share" / "lidartwin";
  return HasConfigs(data) ? data : std::filesystem::path();
}

std::filesystem::path ConfigRoot() {
  if (const char* home = std::getenv("LIDARTWIN_HOME"); home && *home) return home;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    if (auto installed = InstalledDataRoot(self); !installed.empty()) return installed;
  }
  return LT_SOURCE_DIR;
}

}  // namespace lt
