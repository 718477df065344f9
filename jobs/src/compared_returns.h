// What of a recorded frame `reproduce` compares with a simulated one (jobs/src/reproduce.cpp):
// one revolution, and one return per beam where the simulation reports one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lidartwin/base/frame.h"

namespace lt::jobs {

// Keeps the returns of the frame's first revolution: those whose column lies less than
// `columns` after its first column. A bag's message may hold more (the PandarQT64's hold 625
// columns of a 600-column revolution, as nebula decodes them too), whose last columns scan the
// first ones' directions again, while a simulated frame is one revolution. Frames without
// columns are left whole, and so are frames spanning more than 1.1 revolutions: their columns
// do not count the profile's revolutions (the VLP-16 pcap's second frame spans 1,384 columns of
// a 1,008-column revolution measured from its frame durations, before the rate came from its
// firing times). Returns the count left out.
size_t KeepFirstRevolution(Frame& f, uint32_t columns);

// Keeps each beam's first reported return (return 0; a Hesai's first kept block, in nebula's
// order) of a frame that holds others. A simulation that reports one return per beam meets one
// surface, and the recording's other returns (a beam split by an edge) would all read as returns
// it missed (1,450 of the PandarQT64's 17,192 returns beyond 1 m). Where return 0 lies nearer
// than the comparison's minimum range, the beam was stopped by what the reconstruction leaves
// out (the blocked directions do the same to the simulated beam), and what passed on to a
// farther surface goes with it. PandarQT64 frame 2: return agreement 0.904 comparing every
// return, 0.922 with each beam's first beyond 1 m, 0.966 with return 0 (Pandar64 0.897,
// 0.922, 0.922; each beam's nearest return instead: 0.875); docs/validation.md. Returns the
// count left out.
size_t KeepFirstReturns(Frame& f);

}  // namespace lt::jobs
