#include "chunk_codec.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace lt::hdf5 {

namespace {

// H5Zshuffle.c: byte j of value i goes to j * n + i.
std::string Shuffle(const char* raw, size_t n, size_t size) {
  std::string out(n * size, '\0');
  if (size == 1) {
    std::memcpy(out.data(), raw, n);
    return out;
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < size; ++j)
      out[j * n + i] = raw[i * size + j];
  return out;
}

}  // namespace

EncodedDataset EncodeDataset(const FieldView& field) {
  EncodedDataset d;
  d.name = field.name;
  d.unit = field.unit;
  d.type = field.type;
  d.values = field.size;
  if (field.size == 0) return d;
  d.chunk_values = std::min<uint64_t>(field.size, kFrameChunkValues);
  const size_t size = FieldTypeBytes(field.type);
  const size_t chunk_bytes = d.chunk_values * size;
  const char* data = static_cast<const char*>(field.data);
  std::string padded(chunk_bytes, '\0');
  for (uint64_t start = 0; start < field.size; start += d.chunk_values) {
    const uint64_t n = std::min<uint64_t>(d.chunk_values, field.size - start);
    std::memset(padded.data(), 0, chunk_bytes);
    std::memcpy(padded.data(), data + start * size, n * size);
    const std::string shuffled = Shuffle(padded.data(), d.chunk_values, size);
    EncodedChunk chunk;
    chunk.bytes.resize(chunk_bytes);
    uLongf out_bytes = chunk_bytes;
    const int status =
        compress2(reinterpret_cast<Bytef*>(chunk.bytes.data()), &out_bytes,
                  reinterpret_cast<const Bytef*>(shuffled.data()), chunk_bytes, kFrameDeflateLevel);
    if (status == Z_OK) {
      chunk.bytes.resize(out_bytes);
    } else {  // grew (Z_BUF_ERROR): stored shuffled, deflate marked as skipped
      chunk.bytes = shuffled;
      chunk.filter_mask = 1u << 1;
    }
    d.chunks.push_back(std::move(chunk));
  }
  return d;
}

}  // namespace lt::hdf5

namespace lt::hdf5 {

Expected<EncodedFrame> EncodeFrame(const Frame& frame) {
  EncodedFrame e;
  e.header.index = frame.index;
  e.header.start_time_s = frame.start_time_s;
  e.header.end_time_s = frame.end_time_s;
  e.header.pose_start = frame.pose_start;
  e.header.pose_end = frame.pose_end;
  e.header.motion_corrected = frame.motion_corrected;
  e.header.waveform_samples = frame.waveform_samples;
  e.header.waveform_dt_s = frame.waveform_dt_s;
  e.points = frame.size();
  const size_t n = frame.size();
  for (const FieldView& field : FrameFields(frame)) {
    if (field.size == 0 && n > 0) continue;  // a field this frame does not carry
    if (field.size != n) {
      return Error{"field '" + std::string(field.name) + "' has " + std::to_string(field.size) +
                   " values for " + std::to_string(n) + " points"};
    }
    e.datasets.push_back(EncodeDataset(field));
  }
  if (!frame.waveform_beams.empty()) {
    if (frame.waveform_volts.size() != frame.waveform_beams.size() * frame.waveform_samples) {
      return Error{std::to_string(frame.waveform_volts.size()) + " waveform values for " +
                   std::to_string(frame.waveform_beams.size()) + " records of " +
                   std::to_string(frame.waveform_samples) + " samples"};
    }
    e.waveforms = true;
    e.datasets.push_back(EncodeDataset({"waveform_beam_id", "index", FieldType::kUInt32,
                                        frame.waveform_beams.data(), frame.waveform_beams.size()}));
    e.datasets.push_back(EncodeDataset({"waveform_volts", "V", FieldType::kFloat32,
                                        frame.waveform_volts.data(), frame.waveform_volts.size()}));
  }
  return e;
}

}  // namespace lt::hdf5
