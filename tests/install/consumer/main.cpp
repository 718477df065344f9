// Simulates one frame of the installed OS0-128 profile in the installed lab scene and writes it
// as HDF5, through the installed headers and library only.
#include <cstdio>
#include <string>

#include "lidartwin/datasets/frame_output.h"
#include "lidartwin/sim/simulator.h"

#ifndef CONFIGS_DIR
#define CONFIGS_DIR ""
#endif

int main(int argc, char** argv) {
  const std::string configs = argc > 2 ? argv[2] : CONFIGS_DIR;
  if (argc < 2) {
    std::fprintf(stderr, "usage: consumer OUT.h5 [CONFIGS_DIR]\n");
    return 2;
  }
  auto profile = lt::LoadSensorProfile(configs + "/sensors/ouster_os0_128.yaml");
  auto scene = profile.ok() ? lt::LoadScene(configs + "/scenes/lab_plates.yaml", {})
                            : lt::Expected<lt::Scene>(profile.error());
  if (!scene.ok()) {
    std::fprintf(stderr, "%s\n", scene.message().c_str());
    return 1;
  }
  auto simulator =
      lt::CreateSimulator(lt::Backend::kCpu, *scene, *profile, lt::Trajectory::Static(), {});
  if (!simulator.ok()) return std::fprintf(stderr, "%s\n", simulator.message().c_str()), 1;
  auto frame = (*simulator)->Simulate(0);
  if (!frame.ok()) return std::fprintf(stderr, "%s\n", frame.message().c_str()), 1;
  auto out = lt::FrameOutput::Open(argv[1], {});
  if (!out.ok() || !out->Write(*frame).ok() || !out->Close().ok()) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("%zu points\n", frame->size());
  return frame->size() > 0 ? 0 : 1;
}
