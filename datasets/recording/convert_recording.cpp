#include "lidartwin/datasets/convert_recording.h"

#include "lidartwin/datasets/frame_output.h"

namespace lt {

Expected<ConvertResult> ConvertRecording(const ConvertOptions& o) {
  // The output must not be an input (the recording, its sidecar or fire-time file): it would be
  // replaced while it is read.
  std::error_code ec;
  const auto out_path = std::filesystem::weakly_canonical(o.out, ec);
  for (const std::filesystem::path& input : {o.recording, o.sidecar, o.read.firetimes}) {
    std::error_code ec_in;
    if (!ec && !input.empty() && out_path == std::filesystem::weakly_canonical(input, ec_in) &&
        !ec_in)
      return OptionError("out", "out " + o.out.string() +
                                    ": is the recording, its sidecar or its fire-time file; it "
                                    "would be overwritten");
  }
  auto source = OpenRecording(o.recording, o.sidecar, o.read);
  if (!source.ok()) return source.error();
  const Recording& header = source->header();
  DatasetInfo info;
  if (header.has_source) {
    info = header.source;  // .h5 to .h5 keeps what the file said about itself
  } else {
    info.software_version = o.software_version;
    info.sensor_name = header.sensor;
    info.backend = header.reader;
    info.wavelength_nm = header.wavelength_nm;
    info.intensity_unit = header.intensity_unit;
  }
  // Names are decided when the output closes, from the number of frames written.
  auto out = FrameOutput::Open(o.out, info);
  if (!out.ok()) return out.error();
  ConvertResult result;
  Status read = source->ForEachFrame([&](Frame&& f) -> Status {
    if (Status s = out->Write(f); !s.ok()) return s;
    ++result.frames;
    result.points += f.size();
    if (o.on_frame) o.on_frame(result.frames, result.points, source->Fraction());
    return {};
  });
  if (!read.ok()) return read.error();
  if (result.frames == 0) {
    return Error{o.recording.string() + ": no frames to convert; nothing written"};
  }
  if (Status s = out->Close(); !s.ok()) return s.error();
  result.written = out->written();
  result.source = source->header();
  return result;
}

}  // namespace lt
