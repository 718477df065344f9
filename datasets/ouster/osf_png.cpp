// OSF field images through libpng's low-level reader: exact samples, no gamma or colour
// transforms (the simplified API treats 16-bit images as linear light and may convert them).
#include "ouster/osf_png.h"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>

namespace lt::osf {
namespace {

struct MemoryInput {
  const uint8_t* data;
  size_t size;
  size_t at = 0;
};

void ReadFromMemory(png_structp png, png_bytep out, png_size_t n) {
  auto* in = static_cast<MemoryInput*>(png_get_io_ptr(png));
  if (n > in->size - in->at) png_error(png, "the image ends early");
  std::memcpy(out, in->data + in->at, n);
  in->at += n;
}

// libpng reports errors by longjmp; the message is kept here for ours.
struct ErrorText {
  char text[200] = "";
};

void OnError(png_structp png, png_const_charp message) {
  auto* e = static_cast<ErrorText*>(png_get_error_ptr(png));
  std::snprintf(e->text, sizeof e->text, "%s", message);
  png_longjmp(png, 1);
}

void OnWarning(png_structp, png_const_charp) {}  // CRC of ancillary chunks and the like

const char* KindText(int channels, int bits) {
  if (channels == 1) return bits == 8 ? "8-bit grey" : "16-bit grey";
  return bits == 8 ? "8-bit RGBA" : "16-bit RGBA";
}

// The image rows (rows x row_bytes) into `pixels`, or false with the message in `error`. Kept
// free of objects with destructors between setjmp and the reads (libpng's longjmp).
bool ReadRows(MemoryInput& input, uint32_t columns, uint32_t rows, int channels, int bits,
              std::vector<uint8_t>& pixels, std::string& error) {
  ErrorText e;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &e, OnError, OnWarning);
  if (!png) {
    error = "cannot start libpng";
    return false;
  }
  png_infop info = png_create_info_struct(png);
  std::vector<png_bytep> row_pointers(rows);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    error = e.text[0] ? e.text : "libpng failed";
    return false;
  }
  png_set_read_fn(png, &input, ReadFromMemory);
  // A bound on what libpng accepts at all; the sensor's own size is checked below, with our
  // message, before anything is inflated.
  png_set_user_limits(png, 1u << 16, 1u << 16);
  png_read_info(png, info);
  const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  const int depth = png_get_bit_depth(png, info), type = png_get_color_type(png, info);
  const int want_type = channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB_ALPHA;
  if (w != columns || h != rows) {
    std::snprintf(e.text, sizeof e.text, "%u x %u where the sensor gives %u x %u", w, h, columns,
                  rows);
    png_destroy_read_struct(&png, &info, nullptr);
    error = e.text;
    return false;
  }
  if (depth != bits || type != want_type ||
      png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) {
    std::snprintf(e.text, sizeof e.text, "colour type %d, %d bits a sample, %sinterlaced, where %s",
                  type, depth,
                  png_get_interlace_type(png, info) == PNG_INTERLACE_NONE ? "not " : "",
                  KindText(channels, bits));
    png_destroy_read_struct(&png, &info, nullptr);
    error = e.text;
    return false;
  }
  if (bits == 16) png_set_swap(png);  // PNG samples are big-endian; ours little
  const size_t row_bytes = size_t{columns} * channels * (bits / 8);
  pixels.assign(row_bytes * rows, 0);
  for (uint32_t r = 0; r < rows; ++r)
    row_pointers[r] = pixels.data() + r * row_bytes;
  png_read_image(png, row_pointers.data());
  // Not png_read_end: what follows the image (trailing IDAT bytes, text chunks) is not read,
  // so a stream that inflates to far more than the image costs nothing.
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

}  // namespace

Expected<std::vector<uint64_t>> DecodeFieldImage(const uint8_t* data, size_t size, uint32_t columns,
                                                 uint32_t rows, int bytes_per_value) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (size < 8 || std::memcmp(data, kSignature, 8) != 0) {
    const bool zpng = size >= 2 && data[0] == 0xF8 && data[1] == 0xFB;
    return Error{zpng ? std::string("a ZPNG image (newer Ouster SDKs' zstd-compressed fields), "
                                    "which is not read: re-save the recording with PNG fields")
                      : std::string("not a PNG image")};
  }
  // u8: 8-bit grey; u16: 16-bit grey; u32: 8-bit RGBA; u64: 16-bit RGBA.
  const int channels = bytes_per_value <= 2 ? 1 : 4;
  const int bits = bytes_per_value == 1 || bytes_per_value == 4 ? 8 : 16;
  MemoryInput input{data, size};
  std::vector<uint8_t> pixels;
  std::string error;
  if (!ReadRows(input, columns, rows, channels, bits, pixels, error)) return Error{error};
  const size_t n = size_t{columns} * rows;
  std::vector<uint64_t> values(n);
  const size_t sample_bytes = bits / 8;
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    // The samples of a pixel from the least significant up, each little-endian (swapped).
    for (int c = channels - 1; c >= 0; --c) {
      uint64_t sample = 0;
      std::memcpy(&sample, pixels.data() + (i * channels + c) * sample_bytes, sample_bytes);
      v = (v << (8 * sample_bytes)) | sample;
    }
    values[i] = v;
  }
  return values;
}

}  // namespace lt::osf
