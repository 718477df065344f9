#include "lidartwin/sim/text_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace lt {

Expected<std::string> ReadTextFile(const std::filesystem::path& file, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    return Error{file.string() +
                 (what.empty() ? ": is a directory" : ": is a directory, not a" + what)};
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{file.string() + ": cannot open" + what};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace lt
