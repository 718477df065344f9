// liblidartwin.so is made of the module archives whole (cmake/install.cmake); a library
// target needs one source of its own.
