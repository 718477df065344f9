// RAII for HDF5 identifiers, shared by the HDF5 readers and writers of datasets/ (private).
#pragma once

#include <hdf5.h>

namespace lt {

// RAII for HDF5 identifiers.
class Hdf5Id {
 public:
  Hdf5Id() = default;
  Hdf5Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Hdf5Id(const Hdf5Id&) = delete;
  Hdf5Id& operator=(const Hdf5Id&) = delete;
  Hdf5Id(Hdf5Id&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Hdf5Id& operator=(Hdf5Id&& o) noexcept {
    Reset();
    id_ = o.id_;
    close_ = o.close_;
    o.id_ = -1;
    return *this;
  }
  ~Hdf5Id() { Reset(); }
  void Reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = -1;
  }
  // Gives up ownership without closing: for a close that must happen once whatever it returns
  // (libhdf5 1.10 crashes closing a file a second time after a failed close).
  hid_t Release() {
    const hid_t id = id_;
    id_ = -1;
    return id;
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

// Called before any other HDF5 call, on every thread that makes them: Debian's libhdf5 is
// built thread-safe, and there the error printing is switched off per thread (issue 36: the
// export's writer thread printed the library's whole error stack on a full disk). Errors come
// back as return codes, never printed. And no
// library cleanup at exit: libhdf5 1.10 crashes there closing a file whose close already failed
// (disk full), and the files it would close are temporary ones we remove anyway.
inline void SilenceHdf5Errors() {
  static const bool no_cleanup_at_exit = H5dont_atexit() >= 0;
  (void)no_cleanup_at_exit;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

}  // namespace lt
