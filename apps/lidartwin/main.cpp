// lidartwin: LiDAR simulation, calibration and validation toolkit.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "lidartwin/base/interrupt_cleanup.h"
#include "terminal_text.h"

namespace {

void PrintUsage() {
  std::printf(
      "lidartwin %s: LiDAR simulation, calibration and validation toolkit\n\n"
      "usage: lidartwin <command> [options]\n\n"
      "commands:\n"
      "  simulate  --sensor S.yaml --scene C.yaml [--trajectory T.yaml] [--frames N]\n"
      "            [--seed K] [--backend cpu|cuda] [--threads N] --out out.{h5,ply,pcd}\n"
      "  export    the simulate options, --frames N --out FOLDER [--shards N | --workers N |\n"
      "            --devices 0,1 | --shard I/N] [--join]: a labelled dataset in resumable\n"
      "            shards joined by dataset.h5 and manifest.json (docs/datasets.md)\n"
      "  info      FILE.h5 [--json]          frames, points per frame, fields, sensor\n"
      "  convert   REC [--metadata M.json | --calibration C.yaml] --out out.{h5,ply,pcd}\n"
      "            real recordings (Ouster/Velodyne pcap, KITTI .bin) to frames\n"
      "  demo      [--out DIR]               built-in lab scene seen by an Ouster OS0-128\n"
      "  bench     [--json FILE] [--repeats N] [--memory]   rays/s and points/s on the demo;\n"
      "            --memory: peak memory of simulate and convert, short against long\n"
      "  compare   --real REC --sim REC [--rois T.yaml | --scene S.yaml] --out metrics.json\n"
      "            associate points, depth/intensity error, N_points/I_mean MAPE, d_error\n"
      "  view      --real REC --sim REC [--port P | --export viewer.html]   real and\n"
      "            simulated scans side by side in the browser (the pairs compare makes;\n"
      "            in builds with the viewer, which needs Node.js and npm to build)\n"
      "  import-sensor METADATA --out profile.yaml   profile from Ouster JSON, Velodyne YAML\n"
      "            or Hesai CSV intrinsics\n"
      "  reconstruct REC [--poses P.txt] [--frames I,J] --out DIR   scene from recorded frames\n"
      "  reproduce --recording REC --metadata M --simulate-frame K --out DIR\n"
      "            import, reconstruct from the other frames, simulate frame K, compare, report\n"
      "  calibrate LAB_DIR --base P.yaml --out NEW.yaml --report DIR   fit the sensor model\n"
      "            to lab measurements (Ceres), with uncertainties and a report\n"
      "  labgen    --profile TRUE.yaml --out LAB_DIR [--seed K]   virtual lab from the simulator\n"
      "  report    METRICS.json... --out DIR [--baseline B.json --tolerances T.yaml]\n"
      "            JSON, Markdown and HTML/SVG report; exit 3 on a regression\n"
      "  calibrate-real REAL_DATA_DIR --report DIR   fits to the shared real measurements\n"
      "            (Spectralon panel, Ouster captures): Markdown report with SVG plots\n\n"
      "Run 'lidartwin <command> --help' for a command's options.\n",
      LT_VERSION);
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread starts: an interrupted run removes its temporary files.
  lt::InstallInterruptCleanup();
  lt::cli::EscapeControlBytesOnOutput();
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    PrintUsage();
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("lidartwin %s\n", LT_VERSION);
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
  if (command == "calibrate-real") return lt::cli::CalibrateRealCommand(args);
#endif
#if LT_WITH_OPEN3D
  if (command == "reconstruct") return lt::cli::ReconstructCommand(args);
  if (command == "reproduce") return lt::cli::ReproduceCommand(args);
#endif
  std::fprintf(stderr, "lidartwin: unknown command '%s' (try lidartwin --help)\n", command.c_str());
  return 2;
}
