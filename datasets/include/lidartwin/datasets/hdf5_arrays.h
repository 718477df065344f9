// Named float arrays in an HDF5 file (the lab folder's goniometer images, calib/): each a
// dataset of up to 3 dimensions. Reading checks the named datasets exist, have the expected
// rank and hold finite values; errors name the file and the dataset.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt {

struct Hdf5Array {
  std::vector<size_t> dims;    // row-major, 1..3 dimensions
  std::vector<double> values;  // stored as float32
};

// `ranks`: dataset name -> its rank. Each array is capped at max_values (64 Mi by default), and
// refused by its declared size before anything is read.
Expected<std::map<std::string, Hdf5Array>> ReadHdf5Arrays(const std::filesystem::path& file,
                                                          const std::map<std::string, int>& ranks,
                                                          size_t max_values = size_t{1} << 26);

// Writes the arrays as float32 datasets, atomically.
Status WriteHdf5Arrays(const std::filesystem::path& file,
                       const std::map<std::string, Hdf5Array>& arrays);

}  // namespace lt
