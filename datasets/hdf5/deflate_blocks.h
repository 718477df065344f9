// Blocks of a DEFLATE stream (RFC 1951) written directly, for the byte planes of a table chunk
// that need no search for matches (chunk_codec.cpp): stored blocks for bytes that look random,
// and fixed-Huffman blocks of runs (literals, and matches at distance 1 for repeats of the byte
// before) for planes that mostly repeat their previous byte, such as a label's bytes or a
// float's exponent. libdeflate searched such a plane at about 0.5 GB/s and zlib at 1 GB/s; a run
// is found 8 bytes at a time here (ADR 0021). Private to datasets/.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lt::hdf5 {

class DeflateWriter {
 public:
  // Writes at most `capacity` bytes from `out`; past it, overflowed() and nothing more.
  DeflateWriter(char* out, size_t capacity) : out_(out), capacity_(capacity) {}

  // Stored blocks (RFC 1951 sec. 3.2.4) of the bytes, 65,535 at most each; an open run block
  // is ended first.
  void Stored(const unsigned char* bytes, size_t n);
  // The bytes in a fixed-Huffman block (sec. 3.2.6), opened if none is: the first as a literal,
  // then a match at distance 1 for each repeat of the byte before of 3 to 258 bytes, a literal
  // for any other byte.
  void Runs(const unsigned char* bytes, size_t n);
  // Ends an open run block and, where a block ended inside a byte, an empty stored block brings
  // the stream to a byte boundary (zlib's sync flush): another encoder's blocks can follow.
  void Align();
  // Ends the stream: an open run block, then an empty final fixed-Huffman block, padded.
  void Finish();

  bool overflowed() const { return overflowed_; }
  // Bytes written; after Align() or Finish() the stream's whole length.
  size_t size() const { return size_; }

 private:
  void Put(uint32_t value, int bits);  // LSB first (sec. 3.1.1)
  void Symbol(uint32_t symbol);        // a literal/length symbol's fixed code
  void Match(uint32_t length);         // length 3..258 at distance 1
  void EndBlock();                     // end of block (256) where one is open
  void PadToByte();
  void Byte(unsigned char b);

  char* out_;
  size_t capacity_;
  size_t size_ = 0;
  uint64_t bits_ = 0;  // pending bits, the oldest lowest
  int pending_ = 0;    // how many
  bool open_ = false;  // a fixed-Huffman block is open
  bool overflowed_ = false;
};

}  // namespace lt::hdf5
