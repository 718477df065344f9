#include "lidartwin/datasets/encoding_figures.h"

#include <chrono>
#include <memory>

#include "frame_tables.h"

namespace lt {

Expected<EncodingFigures> MeasureEncoding(const std::vector<Frame>& frames) {
  hdf5::TablePlanner planner;
  EncodingFigures out;
  for (const Frame& f : frames) {
    auto plan = planner.Plan(std::make_shared<const Frame>(f));
    if (!plan.ok()) return plan.error();
    const auto t0 = std::chrono::steady_clock::now();
    const hdf5::EncodedFrame encoded = hdf5::EncodePlan(*plan, planner.columns());
    out.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++out.frames;
    auto add = [&](const std::vector<hdf5::EncodedChunk>& chunks, size_t value_bytes) {
      for (const hdf5::EncodedChunk& c : chunks) {
        ++out.chunks;
        out.raw_bytes += hdf5::kTableChunkValues * value_bytes;
        out.encoded_bytes += c.bytes.size();
      }
    };
    const auto fields = FrameFields(Frame{});
    for (size_t k = 0; k < encoded.points.size(); ++k)
      add(encoded.points[k], FieldTypeBytes(fields[encoded.columns[k]].type));
    add(encoded.beam_ids, sizeof(uint32_t));
    add(encoded.volts, sizeof(float));
  }
  return out;
}

}  // namespace lt
