#include "velodyne_models.h"

#include <cmath>
#include <cstdio>

namespace lt {

namespace {

// VLP-16 and Puck Hi-Res: 16 lasers every 2.304 us, sequences every 55.296 us, two per block.
// HDL-32E: 32 lasers every 1.152 us, one 46.080 us sequence per block.
// VLP-32C (its manual, "Firing timing"): 32 lasers in 16 pairs fired every 2.304 us, one
// 55.296 us sequence per block.
// VLS-128 (its manual, "Firing timing"): 128 lasers in 16 groups of 8 fired every 2.665 us, a
// group's time idle after the eighth (maintenance), one sequence per four blocks (the banks of
// 32 lasers, told apart by their flags). The sequences come 55.3 us apart: the shared bag's
// packets of three are 166 us apart, 0.20 deg each at 10 Hz (53.3 us is the firing alone).
constexpr VelodyneTiming kVlp16Timing{
    "two 16-laser firings a block", 16, 2, 1, 55.296e-6, 2.304e-6};
constexpr VelodyneTiming kHdl32eTiming{
    "one 32-laser firing a block", 32, 1, 1, 46.080e-6, 1.152e-6};
constexpr VelodyneTiming kVlp32cTiming{
    "one 32-laser firing in pairs a block", 32, 1, 1, 55.296e-6, 2.304e-6, 2};
constexpr VelodyneTiming kVls128Timing{
    "a 128-laser firing over four blocks", 128, 1, 4, 55.3e-6, 2.665e-6, 8, 8};
// HDL-64E S2/S3 (the S3 manual, 63-HDL64ES3 rev. K, "Firing timing" and appendix G; VeloView's
// and velodyne_decoder's tables agree; docs/formats/velodyne-hdl64e.md): an upper and a lower block
// fired together, 32 lasers each in 8 groups of 4 every 6.0 us, a firing every 48 us (3472
// packets/s, the 1.33 M points/s of the data sheets), 57.6 us in dual return (5787 packets/s, 2.2 M
// points/s). Within a group the lasers fire 0, 1.26, 2.46 and 3.66 us apart; taken as one instant
// here (an azimuth error under 0.002 deg at 10 Hz).
constexpr VelodyneTiming kHdl64eTiming{"a 64-laser firing over an upper and a lower block",
                                       64,
                                       1,
                                       2,
                                       48e-6,
                                       6.0e-6,
                                       4,
                                       0,
                                       57.6e-6,
                                       true};

constexpr VelodyneModel kModels[] = {
    {0x21, "HDL-32E", 32, &kHdl32eTiming},         {0x22, "VLP-16", 16, &kVlp16Timing},
    {0x24, "Puck Hi-Res", 16, &kVlp16Timing},      {0x28, "VLP-32C", 32, &kVlp32cTiming},
    {0xA1, "VLS-128", 128, &kVls128Timing, 0.004}, {0x00, "HDL-64E", 64, &kHdl64eTiming, 0, true},
};

std::string Us(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  return buf;
}

// The timing whose block period the packets show, within 15 % (a packet lost now and then
// leaves the median alone; the layouts' periods differ by 20 % at least).
const VelodyneTiming* TimingOfBlockPeriod(double block_s) {
  for (const VelodyneTiming* t :
       {&kVlp16Timing, &kHdl32eTiming, &kVlp32cTiming, &kVls128Timing, &kHdl64eTiming}) {
    if (block_s > 0 && std::abs(block_s / t->BlockSeconds() - 1) < 0.15) return t;
  }
  return nullptr;
}

const VelodyneModel* FirstModelWith(const VelodyneTiming* t) {
  for (const VelodyneModel& m : kModels)
    if (m.timing == t) return &m;
  return nullptr;
}

// The checks that held before timing was judged: lasers, elevations, a decodable model.
Status CheckModelAgainstCalibration(const VelodyneModel& m, const VelodyneCalibration& cal,
                                    const std::string& where, const std::string& cal_name) {
  if (static_cast<size_t>(m.lasers) != cal.lasers.size()) {
    return Error{where + ": the capture is from a " + m.name + " but the calibration has " +
                 std::to_string(cal.lasers.size()) + " lasers (" + ModelIdText(m) + "; a " +
                 m.name + " has " + std::to_string(m.lasers) + "; " + cal_name + ")"};
  }
  const uint8_t cal_product = VelodyneCalibrationProduct(cal);
  if (cal_product && cal_product != m.product_id) {
    return Error{where + ": the capture is from a " + m.name + " (" + ModelIdText(m) + ") but " +
                 cal_name + " is a " + VelodyneModelOf(cal_product)->name +
                 "'s calibration (by its laser elevations)"};
  }
  if (!m.timing) {
    return Error{where + ": the capture is from a " + m.name + " (" + ModelIdText(m) +
                 "), whose firing order this reader does not decode (it reads " +
                 VelodyneModelNames() + ")"};
  }
  return {};
}

}  // namespace

int VelodyneBankOfFlag(uint16_t flag) {
  constexpr uint16_t kFlags[] = {0xEEFF, 0xDDFF, 0xCCFF, 0xBBFF};
  for (int bank = 0; bank < 4; ++bank)
    if (flag == kFlags[bank]) return bank;
  return -1;
}

std::string HexText(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02X", v);
  return buf;
}

const VelodyneModel* VelodyneModelOf(uint8_t product_id) {
  for (const VelodyneModel& m : kModels)
    if (m.product_id != 0 && m.product_id == product_id) return &m;
  return nullptr;
}

const VelodyneModel& VelodyneHdl64e() {
  return kModels[std::size(kModels) - 1];
}

bool HasHdl64eFlags(const uint8_t* p) {
  const auto flag = [&](int b) { return p[b * 100] | p[b * 100 + 1] << 8; };
  return flag(0) == 0xEEFF && flag(1) == 0xDDFF && flag(2) == 0xEEFF;
}

bool IsHdl64ePacket(const uint8_t* p) {
  // A damaged packet of another model can show these flags too: one whose factory bytes name a
  // return mode and a model is that model's.
  const bool factory_bytes = p[1204] >= 0x37 && p[1204] <= 0x39 && VelodyneModelOf(p[1205]);
  return HasHdl64eFlags(p) && !factory_bytes;
}

std::string ModelSays(const VelodyneModel& m) {
  return m.product_id
             ? "the product id says " + std::string(m.name) + " (" + HexText(m.product_id) + ")"
             : "the block flags say " + std::string(m.name);
}

std::string ModelIdText(const VelodyneModel& m) {
  return m.product_id ? "product id " + HexText(m.product_id) : std::string("block flags");
}

const VelodyneModel* VelodyneModelNamed(const std::string& name) {
  for (const VelodyneModel& m : kModels)
    if (name == m.name) return &m;
  return nullptr;
}

std::string VelodyneModelNames() {
  std::string names;
  for (const VelodyneModel& m : kModels)
    names += (names.empty() ? "" : ", ") + std::string(m.name);
  return names;
}

Expected<const VelodyneModel*> JudgeVelodyneModel(const VelodynePacketEvidence& e,
                                                  const VelodyneCalibration& cal,
                                                  const std::string& capture, std::string* note) {
  const std::string cal_name = cal.file.empty() ? "the calibration" : cal.file.string();
  const std::string& where = e.where;
  const VelodyneModel& byte = *e.by_byte;
  const VelodyneTiming* seen = TimingOfBlockPeriod(e.block_s);
  const std::string timing_text =
      "its data packets come " + Us(e.block_s) + " a firing block apart";
  if (!cal.model.empty()) {  // the user's word wins; checked against the laser count
    const VelodyneModel* m = VelodyneModelNamed(cal.model);
    if (!m) {  // the loader checks the key; a struct built in code may not have been
      return Error{cal_name + ": key 'model': '" + cal.model + "' is not one of " +
                   VelodyneModelNames()};
    }
    if (static_cast<size_t>(m->lasers) != cal.lasers.size() || !m->timing) {
      return Error{cal_name + ": key 'model': a " + m->name + " has " + std::to_string(m->lasers) +
                   " lasers" +
                   (m->timing ? "" : " and a firing order this reader does not decode") +
                   "; the calibration lists " + std::to_string(cal.lasers.size())};
    }
    if ((seen && seen != m->timing) || m != &byte) {
      *note = capture + ": decoded as a " + m->name + " as " + cal_name +
              " says (key 'model'), though " + ModelSays(byte) +
              (seen ? " and " + timing_text + " (" + seen->layout + ")" : std::string());
    }
    return m;
  }
  // A model this reader does not decode is refused as such, whatever its timing.
  if (!seen || seen == byte.timing || !byte.timing) {
    if (Status s = CheckModelAgainstCalibration(byte, cal, where, cal_name); !s.ok())
      return s.error();
    return &byte;
  }
  // The product id and the timing disagree: the calibration has the casting vote.
  const VelodyneModel* cal_model = VelodyneModelOf(VelodyneCalibrationProduct(cal));
  const bool fits = cal.lasers.size() == static_cast<size_t>(seen->lasers) &&
                    (!cal_model || cal_model->timing == seen);
  if (fits) {
    const VelodyneModel* m = cal_model ? cal_model : FirstModelWith(seen);
    *note = where + ": " + ModelSays(byte) + " but " + timing_text + " (" + seen->layout +
            "), as a " + m->name + "'s do and as " + cal_name + " (" +
            std::to_string(cal.lasers.size()) + " lasers) fits: decoded as a " + m->name;
    return m;
  }
  return Error{where + ": " + ModelSays(byte) + " but " + timing_text + " (" + seen->layout +
               ", as a " + FirstModelWith(seen)->name + "'s do), and " + cal_name + " has " +
               std::to_string(cal.lasers.size()) + " lasers" +
               (cal_model ? std::string(" (a ") + cal_model->name + "'s)" : std::string()) +
               ": give the unit's own calibration, or name the model in it (key 'model', one of " +
               VelodyneModelNames() + ") to decode the packets as that model"};
}

}  // namespace lt
