// Frame: the one currency between modules (DESIGN.md sec. 2). Structure of arrays, one entry
// per returned point; real and simulated frames share the type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "lidartwin/physics/pose.h"
#include "lidartwin/physics/return_type.h"

namespace lt {

// Every per-point field of a Frame for one point (echo_pulse_width_ns aside: only detectors
// that model it fill that one). return_type is optional: Append adds it only when set, so the
// points of one frame either all carry it or none does.
struct FramePoint {
  float x_m = 0, y_m = 0, z_m = 0;
  float range_m = 0;
  float intensity = 0;
  float reflectance = 0;
  uint16_t channel = 0;
  uint32_t column = 0;
  double timestamp_s = 0;
  uint8_t return_index = 0;
  uint16_t material_id = 0;
  uint32_t instance_id = 0;
  uint16_t semantic_class = 0;
  uint32_t beam_id = 0;
  std::optional<physics::ReturnType> return_type;
};

struct Frame {
  uint32_t index = 0;
  double start_time_s = 0;  // frame start on the trajectory clock
  double end_time_s = 0;
  physics::Pose<double> pose_start{{1, 0, 0, 0}, {0, 0, 0}};  // sensor -> world
  physics::Pose<double> pose_end{{1, 0, 0, 0}, {0, 0, 0}};
  // True when points are expressed in the sensor frame at pose_end (motion corrected);
  // false when each point is in the sensor frame at its own firing time, as a real sensor
  // reports it.
  bool motion_corrected = false;

  std::vector<float> x_m, y_m, z_m;  // sensor frame
  std::vector<float> range_m;
  std::vector<float> intensity;     // detector output; capability/ideal: R(theta) in percent
  std::vector<float> reflectance;   // R0 of the surface at the sensor wavelength [fraction]
  std::vector<uint16_t> channel;    // laser / scan line
  std::vector<uint32_t> column;     // firing sequence / position along the line
  std::vector<double> timestamp_s;  // firing time on the trajectory clock
  std::vector<uint8_t> return_index;
  std::vector<float> echo_pulse_width_ns;  // empty when the detector does not model it
  std::vector<uint16_t> material_id;
  std::vector<uint32_t> instance_id;
  std::vector<uint16_t> semantic_class;
  std::vector<uint32_t> beam_id;  // index of the beam within the frame
  // The echo's kind (physics::ReturnType codes: strongest, last, ..); empty when the source
  // does not say. return_index is its place among its firing's reported returns.
  std::vector<uint8_t> return_type;

  // Time-domain records of selected beams (waveform detector, `simulate --waveforms`): record
  // k holds waveform_samples voltages [V] of beam waveform_beams[k], sampled every
  // waveform_dt_s from the start of its record (docs/physics.md, "Waveform detector").
  std::vector<uint32_t> waveform_beams;
  std::vector<float> waveform_volts;  // waveform_beams.size() x waveform_samples
  uint32_t waveform_samples = 0;
  double waveform_dt_s = 0;

  size_t size() const { return x_m.size(); }
  void Reserve(size_t n);
  // Every per-point field (echo_pulse_width_ns and return_type aside) to n values, new ones
  // zero: for writers that fill points by index.
  void Resize(size_t n);
  void Append(const FramePoint& p);
};

// One per-point field described for writers and readers (HDF5, PLY, PCD), so the list of
// fields and their units lives in one place.
// kUInt64 only in the frames file's row table (offsets into its columns), never a point field.
enum class FieldType { kFloat32, kFloat64, kUInt8, kUInt16, kUInt32, kUInt64 };

// Bytes of one value of a field type.
constexpr size_t FieldTypeBytes(FieldType t) {
  switch (t) {
    case FieldType::kUInt8:
      return 1;
    case FieldType::kUInt16:
      return 2;
    case FieldType::kFloat32:
    case FieldType::kUInt32:
      return 4;
    case FieldType::kFloat64:
    case FieldType::kUInt64:
      return 8;
  }
  return 4;
}

struct FieldView {
  const char* name;
  const char* unit;
  FieldType type;
  const void* data;  // nullptr-safe: size 0 when the field is absent
  size_t size;
};

// All fields of a frame that have one value per point, in a fixed order.
std::vector<FieldView> FrameFields(const Frame& f);

// Whether a field of FrameFields may be absent from a frame with points (echo_pulse_width,
// return_type) rather than always carried.
bool IsOptionalFrameField(const char* name);

// The fields a frame lacks: per-point fields without a value per point (the source never had
// them: a real recording's labels, a KITTI scan's column), which writers leave out rather than
// write as zeros. Empty for a frame without points.
std::vector<std::string> AbsentFields(const Frame& f);

// Keeps the points whose `keep` is true (one flag a point), in their order, in every per-point
// field the frame has; waveform records are left as they are (they name beams, not points).
void KeepPoints(Frame& f, const std::vector<bool>& keep);

// Empties the named per-point fields: what a reader's source does not have is absent from the
// frame, never zero (an unknown name is a bug).
void DropFields(Frame& f, std::initializer_list<const char*> names);

// What only a simulation knows about a point: its surface's labels. No sensor reports them.
inline constexpr std::initializer_list<const char*> kLabelFields = {"material_id", "instance_id",
                                                                    "semantic_class"};

// Mutable access for readers: resizes the named field to n and returns its storage, or
// nullptr for an unknown name.
void* ResizeFrameField(Frame& f, const std::string& name, size_t n, FieldType* type_out);

}  // namespace lt
