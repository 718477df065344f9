// A frame as bytes, for tests that compare frames bit for bit: its index, times, poses, motion
// flag, every field it carries (name and values) and its waveform records.
#pragma once

#include <cstring>
#include <string>

#include "lidartwin/base/frame.h"

namespace lt::test {

inline std::string FrameBytes(const Frame& f) {
  std::string out;
  auto put = [&out](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); };
  put(&f.index, sizeof(f.index));
  put(&f.start_time_s, sizeof(double));
  put(&f.end_time_s, sizeof(double));
  for (const auto* pose : {&f.pose_start, &f.pose_end}) {
    const double v[7] = {pose->rotation.w,   pose->rotation.x,    pose->rotation.y,
                         pose->rotation.z,   pose->translation.x, pose->translation.y,
                         pose->translation.z};
    put(v, sizeof(v));
  }
  out += f.motion_corrected ? '1' : '0';
  for (const FieldView& v : FrameFields(f)) {
    if (v.size == 0) continue;
    out += v.name;
    put(v.data, v.size * FieldTypeBytes(v.type));
  }
  put(&f.waveform_samples, sizeof(f.waveform_samples));
  put(&f.waveform_dt_s, sizeof(double));
  put(f.waveform_beams.data(), f.waveform_beams.size() * 4);
  put(f.waveform_volts.data(), f.waveform_volts.size() * 4);
  return out;
}

}  // namespace lt::test
