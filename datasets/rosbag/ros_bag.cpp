#include "lidartwin/datasets/ros_bag.h"

#include <algorithm>

#include "lidartwin/base/ascii_case.h"
#include "lidartwin/base/config_reader.h"
#include "rosbag/mcap_bag.h"
#include "rosbag/ros1_bag.h"
#include "rosbag/rosbag2_sqlite.h"

namespace lt {
namespace {

// The files of a rosbag2 folder, from its metadata.yaml (rosbag2_storage's
// BagMetadata: version, storage_identifier, compression_format, files[].path since version
// 5, relative_file_paths before), or the folder's .db3 files by name when it has none.
Expected<std::unique_ptr<RosBag>> OpenBagFolder(const std::filesystem::path& folder) {
  const auto yaml = folder / "metadata.yaml";
  auto config = ConfigMap::FromFile(yaml);
  if (!config.ok()) return config.error();
  ConfigMap info = config->Map("rosbag2_bagfile_information");
  const std::string storage = info.String("storage_identifier", "sqlite3");
  const std::string compression = info.String("compression_format", "");
  std::vector<std::filesystem::path> files;
  if (info.Has("files")) {
    for (ConfigMap& f : info.MapList("files")) {
      // A bag's files are in its folder: no absolute path, no "..", none twice.
      const std::filesystem::path rel = f.String("path");
      if (rel.is_absolute() || rel.lexically_normal().string().rfind("..", 0) == 0)
        f.Fail("path", "'" + rel.string() + "' is not a file in the bag's folder");
      else if (std::find(files.begin(), files.end(), folder / rel) != files.end())
        f.Fail("path", "'" + rel.string() + "' is listed twice");
      files.push_back(folder / rel);
    }
  }
  if (Status s = config->FirstError(); !s.ok()) return s.error();
  if (!compression.empty())
    return Error{yaml.string() + ": compression_format '" + compression +
                 "': compressed rosbag2 files are not read; decompress the bag first "
                 "(ros2 bag convert)"};
  if (storage != "sqlite3" && storage != "mcap")
    return Error{yaml.string() + ": storage_identifier '" + storage +
                 "' (expected sqlite3 or mcap)"};
  const std::string ext = storage == "mcap" ? ".mcap" : ".db3";
  if (files.empty()) {  // metadata older than version 5: the folder's files by name
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
      if (AsciiLowerCase(entry.path().extension().string()) == ext) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
  }
  if (files.empty()) return Error{yaml.string() + ": the bag names no " + ext + " file"};
  if (storage == "mcap") return ros::OpenMcapBag(folder, files);
  return ros::OpenSqliteBag(folder, files);
}

}  // namespace

bool LooksLikeRosBag(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return std::filesystem::exists(path / "metadata.yaml", ec);
  const std::string ext = AsciiLowerCase(path.extension().string());
  return ext == ".db3" || ext == ".mcap" || ext == ".bag";
}

Expected<std::unique_ptr<RosBag>> OpenRosBag(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    if (!std::filesystem::exists(path / "metadata.yaml", ec))
      return Error{path.string() + ": a folder without metadata.yaml is not a rosbag2 bag"};
    return OpenBagFolder(path);
  }
  if (!std::filesystem::exists(path, ec)) return Error{path.string() + ": no such file"};
  const std::string ext = AsciiLowerCase(path.extension().string());
  if (ext == ".db3") return ros::OpenSqliteBag(path, {path});
  if (ext == ".mcap") return ros::OpenMcapBag(path, {path});
  if (ext == ".bag") return ros::OpenRos1Bag(path);
  return Error{path.string() +
               ": not a ROS bag this build reads (expected a ROS 2 .db3 or .mcap file or "
               "rosbag2 folder with metadata.yaml, or a ROS 1 .bag)"};
}

}  // namespace lt
