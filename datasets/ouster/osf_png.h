// An OSF scan field's image (docs/formats/ouster-osf.md): a PNG of width columns and height
// rows, 8-bit grey for u8 fields, 16-bit grey for u16, 8-bit RGBA for u32 (R the least
// significant byte) and 16-bit RGBA for u64 (the samples from the least significant up).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt::osf {

// The field's values row by row (rows x columns), or an error saying what is wrong with the
// image ("not a PNG", "800 x 64 where the sensor gives 1024 x 128 for this field", "8-bit
// grey where a u32 field is 8-bit RGBA", libpng's own message). `bytes_per_value`: 1, 2, 4 or 8.
Expected<std::vector<uint64_t>> DecodeFieldImage(const uint8_t* png, size_t size, uint32_t columns,
                                                 uint32_t rows, int bytes_per_value);

}  // namespace lt::osf
