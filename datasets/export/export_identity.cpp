#include "lidartwin/datasets/export_identity.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "json_fields.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/file_read_log.h"
#include "lidartwin/base/interrupt_cleanup.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/sim/material_library.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {

namespace {

using Json = nlohmann::ordered_json;

// The keys whose values are file contents, compared by hash and named in words.
constexpr const char* kFileKeys[] = {"sensor_profile", "scene", "trajectory"};

std::string Short(const std::string& hex) {
  return hex.size() > 12 ? hex.substr(0, 12) + ".." : hex;
}

}  // namespace

Expected<std::string> ExportIdentity(const SimulationJob& job, uint32_t shards) {
  Json j;
  j["lidartwin_export"] = 1;
  j["software_version"] = job.software_version;
  for (const auto& [key, path] :
       {std::pair{"sensor_profile", std::optional<std::filesystem::path>(job.sensor)},
        std::pair{"scene", std::optional<std::filesystem::path>(job.scene)},
        std::pair{"trajectory", job.trajectory}}) {
    if (!path) {
      j[key] = nullptr;
      continue;
    }
    auto text = ReadTextFile(*path);
    if (!text.ok()) return text.error();
    j[key] = Json{{"file", path->filename().string()}, {"sha256", Sha256Hex(*text)}};
  }
  // The files the profile and the scene refer to (kernel tables, the material library,
  // meshes) belong to the run as much as the YAML: their bytes are hashed too.
  Json referenced = Json::object();
  // Keyed by file name, not path: shards on machines that mount the configs elsewhere are
  // the same run.
  std::set<std::string> seen;
  auto add_file = [&](const std::string& path) -> Status {
    if (path.empty() || !seen.insert(path).second) return {};
    auto sha = Sha256OfFile(path);
    if (!sha.ok()) return Error{"a file the profile or scene refers to: " + sha.message()};
    std::string key = std::filesystem::path(path).filename().string();
    for (int n = 2; referenced.contains(key); ++n)
      key = std::filesystem::path(path).filename().string() + " (" + std::to_string(n) + ")";
    referenced[key] = *sha;
    return {};
  };
  // Every file the loaders read (kernel tables, laser configs, the material library and the
  // spectra it names, ...) as they read it, so that a key added to a loader cannot be missed
  // here; the meshes, which Open3D reads, by the scene's list.
  FileReadLog read;
  auto profile = LoadSensorProfile(job.sensor);
  if (!profile.ok()) return profile.error();
  auto scene = LoadSceneDescription(job.scene);
  if (!scene.ok()) return scene.error();
  if (!scene->materials.empty()) {
    auto library = LoadMaterialLibrary(scene->materials);
    if (!library.ok()) return library.error();
  }
  const auto hashed_above = [&](const std::filesystem::path& f) {
    for (const std::optional<std::filesystem::path>& p :
         {std::optional<std::filesystem::path>(job.sensor),
          std::optional<std::filesystem::path>(job.scene), job.trajectory})
      if (p && std::filesystem::absolute(*p).lexically_normal() == f) return true;
    return false;
  };
  for (const std::filesystem::path& f : read.files()) {
    if (hashed_above(f)) continue;
    if (Status s = add_file(f.string()); !s.ok()) return s.error();
  }
  for (const auto& object : scene->objects) {
    if (Status s = add_file(object.file); !s.ok()) return s.error();
  }
  j["referenced_files"] = referenced;
  j["frames"] = job.frames;
  j["seed"] = job.seed;
  j["shards"] = shards;
  j["backend"] = job.backend;
  j["motion_slices"] = job.motion_slices;
  j["waveform_beams"] = job.waveform_beams;
  return j.dump(2) + "\n";
}

std::string IdentityDifference(const std::string& theirs, const std::string& ours) {
  const Json a = Json::parse(theirs, nullptr, false);
  const Json b = Json::parse(ours, nullptr, false);
  if (a.is_discarded() || !a.is_object() || !a.contains("lidartwin_export")) {
    return "it is not a lidartwin export identity";
  }
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  for (const auto& [key, value] : b.items()) {
    const Json there = a.contains(key) ? a[key] : Json();
    if (there == value) continue;
    bool is_file = false;  // (a loop: clang 14 cannot capture a structured binding)
    for (const char* k : kFileKeys)
      is_file = is_file || key == k;
    if (key == "referenced_files" && there.is_object() && value.is_object()) {
      std::string files;
      for (const auto& [path, sha] : value.items()) {
        if (!there.contains(path) || there[path] != sha)
          files += (files.empty() ? "" : ", ") + path;
      }
      for (const auto& [path, sha] : there.items()) {
        if (!value.contains(path))
          files += (files.empty() ? "" : ", ") + path + " (no longer used)";
      }
      add("files the profile or scene refer to differ: " + files);
    } else if (is_file && there.is_object() && value.is_object()) {
      add(key + ": different bytes (sha256 " + Short(StringAt(there, "sha256")) + " there, " +
          Short(StringAt(value, "sha256")) + " here)");
    } else {
      add(key + ": the folder's run has " + there.dump() + ", this one " + value.dump());
    }
  }
  return out;
}

namespace {

// `text` written and synced to `path` (created anew); the caller removes it.
Status WriteWholeFile(const std::filesystem::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{path.string() + ": cannot create: " + std::strerror(errno)};
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      return Error{path.string() + ": cannot write: " + std::strerror(e)};
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const int e = errno;
  if (::close(fd) != 0 || !synced)
    return Error{path.string() + ": cannot write: " + std::strerror(synced ? errno : e)};
  return {};
}

}  // namespace

Status ClaimExportFolder(const std::filesystem::path& folder, const std::string& identity) {
  const std::filesystem::path target = folder / "export.json";
  // Written whole to a temporary name and linked into place: link(2) fails if export.json
  // exists, so of several shards starting at once exactly one writes it and the others compare.
  // The temporary is written directly (an atomic write of it would make a temporary of the
  // temporary, which a kill left behind under a name nothing removed: found by
  // ExportCli.KilledRunsResumeToTheSameBytes), registered for an interrupt's cleanup, and those
  // of runs killed outright are removed here.
  RemoveLeftoversOfDeadProcesses(folder, ".export.json.tmp-");
  const std::filesystem::path temp = folder / (".export.json.tmp-" + std::to_string(::getpid()));
  RegisterTemporaryPath(temp);
  Status written = WriteWholeFile(temp, identity);
  const int linked = written.ok() ? ::link(temp.c_str(), target.c_str()) : -1;
  const int link_errno = errno;
  std::error_code ignored;
  std::filesystem::remove(temp, ignored);
  UnregisterTemporaryPath(temp);
  if (!written.ok()) return written;
  if (linked == 0) return {};
  if (link_errno != EEXIST) {
    return Error{target.string() + ": cannot create: " + std::strerror(link_errno)};
  }
  auto theirs = ReadTextFile(target, "", 1 << 20);
  if (!theirs.ok()) return theirs.error();
  const std::string difference = IdentityDifference(*theirs, identity);
  if (difference.empty()) return {};
  return Error{folder.string() + " holds another export run (" + target.string() +
               "): " + difference + ". Use a new folder, or remove this one to start over."};
}

}  // namespace lt
