// Ouster OSF v2 recordings (ouster-sdk's "OSF" file: flatbuffer blocks, each with a CRC-32;
// docs/formats/ouster-osf.md): the embedded sensor metadata and the scans of its lidar streams.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/frame_sink.h"
#include "lidartwin/datasets/ouster.h"
#include "lidartwin/datasets/pcap.h"

namespace lt {

struct OsfScanStream {
  uint32_t id = 0;         // the stream's metadata entry, as messages name it
  uint32_t sensor_id = 0;  // the LidarSensor entry it scans with
  OusterMetadata sensor;   // that entry's JSON
};

struct OsfFile {
  std::filesystem::path file;
  uint64_t version = 0;                       // 20 = OSF 2.0, 21 = 2.1
  uint64_t chunks_begin = 0, chunks_end = 0;  // byte range of the chunk blocks
  std::vector<OsfScanStream> streams;         // by id
  std::vector<std::string> other_entries;     // entry types not read ("id: type")
};

// Reads and checks the header (identifier, CRC, a finished file of this length) and the
// metadata (CRC, every lidar stream's sensor JSON). Errors name the file, the block's byte
// offset and the problem: not an OSF file, OSF v1, a file never closed by its writer, cut
// short, a CRC that does not match, a flatbuffer that does not verify.
Expected<OsfFile> OpenOsf(const std::filesystem::path& file);

// The stream `stream` names: its id as a number, or the sensor's serial number or product
// line; empty: the file's only lidar stream (an error listing them where there are several).
Expected<const OsfScanStream*> ChooseOsfStream(const OsfFile& osf, const std::string& stream);

// Every scan of `stream` as a frame, chunk by chunk in file order and by time within a chunk:
// the field images (RANGE, SIGNAL, REFLECTIVITY and their second returns) decoded, put back
// in measurement order by pixel_shift_by_row, and each return with range > 0 in a valid
// column made a point as the pcap reader makes it (ouster.h: ForEachOusterFrame). Messages
// of other streams are skipped and counted; a chunk whose CRC or flatbuffer fails, or a scan
// whose images do not decode, is skipped, counted and named with its byte offset (more than
// one in ten is an error). `stats` gets bytes_total and bytes_read for progress.
Status ForEachOsfFrame(const OsfFile& osf, const OsfScanStream& stream, const FrameSink& sink,
                       CaptureStats* stats = nullptr);

}  // namespace lt
