// One Gaussian pulse's term in the pulse-convolved return signal xi^ (return_signal.h), shared
// by the detector and the tables of pulses many beams share (pulse_table.h).
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

// One contribution's weight in xi^: the pulse shape with a single-precision exponential.
// xi^ and its derivatives are summed in double; each term is then good to about 1e-7 relative
// (ranges to 1e-7 sigma_r), and the float exponential is several times cheaper than the double
// one on the GPU, where it dominated the detector's time (bench/RESULTS.md). The host and the
// device each round it to within 2 ulp, so the backends agree to about 1e-6 m.
// half_inv_var: 1 / (2 sigma^2), computed once per evaluation (a division per term costs as
// much as the exponential on the GPU).
LT_HD inline double PulseWeight(double x, double half_inv_var) {
  using std::exp;
  return static_cast<double>(exp(static_cast<float>(-x * x * half_inv_var)));
}

// xi^ and its first two derivatives at one x.
struct SignalDerivatives {
  double f, d1, d2;
};

}  // namespace lt::physics
