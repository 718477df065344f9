// LAS 1.4 point clouds (ASPRS LAS Specification 1.4 R15), one frame a file, for GIS and
// point-cloud tools.
//
// Written: point data record format 6 (30 bytes: X Y Z as scaled int32, intensity, return
// number and count, classification, scan angle, point source, GPS time), every other
// per-point field of the frame as extra bytes named "lt_" + its name with its own type (range,
// intensity as float, reflectance, channel, column, material_id, instance_id, semantic_class,
// beam_id, echo_pulse_width, return_type), and three VLRs: the coordinate system as OGC WKT
// (LAS 1.4 asks it of formats 6-10; a LOCAL_CS, the sensor's frame), the Extra Bytes descriptors,
// and the frame's index, start and end times, poses and motion correction (user "lidartwin", record
// 1). So a file reads back to the same frame, x y z to 0.1 mm; waveform records are not
// carried. The mapping:
//   - X Y Z: sensor-frame metres at a scale of 0.1 mm (kLasScale_m), offset 0; points without
//     finite coordinates are left out (LAS's integers cannot hold them);
//   - intensity: the frame's intensity rounded and clamped to 0..65535, in the frame's own
//     unit (not rescaled to 16 bits; the exact value is the extra field);
//   - return number: return_index + 1 (at most 15); number of returns: the beam's echoes (the
//     return number where the frame has no beam ids);
//   - classification: semantic_class (our classes are LAS codes); 65535, the label of a
//     detector's noise echo, becomes 18 (high noise); other classes above 255 become 1
//     (unclassified), the full value staying in the extra field;
//   - scan angle: as the specification defines it with x along track: 0 straight down, about
//     x, in 0.006 degree units;
//   - point source and file source ID: the frame's index (mod 65536); GPS time: the firing time
//     on the trajectory clock [s] (global encoding bit 0 clear: not adjusted GPS time);
//   - creation date: SOURCE_DATE_EPOCH's day when set, so that two runs give the same bytes;
//     else today's, the one field that differs between runs.
//
// Read: LAS 1.0 to 1.4, point formats 0 to 10 (colour, near-infrared and waveform packets
// skipped: formats 4, 5, 9 and 10 reference waveforms that are not decoded), at most 1 GiB.
// Our extra fields read back where their type is ours; the exact class and intensity only
// where they still agree with the record's (a tool that reclassified the points wins); fields
// with a scale or offset are skipped. A file without our frame record gets an origin near its
// points as the frame's pose (its offset, or the first point's whole metres where the offset
// is far from the points), the points relative to it, so a georeferenced origin keeps float
// precision. Errors name the file and the byte offset of the field at fault: formats beyond
// 10, LAZ, versions beyond 1.4, sizes and offsets beyond the file, points beyond 10,000 km.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"

namespace lt {

inline constexpr double kLasScale_m = 1e-4;

Status WriteLas(const Frame& frame, const std::filesystem::path& path);

Expected<Frame> ReadLas(const std::filesystem::path& path);
// The same from bytes in memory; `name` stands for the file in messages (the fuzzer's entry).
Expected<Frame> ParseLas(std::string_view bytes, const std::string& name);

}  // namespace lt
