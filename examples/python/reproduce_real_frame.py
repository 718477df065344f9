#!/usr/bin/env python3
"""Read a real Ouster capture, reproduce one frame in simulation and print the fidelity table.

    python3 reproduce_real_frame.py CAPTURE.pcap METADATA.json --out DIR
        [--poses POSES_KITTI.txt] [--frame 2]

The shared OS-1-128 capture works as is:
    ../shared/real-data/ouster-sdk/OS-1-128_v2.3.0_1024x10_lb_n3.pcap and its .json and
    _poses_kitti.txt (poses at each frame's end).
"""
import argparse
import json
from pathlib import Path

import lidartwin as lt


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("capture")
    parser.add_argument("metadata")
    parser.add_argument("--out", required=True, help="the run's folder (metrics, scene, report)")
    parser.add_argument("--poses", default="", help="KITTI poses file, one pose a frame")
    parser.add_argument("--frame", type=int, default=2, help="the frame to simulate")
    args = parser.parse_args()

    recording = lt.read_recording(args.capture, args.metadata)
    counts = [len(frame) for frame in recording]
    print(f"{args.capture}: {recording.reader}, {recording.sensor}, {len(counts)} frames "
          f"({', '.join(map(str, counts))} points)")

    lt.reproduce(args.capture, args.out, args.frame, sidecar=args.metadata, poses=args.poses,
                 pose_at="end" if args.poses else "start")
    # The run's metrics.json: the dict lt.compare() returns for the same pair.
    m = json.loads((Path(args.out) / "metrics.json").read_text())
    floor = json.loads((Path(args.out) / "floor_metrics.json").read_text())
    rows = [("return agreement", "return_agreement", ""),
            ("depth |error| median", "depth_abs_median_m", "m"),
            ("depth bias", "depth_bias_m", "m"),
            ("Chamfer distance", "chamfer_m", "m"),
            ("F-score at 5 cm", "fscore_5cm", ""),
            ("intensity |error| mean", "intensity_abs_mean", "")]
    print(f"\nframe {args.frame}: simulated vs real, beside real frame {args.frame - 1} vs real "
          "(the floor a simulation can reach)")
    print(f"{'metric':<24}{'simulated':>12}{'floor':>12}  unit")
    for label, key, unit in rows:
        print(f"{label:<24}{m['summary'][key]:>12.4f}{floor['summary'][key]:>12.4f}  {unit}")
    print(f"\n{'distance':<12}{'pairs':>8}{'|depth error| mean [m]':>24}")
    for b in m["by_distance"]:
        print(f"{b['label']:<12}{b['depth_m']['abs']['n']:>8}{b['depth_m']['abs']['mean']:>24.4f}")
    print(f"\nreport: {Path(args.out) / 'report' / 'report.html'}")


if __name__ == "__main__":
    main()
