// The files a piece of work reads, noted as they are read: a run's identity must cover every
// file it depends on (spectra, kernels, laser configs and the YAML that names them), and a list
// kept by hand beside the loaders misses the ones added later (issue 36: a material's
// spectrum_file changed between a kill and the resume and the export mixed both).
#pragma once

#include <filesystem>
#include <vector>

namespace lt {

// While one lives, every file ReadTextFile reads on this thread is noted, once, in the order
// first read (paths as the loaders resolved them). Logs nest: an inner log's files are noted in
// the outer one too.
class FileReadLog {
 public:
  FileReadLog();
  ~FileReadLog();
  FileReadLog(const FileReadLog&) = delete;
  FileReadLog& operator=(const FileReadLog&) = delete;
  const std::vector<std::filesystem::path>& files() const { return files_; }

  // For readers of files that do not go through ReadTextFile (mesh loaders).
  static void Note(const std::filesystem::path& file);

 private:
  std::vector<std::filesystem::path> files_;
  FileReadLog* outer_;
};

}  // namespace lt
