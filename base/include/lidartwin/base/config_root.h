// Where the built-in configs (configs/sensors, configs/scenes, ...) are for a program that ships
// them: the demo, bench and the docs' examples name them by this root.
#pragma once

#include <filesystem>

namespace lt {

// $LIDARTWIN_HOME when set (taken as it is: a user who sets it means it); else, for a program
// installed by `cmake --install` (the running executable in <prefix>/bin) whose
// <prefix>/share/lidartwin holds a configs/ folder, that; else the source tree it was built from.
std::filesystem::path ConfigRoot();

// The data folder of an installed program, <prefix>/share/lidartwin for an executable in
// <prefix>/bin; empty when `executable` is not installed that way (a build tree).
std::filesystem::path InstalledDataRoot(const std::filesystem::path& executable);

}  // namespace lt
