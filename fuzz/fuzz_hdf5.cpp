// libFuzzer target: our HDF5 frames reader on arbitrary bytes (written to a temporary file,
// as libhdf5 reads files). Run with -detect_leaks=0: libhdf5 keeps allocations in its global
// state that LeakSanitizer reports at exit (56 bytes inside libhdf5_serial, not ours).
// libhdf5 1.10.8 (Debian 12) itself overflows its buffers under H5Aexists on some corrupted
// object headers, before any check of ours sees them; the reader walks the structure in a
// forked child first (datasets/hdf5/isolated_call.h), so such a crash ends the child and this
// process gets an error. In `make test` (scripts/fuzz-smoke.sh).
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "lidartwin/datasets/hdf5_frames.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("lidartwin-fuzz-" + std::to_string(::getpid()) + ".h5");
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  (void)lt::ReadHdf5Summary(p).ok();
  (void)lt::ReadHdf5Frames(p).ok();
  std::filesystem::remove(p);
  return 0;
}
