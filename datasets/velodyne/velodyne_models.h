// Velodyne models as their packets show them: the product id of the factory bytes (VLP-16,
// Puck Hi-Res, VLP-32C and VLS-128 user manuals, "Factory bytes") and the firing timing that
// fixes a data block's layout (VLP-16 manual sec. 9 "Firing timing": two 16-laser sequences of
// 55.296 us a block; HDL-32E manual appendix E: one 32-laser sequence of 46.080 us a block).
// A field capture can carry the wrong product id (issue 36 item 7: a VLP-16 whose byte says
// HDL-32E), so the model is judged by the packets' timing as well.
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
  double BlockSeconds() const { return sequences * sequence_s / blocks; }
  // When laser `laser` (of the sequence) fires after the sequence starts.
  double FiringOffset(int laser) const {
    const int g = laser / group;
    return (g + (pause_every > 0 ? g / pause_every : 0)) * laser_s;
  }
};

struct VelodyneModel {
  uint8_t product_id;
  const char* name;
  int lasers;
  const VelodyneTiming* timing;  // null where this reader does not decode the firing order
  // The distance unit where the model fixes it (the VLS-128's 4 mm, whatever its calibration's
  // distance_resolution says); 0: the calibration's.
  double distance_unit_m = 0;
};

// The block flags of the banks of a firing sequence (VLS-128 manual, "Data packet format":
// 0xFFEE, 0xFFDD, 0xFFCC, 0xFFBB as the bytes come, lasers 0-31, 32-63, 64-95, 96-127), or -1.
int VelodyneBankOfFlag(uint16_t little_endian_flag);

// "0x21", "0xEEFF": a factory byte or packet field as the manuals write it.
std::string HexText(unsigned v);

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
