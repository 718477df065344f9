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
  const char* layout;  // for messages
  int lasers;          // per firing sequence
  int sequences;       // firing sequences per block
  double sequence_s;   // duration of one sequence
  double laser_s;      // between lasers within a sequence
  double BlockSeconds() const { return sequences * sequence_s; }
};

struct VelodyneModel {
  uint8_t product_id;
  const char* name;
  int lasers;
  const VelodyneTiming* timing;  // null where this reader does not decode the firing order
};

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
