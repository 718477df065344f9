// LAS 1.4 point clouds (ASPRS LAS Specification 1.4 R15), one frame a file, for GIS and
// point-cloud tools.
//
// Written: point data record format 6 (30 bytes: X Y Z as scaled int32, intensity, return
// number and count, classification, scan angle, point source, GPS time) plus an Extra Bytes
// VLR (LASF_Spec, record 4) that carries every other per-point field of the frame under its
// own name and type (range, intensity as float, reflectance, channel, column, material_id,
// instance_id, semantic_class, beam_id, echo_pulse_width), so a file reads back to the same
// frame. The mapping:
//   - X Y Z: sensor-frame metres at a scale of 0.1 mm (kLasScale_m), offset 0;
//   - intensity: the frame's intensity rounded and clamped to 0..65535 (the exact value is
//     the extra field "intensity");
//   - return number: return_index + 1 (at most 15); number of returns: the beam's echoes;
//   - classification: semantic_class (our classes are LAS codes); 65535, the label of a
//     detector's noise echo, becomes 18 (high noise); other classes above 255 become 1
//     (unclassified), the full value staying in the extra field "semantic_class";
//   - scan angle: the point's elevation in the sensor frame, in 0.006 degree units;
//   - point source ID: the frame's index (mod 65536); GPS time: the firing time on the
//     trajectory clock [s] (global encoding bit 0 clear: not adjusted GPS time).
// The global encoding's WKT bit is set, as LAS 1.4 asks of formats 6-10; no coordinate
// reference system is written (the points are in the sensor's frame).
//
// Read: formats 6 and 7 (7's colour is skipped), the Extra Bytes fields named as ours read
// back into the frame; errors name the file and the byte offset or header field.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/status.h"

namespace lt {

inline constexpr double kLasScale_m = 1e-4;

Status WriteLas(const Frame& frame, const std::filesystem::path& path);

Expected<Frame> ReadLas(const std::filesystem::path& path);
// The same from bytes in memory; `name` stands for the file in messages (the fuzzer's entry).
Expected<Frame> ParseLas(std::string_view bytes, const std::string& name);

}  // namespace lt
