// lidartwin: LiDAR simulation, calibration and validation toolkit.
#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "help_text.h"
#include "lidartwin/base/config_root.h"
#include "lidartwin/base/interrupt_cleanup.h"
#include "lidartwin/base/terminal_text.h"

namespace {

void PrintUsage() {
  std::printf("lidartwin %s: LiDAR simulation, calibration and validation toolkit\n\n%s",
              LT_VERSION, lt::cli::HelpText("lidartwin").c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // Frames are a few MB of arrays made and dropped at hundreds a second. glibc would map each
  // array over 128 KB afresh and unmap it when freed, so every frame's memory page-faulted in
  // again: sizing a 50,000-point frame took 0.66 ms, against 0.08 ms from the reused heap
  // (build VM); on the GPU most of a street frame's host time. Arrays up to 32 MB now come
  // from the heap, and up to 128 MB of freed heap stays for the next frame.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
  // Before any thread starts: an interrupted run removes its temporary files.
  lt::InstallInterruptCleanup();
  lt::EscapeControlBytesOnOutput();
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    PrintUsage();
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("lidartwin %s\nconfigs: %s/configs\n", LT_VERSION, lt::ConfigRoot().c_str());
    return 0;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "simulate") return lt::cli::SimulateCommand(args);
  if (command == "export") return lt::cli::ExportCommand(args);
  if (command == "info") return lt::cli::InfoCommand(args);
  if (command == "convert") return lt::cli::ConvertCommand(args);
  if (command == "demo") return lt::cli::DemoCommand(args);
  if (command == "bench") return lt::cli::BenchCommand(args);
  if (command == "compare") return lt::cli::CompareCommand(args);
  if (command == "report") return lt::cli::ReportCommand(args);
#if LT_WITH_VIEWER
  if (command == "view") return lt::cli::ViewCommand(args);
#endif
  if (command == "import-sensor") return lt::cli::ImportSensorCommand(args);
#if LT_WITH_CERES
  if (command == "calibrate") return lt::cli::CalibrateCommand(args);
  if (command == "labgen") return lt::cli::LabgenCommand(args);
  if (command == "lab") return lt::cli::LabCommand(args);
  if (command == "calibrate-real") return lt::cli::CalibrateRealCommand(args);
#endif
#if LT_WITH_OPEN3D
  if (command == "reconstruct") return lt::cli::ReconstructCommand(args);
  if (command == "reproduce") return lt::cli::ReproduceCommand(args);
  if (command == "resimulate") return lt::cli::ResimulateCommand(args);
#endif
  std::fprintf(stderr, "lidartwin: unknown command '%s' (try lidartwin --help)\n", command.c_str());
  return 2;
}
