// Whether an HDF5 file's objects are its own: a soft or external link, a virtual dataset or
// external storage makes a read fetch bytes from elsewhere (any file on the machine, a FIFO),
// while the file's own bytes, and their checksum, stay the same (issue 36: calibrate's lab
// folders followed them). Shared by the readers of datasets/ (private).
#pragma once

#include <hdf5.h>

#include <string>

#include "lidartwin/base/status.h"

namespace lt {

// OK when parent/name is a hard link; else an error "<where>/<name>: is a soft link; <holder>
// hold their own objects" (holder: "frames files", "lab files").
inline Status RequireHardLink(hid_t parent, const char* name, const std::string& where,
                              const std::string& holder) {
  H5L_info_t info;
  if (H5Lget_info(parent, name, &info, H5P_DEFAULT) < 0) {
    return Error{where + "/" + name + ": unreadable link (corrupt file)"};
  }
  if (info.type != H5L_TYPE_HARD) {
    return Error{where + "/" + name + ": is a " +
                 (info.type == H5L_TYPE_EXTERNAL ? "link to another file" : "soft link") + "; " +
                 holder + " hold their own objects"};
  }
  return {};
}

// True when a dataset (by its creation properties) keeps its data in other files: a virtual
// dataset or external storage.
inline bool KeepsDataElsewhere(hid_t dcpl) {
  return H5Pget_layout(dcpl) == H5D_VIRTUAL || H5Pget_external_count(dcpl) != 0;
}

}  // namespace lt
