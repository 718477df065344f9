#include "lidartwin/datasets/hdf5_arrays.h"

#include <cerrno>

#include "hdf5_attributes.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "lidartwin/base/text_file.h"

#include "hdf5_id.h"
#include "hdf5_own_objects.h"
#include "lidartwin/base/atomic_file.h"

namespace lt {

namespace {
constexpr size_t kMaxValues = size_t{1} << 26;
}

Expected<std::map<std::string, Hdf5Array>> ReadHdf5Arrays(const std::filesystem::path& file,
                                                          const std::map<std::string, int>& ranks,
                                                          size_t max_values) {
  max_values = std::min(max_values, kMaxValues);
  SilenceHdf5Errors();
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) return Error{file.string() + ": is a directory"};
  if (::access(file.c_str(), R_OK) != 0) {
    return Error{file.string() + ": cannot open: " + CannotOpenReason(file)};
  }
  if (H5Fis_hdf5(file.c_str()) <= 0) {
    return Error{file.string() + ": not an HDF5 file (bad signature or truncated)"};
  }
  Hdf5Id f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) return Error{file.string() + ": cannot open HDF5 file"};
  std::map<std::string, Hdf5Array> out;
  for (const auto& [name, rank] : ranks) {
    const std::string where = file.string() + ": dataset '" + name + "'";
    if (H5Lexists(f.get(), name.c_str(), H5P_DEFAULT) <= 0) return Error{where + " is missing"};
    // The lab's SHA-256 covers this file's bytes only: its data must be in them.
    if (Status s = RequireHardLink(f.get(), name.c_str(), file.string() + ": ", "lab files");
        !s.ok())
      return s.error();
    Hdf5Id d(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!d.ok()) return Error{where + " cannot be opened"};
    Hdf5Id dcpl(H5Dget_create_plist(d.get()), H5Pclose);
    if (!dcpl.ok() || KeepsDataElsewhere(dcpl.get()))
      return Error{where +
                   " stores its data in other files (a virtual dataset or external "
                   "storage); lab files hold their own data"};
    Hdf5Id space(H5Dget_space(d.get()), H5Sclose);
    const int r = H5Sget_simple_extent_ndims(space.get());
    if (r != rank) {
      return Error{where + " has " + std::to_string(r) + " dimensions, expected " +
                   std::to_string(rank)};
    }
    hsize_t dims[3] = {0, 0, 0};
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    Hdf5Array a;
    size_t n = 1;
    for (int k = 0; k < r; ++k) {
      a.dims.push_back(static_cast<size_t>(dims[k]));
      if (dims[k] == 0) return Error{where + " is empty"};
      if (dims[k] > max_values / n) {
        return Error{where + " is larger than " + std::to_string(max_values) + " values"};
      }
      n *= static_cast<size_t>(dims[k]);
    }
    Hdf5Id type(H5Dget_type(d.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_FLOAT && H5Tget_class(type.get()) != H5T_INTEGER) {
      return Error{where + " is not numeric"};
    }
    a.values.resize(n);
    if (H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.values.data()) < 0) {
      return Error{where + " cannot be read (corrupt file?)"};
    }
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(a.values[i])) {
        return Error{where + ": value " + std::to_string(i) + " is not finite"};
      }
    }
    out[name] = std::move(a);
  }
  return out;
}

Status WriteHdf5Arrays(const std::filesystem::path& file,
                       const std::map<std::string, Hdf5Array>& arrays) {
  SilenceHdf5Errors();
  if (auto s = CheckOutputTarget(file); !s.ok()) return s;
  AtomicOutput output(file);
  Hdf5Id f(H5Fcreate(output.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
           H5Fclose);
  if (!f.ok()) return Error{file.string() + ": cannot create HDF5 file"};
  // No timestamps: the same arrays give the same bytes (the lab folder's checksum).
  Hdf5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl.get(), 0);
  for (const auto& [name, a] : arrays) {
    hsize_t dims[3] = {0, 0, 0};
    for (size_t k = 0; k < a.dims.size() && k < 3; ++k)
      dims[k] = a.dims[k];
    Hdf5Id space(H5Screate_simple(static_cast<int>(a.dims.size()), dims, nullptr), H5Sclose);
    Hdf5Id d(H5Dcreate2(f.get(), name.c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, dcpl.get(),
                        H5P_DEFAULT),
             H5Dclose);
    errno = 0;
    if (!d.ok() ||
        H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.values.data()) < 0) {
      return Error{file.string() + ": cannot write dataset '" + name + "'" +
                   hdf5::WriteFailureReason()};
    }
  }
  // Closed once whatever it returns (a second close after a failed one crashes libhdf5 1.10),
  // and a failed close is a failed write: the file is not moved into place.
  errno = 0;
  if (H5Fclose(f.Release()) < 0)
    return Error{file.string() + ": cannot finish the file" + hdf5::WriteFailureReason()};
  return output.Commit();
}

}  // namespace lt
