#include "recording/packet_recording.h"

#include "lidartwin/datasets/hesai.h"
#include "lidartwin/datasets/robosense.h"
#include "lidartwin/datasets/velodyne.h"

namespace lt {
namespace {

// The recording of a calibration and the decoder that takes it.
template <typename Calibration, typename Decode>
Expected<RecordingSource> Decoded(Expected<Calibration> calibration, Decode decode,
                                  PacketSource packets, const char* family, double wavelength_nm,
                                  const std::filesystem::path& sidecar,
                                  const std::string& container, Recording r) {
  if (!calibration.ok()) return calibration.error();
  r.reader = std::string(family) + "-" + container;
  const std::string_view f = family;
  r.intensity_unit = f == "velodyne"    ? kIntensityVelodyne
                     : f == "hesai"     ? kIntensityHesai
                     : f == "robosense" ? kIntensityRobosense
                                        : kIntensityUnknown;
  r.wavelength_nm = wavelength_nm;
  r.sensor = sidecar.empty() ? std::string(family) : sidecar.stem().string();
  return RecordingSource(
      std::move(r), [packets = std::move(packets), c = std::move(calibration.value()), decode](
                        const FrameSink& sink, CaptureStats& stats, std::vector<std::string>&) {
        // A Velodyne, Hesai or RoboSense unit reports no calibrated reflectance and no labels.
        const FrameSink measured = [&sink](Frame&& f) {
          DropFields(f, kLabelFields);
          DropFields(f, {"reflectance"});
          return sink(std::move(f));
        };
        return decode(packets, c, measured, &stats);
      });
}

// A Hesai unit's angles and, where given, its fire times.
Expected<HesaiCalibration> HesaiCalibrationWith(const std::filesystem::path& angles,
                                                const std::filesystem::path& firetime) {
  auto cal = LoadHesaiCalibration(angles);
  if (!cal.ok() || firetime.empty()) return cal;
  auto fire = LoadHesaiFiretimes(firetime);
  if (!fire.ok()) return fire.error();
  cal->firetime_us = std::move(fire.value());
  cal->firetime_file = firetime;
  return cal;
}

}  // namespace

Error PcapWithoutSidecar(const std::filesystem::path& pcap, const std::string& why) {
  return Error{pcap.string() +
               ": a pcap needs its sensor's metadata (Ouster .json) or calibration (Velodyne "
               ".yaml, Hesai or RoboSense .csv), unless a RoboSense Helios's DIFOP packets carry "
               "its angles (" +
               why + ")"};
}

Expected<PacketFamily> PacketFamilyOfSidecar(const std::filesystem::path& sidecar) {
  const std::string ext = sidecar.extension().string();
  if (ext == ".yaml" || ext == ".yml" || ext == ".xml") return PacketFamily::kVelodyne;
  if (ext == ".dat") return PacketFamily::kHesai;  // an AT128's angle correction
  if (ext == ".csv") {
    // Hesai's angle CSV has three columns, RoboSense's two.
    auto hesai = LoadHesaiCalibration(sidecar);
    if (hesai.ok()) return PacketFamily::kHesai;
    auto robosense = LoadRobosenseCalibration(sidecar);
    if (robosense.ok()) return PacketFamily::kRobosense;
    return Error{hesai.message() + " (as a Hesai angle file); " + robosense.message() +
                 " (as a RoboSense one)"};
  }
  return Error{sidecar.string() +
               ": expected a Velodyne .yaml or db.xml, a Hesai AT128's .dat, or a Hesai or "
               "RoboSense angle-correction .csv"};
}

Expected<RecordingSource> OpenPacketRecording(PacketFamily family, PacketSource packets,
                                              const std::filesystem::path& sidecar,
                                              const std::filesystem::path& firetime,
                                              const std::string& container, Recording r) {
  switch (family) {
    case PacketFamily::kVelodyne:
      return Decoded(
          LoadVelodyneCalibration(sidecar),
          [](const PacketSource& p, const VelodyneCalibration& c, const FrameSink& s,
             CaptureStats* st) { return ForEachVelodyneFrame(p, c, s, st); },
          std::move(packets), "velodyne", 903, sidecar, container, std::move(r));
    case PacketFamily::kHesai:
      return Decoded(
          HesaiCalibrationWith(sidecar, firetime),
          [](const PacketSource& p, const HesaiCalibration& c, const FrameSink& s,
             CaptureStats* st) { return ForEachHesaiFrame(p, c, s, st); },
          std::move(packets), "hesai", 905, sidecar, container, std::move(r));
    case PacketFamily::kRobosense: {
      // Without an angle file, the unit's own DIFOP angles (what rs_driver reads by default).
      auto calibration = sidecar.empty() ? RobosenseCaptureCalibration(packets)
                                         : LoadRobosenseCalibration(sidecar);
      if (calibration.ok() && sidecar.empty())
        r.notes.push_back("note: the lasers' angles (" +
                          std::to_string(calibration->vertical_cdeg.size()) +
                          " lasers) from the DIFOP packet at " + calibration->file.string());
      return Decoded(
          std::move(calibration),
          [](const PacketSource& p, const RobosenseCalibration& c, const FrameSink& s,
             CaptureStats* st) { return ForEachRobosenseFrame(p, c, s, st); },
          std::move(packets), "robosense", 905, sidecar, container, std::move(r));
    }
  }
  return Error{"unknown packet family"};
}

}  // namespace lt
