// Typed HDF5 attributes and the file and memory types of frame fields, shared by the frames
// writer and reader (private to datasets/).
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_id.h"
#include "lidartwin/base/frame.h"

namespace lt::hdf5 {

hid_t MemType(FieldType t);
// Little-endian, fixed: files are the same bytes on every machine.
hid_t FileType(FieldType t);

bool WriteStringAttr(hid_t obj, const char* name, const std::string& value);
bool WriteDoublesAttr(hid_t obj, const char* name, const double* v, hsize_t n);
bool WriteU64Attr(hid_t obj, const char* name, uint64_t v);

// What reading an optional attribute found: absent is not an error, unreadable is reported.
enum class AttrRead { kOk, kAbsent, kUnreadable };
AttrRead ReadStringAttr(hid_t obj, const char* name, std::string& out);
AttrRead ReadDoublesAttr(hid_t obj, const char* name, double* v, size_t n);
AttrRead ReadU64Attr(hid_t obj, const char* name, uint64_t& v);

// File access for streaming: a bounded metadata cache, and each dataset's metadata evicted when
// it closes, so memory does not grow with the number of frames.
Hdf5Id StreamingFileAccess();

// Group creation without modification times: the same frames give the same bytes.
Hdf5Id UntimedGroupProperties();

void PoseToArray(const physics::Pose<double>& p, double out[7]);
physics::Pose<double> PoseFromArray(const double a[7]);

// ": No space left on device" and the like when a failed HDF5 write left an errno that says
// why; empty otherwise. Callers set errno = 0 before the HDF5 calls.
std::string WriteFailureReason();

}  // namespace lt::hdf5
