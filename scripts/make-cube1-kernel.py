#!/usr/bin/env python3
"""Writes configs/sensors/blickfeld_cube1_kernel.csv: an emitter x collector kernel for the
Blickfeld Cube 1 built from seed 004's description (sec. III, Fig. 5), for want of the
measured table (which `lidartwin calibrate` is to fit from goniometer images):
  eta:   three laser diodes make one beam, "an approximately square pulse shape": three equal
         Gaussian spots stacked vertically, 0.17 deg apart, 0.17 deg FWHM each (a 0.5 deg
         core); plus the dim halo that blooms, "approx. 3 deg - six times larger than the core
         pulse shape", resolved down to 1e-3 of the peak in Fig. 5(b): 1e-3 exp(-rho / 0.4 deg)
         out to rho = 1.5 deg.
  kappa: the collector sensitivity of Fig. 5(c), separable H(h) V(v), high over the +-1 deg
         of the figure: taken as (1 - (angle / 1.6 deg)^2) per axis.
Angles in mrad on a 61 x 61 grid over +-1.5 deg (0.05 deg steps). Run it to regenerate the file.
"""
import math
import os

STEP_DEG = 0.05
N = 61
SPOT_FWHM_DEG = 0.17
SPOT_SIGMA_DEG = SPOT_FWHM_DEG / (2 * math.sqrt(2 * math.log(2)))
SPOTS_V_DEG = (-0.17, 0.0, 0.17)


def eta(h, v):
    core = sum(math.exp(-(h * h + (v - s) ** 2) / (2 * SPOT_SIGMA_DEG ** 2)) for s in SPOTS_V_DEG)
    rho = math.hypot(h, v)
    halo = 1e-3 * math.exp(-rho / 0.4) if rho <= 1.5 else 0.0
    return core + halo


def kappa(h, v):
    return max(0.0, 1 - (h / 1.6) ** 2) * max(0.0, 1 - (v / 1.6) ** 2)


def main():
    angles = [(i - (N - 1) / 2) * STEP_DEG for i in range(N)]
    mrad = [a * math.pi / 180 * 1e3 for a in angles]
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "configs", "sensors", "blickfeld_cube1_kernel.csv")
    with open(out, "w") as f:
        f.write("# Blickfeld Cube 1 emitter x collector kernel from seed 004's description\n")
        f.write("# (scripts/make-cube1-kernel.py); rows: v angle [mrad], columns: h angle [mrad]\n")
        f.write("v_mrad\\h_mrad," + ",".join(f"{a:.5f}" for a in mrad) + "\n")
        for v, vm in zip(angles, mrad):
            f.write(f"{vm:.5f}," + ",".join(f"{eta(h, v) * kappa(h, v):.6e}" for h in angles) + "\n")


if __name__ == "__main__":
    main()
