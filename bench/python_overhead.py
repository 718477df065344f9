#!/usr/bin/env python3
"""What Python adds to a simulated frame (issue 39: at most 5 %).

    PYTHONPATH=build/python python3 bench/python_overhead.py [--backend cpu] [--repeats 15]

One OS0-128 frame of the street scene, on one simulator: Simulator.simulate() from Python (the
frame handed over as numpy views) against the same Simulator::Simulate call timed inside C++
(the frame dropped). The two alternate, so that both see the same machine state; the figure is
the median of the per-pair ratios (and the ratio of the medians beside it). Prints a Markdown table for bench/RESULTS.md.
"""
import argparse
import platform
import statistics
import time

import lidartwin as lt


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--repeats", type=int, default=51)
    parser.add_argument("--sensor", default="sensors/ouster_os0_128.yaml")
    parser.add_argument("--scene", default="scenes/street_crossing.yaml")
    args = parser.parse_args()

    sim = lt.Simulator(lt.SensorProfile.load(lt.config_path(args.sensor)),
                       lt.Scene.load(lt.config_path(args.scene)), backend=args.backend, seed=1)
    sim.simulate()  # warm: first-touch memory, GPU context
    sim._time_cpp_frames(1)
    python_s, cpp_s, ratios = [], [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        frame = sim.simulate()[0]
        python_s.append(time.perf_counter() - start)
        cpp_s.append(sim._time_cpp_frames(1))
        ratios.append(python_s[-1] / cpp_s[-1])
    overhead = statistics.median(ratios) - 1
    of_medians = statistics.median(python_s) / statistics.median(cpp_s) - 1
    print(f"| {platform.node()} ({sim.backend}) | {args.sensor}, {args.scene}, {len(frame)} points "
          f"| {statistics.median(cpp_s) * 1e3:.2f} ms | {statistics.median(python_s) * 1e3:.2f} ms "
          f"| {overhead * 100:+.2f} % (ratio of medians {of_medians * 100:+.2f} %) |")


if __name__ == "__main__":
    main()
