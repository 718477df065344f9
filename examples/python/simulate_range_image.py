#!/usr/bin/env python3
"""Simulate an OS0-128 driving through the street scene and plot a range image.

    python3 simulate_range_image.py --out range_image.png [--frames 3] [--speed 10]

The sensor moves along x at --speed m/s, 1.8 m above the road; each frame's points land in a
128 x 1024 image at (channel, column), the layout of the sensor's own range image. Needs
matplotlib (Debian: python3-matplotlib).
"""
import argparse

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import lidartwin as lt  # noqa: E402


def pose_at(x_m):
    pose = np.eye(4)
    pose[0, 3] = x_m
    pose[2, 3] = 1.8
    return pose


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the PNG to write")
    parser.add_argument("--frames", type=int, default=3)
    parser.add_argument("--speed", type=float, default=10.0, help="m/s along x")
    parser.add_argument("--backend", default="auto", help="auto, cpu or cuda")
    args = parser.parse_args()

    profile = lt.SensorProfile.load(lt.config_path("sensors/ouster_os0_128.yaml"))
    scene = lt.Scene.load(lt.config_path("scenes/street_crossing.yaml"))
    duration = args.frames * profile.frame_period_s
    start, end = pose_at(-20.0), pose_at(-20.0 + args.speed * duration)
    trajectory = lt.Trajectory([0.0, duration], [start, end])
    simulator = lt.Simulator(profile, scene, backend=args.backend, seed=1, trajectory=trajectory)
    frames = simulator.simulate(frames=args.frames)

    last = frames[-1]
    image = np.full((128, profile.columns), np.nan, dtype=np.float32)
    image[last.channel, last.column] = last.range
    fig, ax = plt.subplots(figsize=(12, 3), dpi=100)
    shown = ax.imshow(image, aspect="auto", cmap="viridis", interpolation="nearest")
    ax.set_xlabel("column")
    ax.set_ylabel("channel")
    ax.set_title(f"OS0-128 at {args.speed:g} m/s, frame {last.index}: {len(last)} points "
                 f"({simulator.backend})")
    fig.colorbar(shown, ax=ax, label="range [m]")
    fig.tight_layout()
    fig.savefig(args.out)
    for f in frames:
        print(f"frame {f.index}: {len(f)} points, x from {f.pose_start[0, 3]:.2f} m "
              f"to {f.pose_end[0, 3]:.2f} m")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
