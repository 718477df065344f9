// Velodyne models as their packets show them: the product id of the factory bytes (VLP-16,
// Puck Hi-Res, VLP-32C and VLS-128 user manuals, "Factory bytes") and the firing timing that
// fixes a data block's layout (VLP-16 manual sec. 9 "Firing timing": two 16-laser sequences of
// 55.296 us a block; HDL-32E manual appendix E: one 32-laser sequence of 46.080 us a block).
// A field capture can carry the wrong product id (issue 36 item 7: a VLP-16 whose byte says
// HDL-32E), so the model is judged by the packets' timing as well. The HDL-64E S2/S3 has no
// product id (its last two bytes cycle through a status message): its packets are told by their
// block flags, an upper bank (0xFFEE) and a lower (0xFFDD) in turn.
#pragma once

#include <cstdint>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/velodyne.h"

namespace lt {

struct VelodyneTiming {
  const char* layout;   // for messages
  int lasers;           // per firing sequence
  int sequences;        // firing sequences per block (a VLP-16's two)
  int blocks;           // blocks per firing sequence (a VLS-128's four banks of 32 lasers)
  double sequence_s;    // duration of one sequence
  double laser_s;       // between firing groups within a sequence
  int group = 1;        // lasers that fire together (a VLP-32C's pairs, a VLS-128's eights)
  int pause_every = 0;  // groups after which one group's time passes idle (a VLS-128's 8)
  // A sequence's duration in dual return where it differs (an HDL-64E S3's 57.6 us); the
  // lasers' offsets stretch with it. 0: sequence_s.
  double dual_sequence_s = 0;
  // The banks fire together (an HDL-64E's upper laser j with lower laser j), not one after the
  // other (a VLS-128's), and a dual firing sends every bank's first return, then every bank's
  // second (an HDL-64E's upper, lower, upper, lower), not each bank's two returns together.
  bool banks_together = false;
  double BlockSeconds() const { return sequences * sequence_s / blocks; }
  double SequenceSeconds(bool dual) const {
    return dual && dual_sequence_s > 0 ? dual_sequence_s : sequence_s;
  }
  // When laser `laser` (of the sequence) fires after the sequence starts.
  double FiringOffset(int laser, bool dual) const {
    const int in_bank = banks_together ? laser % (lasers / blocks) : laser;
    const int g = in_bank / group;
    return (g + (pause_every > 0 ? g / pause_every : 0)) * laser_s * SequenceSeconds(dual) /
           sequence_s;
  }
  // The bank block `b` of a packet holds, and which of a firing's returns (0 or 1) it is.
  int BankOfBlock(size_t b, bool dual) const {
    return static_cast<int>((dual && !banks_together ? b / 2 : b) % blocks);
  }
  uint8_t ReturnOfBlock(size_t b, bool dual) const {
    if (!dual) return 0;
    return static_cast<uint8_t>(banks_together ? b / blocks % 2 : b % 2);
  }
};

struct VelodyneModel {
  uint8_t product_id;  // 0: none (an HDL-64E)
  const char* name;
  int lasers;
  const VelodyneTiming* timing;  // null where this reader does not decode the firing order
  // The distance unit where the model fixes it (the VLS-128's 4 mm, whatever its calibration's
  // distance_resolution says); 0: the calibration's.
  double distance_unit_m = 0;
  // Whether the calibration's focal distance and slope correct the intensity byte (an HDL-64E's
  // raw intensity; the others send a calibrated reflectivity).
  bool corrects_intensity = false;
};

// The HDL-64E S2/S3, whose packets have no product id.
const VelodyneModel& VelodyneHdl64e();
// Whether a data packet has an HDL-64E's block flags: upper, lower, upper in blocks 0-2.
bool HasHdl64eFlags(const uint8_t* packet);
// Whether a packet is an HDL-64E's by itself: its flags, and last bytes that are not another
// model's return mode and product id (an HDL-64E's status bytes are so now and then, about one
// packet in a thousand: within an HDL-64E capture, HasHdl64eFlags decides).
bool IsHdl64ePacket(const uint8_t* packet);
// "product id 0x22", or for a model without one "block flags".
std::string ModelIdText(const VelodyneModel& m);
// "the product id says VLP-16 (0x22)", or "the block flags say HDL-64E".
std::string ModelSays(const VelodyneModel& m);

// The block flags of the banks of a firing sequence (VLS-128 manual, "Data packet format":
// 0xFFEE, 0xFFDD, 0xFFCC, 0xFFBB as the bytes come, lasers 0-31, 32-63, 64-95, 96-127), or -1.
int VelodyneBankOfFlag(uint16_t little_endian_flag);

// "0x21", "0xEEFF": a factory byte or packet field as the manuals write it.
std::string HexText(unsigned v);

// The model of a product id byte (never the HDL-64E, which has none).
const VelodyneModel* VelodyneModelOf(uint8_t product_id);
// By name as the calibration's key 'model' gives it ("VLP-16", "Puck Hi-Res", "HDL-32E", ...).
const VelodyneModel* VelodyneModelNamed(const std::string& name);
// "VLP-16, Puck Hi-Res, HDL-32E, VLP-32C, VLS-128".
std::string VelodyneModelNames();

// What the first data packets of a capture say about its model.
struct VelodynePacketEvidence {
  const VelodyneModel* by_byte = nullptr;  // the product id of the first data packet
  std::string where;                       // of that product id: "FILE: byte N"
  double block_s = 0;  // median time per firing block between packets; 0: too few to tell
};

// The model to decode with: the product id where the timing agrees with it (or cannot tell),
// else the model the timing and the calibration agree on (with `note` saying so), else an
// error naming the three and the override (the calibration's key 'model', which wins over
// both). Also checks the model against the calibration's laser count and elevations.
Expected<const VelodyneModel*> JudgeVelodyneModel(const VelodynePacketEvidence& evidence,
                                                  const VelodyneCalibration& calibration,
                                                  const std::string& capture, std::string* note);

}  // namespace lt
