#!/usr/bin/env python3
"""Iterate a lidartwin export as a training loader would (h5py and numpy only).

    python3 lidartwin_loader.py EXPORT_FOLDER [--batch 4] [--epochs 1] [--seed 0]

EXPORT_FOLDER is what `lidartwin export --out EXPORT_FOLDER` wrote: dataset.h5 joins every
shard (HDF5 virtual datasets, read like ordinary ones) and manifest.json lists the files with
their SHA-256. Each column /points/<field> holds every frame's points in turn; frame k's are
[point_offset[k], point_offset[k] + point_count[k]) from the table /frames (schema:
datasets/schema/frames_v2.md).

`LidartwinFrames` is the part to copy into a training script: len(), frames by index (so a
shuffled order, a DataLoader's sampler, or a worker's slice works unchanged), and batches of
frames collated into one point array with a batch index column, the layout point-cloud
networks take.
"""
import argparse
import json
import os
import sys
import time

import h5py
import numpy as np


class LidartwinFrames:
    """Frames of an export folder; one open file, opened lazily (per worker process)."""

    FEATURES = ("x", "y", "z", "intensity")  # float32 columns of a point
    LABELS = ("semantic_class", "instance_id")

    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(folder, "manifest.json")) as f:
            self.manifest = json.load(f)
        self._file = None
        with h5py.File(os.path.join(folder, "dataset.h5"), "r") as f:
            schema = f.attrs["schema"]  # a fixed-length string: bytes in h5py
            if isinstance(schema, bytes):
                schema = schema.decode()
            if schema != "lidartwin.frames" or float(np.ravel(f.attrs["schema_version"])[0]) != 2:
                raise ValueError(f"{folder}/dataset.h5: not a lidartwin frames file, schema v2")
            # The frame table is small (a few numbers a frame): read it once.
            self.frame_index = f["frames/frame_index"][:]
            self.offset = f["frames/point_offset"][:]
            self.count = f["frames/point_count"][:]
        if len(self.frame_index) != self.manifest["frames"]:
            raise ValueError(f"{folder}: dataset.h5 holds {len(self.frame_index)} frames, "
                             f"the manifest {self.manifest['frames']}")

    def _h5(self):
        if self._file is None:  # opened in the process that reads (fork-safe)
            self._file = h5py.File(os.path.join(self.folder, "dataset.h5"), "r")
        return self._file

    def __len__(self):
        return len(self.frame_index)

    def __getitem__(self, k):
        columns = self._h5()["points"]
        rows = slice(int(self.offset[k]), int(self.offset[k] + self.count[k]))
        points = np.stack([columns[name][rows] for name in self.FEATURES],
                          axis=1).astype(np.float32)
        labels = {name: columns[name][rows] for name in self.LABELS if name in columns}
        return {"frame_index": int(self.frame_index[k]), "points": points, **labels}

    def batches(self, batch_size, seed, epoch):
        """Shuffled batches (the same order for the same seed and epoch)."""
        order = np.random.default_rng([seed, epoch]).permutation(len(self))
        for start in range(0, len(order), batch_size):
            frames = [self[int(k)] for k in order[start:start + batch_size]]
            yield collate(frames)


def collate(frames):
    """Frames as one (N, 5) array: batch index, x, y, z, intensity; labels concatenated."""
    points = np.concatenate([
        np.hstack([np.full((len(f["points"]), 1), b, np.float32), f["points"]])
        for b, f in enumerate(frames)])
    out = {"frame_index": np.array([f["frame_index"] for f in frames]), "points": points}
    for name in LidartwinFrames.LABELS:
        if all(name in f for f in frames):
            out[name] = np.concatenate([f[name] for f in frames])
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    data = LidartwinFrames(args.folder)
    start = time.monotonic()
    seen, points, classes = [], 0, {}
    for epoch in range(args.epochs):
        for batch in data.batches(args.batch, args.seed, epoch):
            seen.extend(batch["frame_index"].tolist())
            points += len(batch["points"])
            if "semantic_class" in batch:
                values, counts = np.unique(batch["semantic_class"], return_counts=True)
                for v, c in zip(values.tolist(), counts.tolist()):
                    classes[v] = classes.get(v, 0) + c
    seconds = time.monotonic() - start
    # Every frame once per epoch, every point the manifest promised.
    expected = sorted(list(range(len(data))) * args.epochs)
    if sorted(seen) != expected:
        sys.exit(f"error: frames seen {sorted(seen)} are not each frame once per epoch")
    if points != data.manifest["points"] * args.epochs:
        sys.exit(f"error: {points} points read, the manifest says {data.manifest['points']}")
    print(f"{len(seen)} frames, {points} points in {seconds:.2f} s "
          f"({len(seen) / max(seconds, 1e-9):.1f} frames/s); points per class: "
          + ", ".join(f"{k}: {v}" for k, v in sorted(classes.items())))


if __name__ == "__main__":
    main()
