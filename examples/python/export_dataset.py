#!/usr/bin/env python3
"""Export a labelled dataset from Python and train-loop over it as a PyTorch Dataset.

    python3 export_dataset.py --out EXPORT_FOLDER [--frames 8] [--batch 4]

lidartwin.export() writes the folder `lidartwin export` writes (dataset.h5, manifest.json);
LidartwinFrames (lidartwin_loader.py, beside this file) reads it by frame index, which is all a
torch.utils.data.Dataset needs. With PyTorch installed the frames go through a real DataLoader;
without it the same Dataset is batched by hand, so the example runs either way.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

import lidartwin as lt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lidartwin_loader import LidartwinFrames, collate  # noqa: E402

try:
    import torch
    from torch.utils.data import DataLoader, Dataset
except ImportError:  # PyTorch is not a Debian 12 default; the loop below runs without it
    torch = None
    Dataset = object


class ExportDataset(Dataset):
    """A lidartwin export as a map-style Dataset: frame k -> points (N, 4) and labels."""

    def __init__(self, folder):
        self.frames = LidartwinFrames(folder)

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, k):
        return self.frames[k]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the export folder to write")
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--backend", default="cpu")
    args = parser.parse_args()

    lt.export(lt.config_path("sensors/ouster_os0_128.yaml"),
              lt.config_path("scenes/street_crossing.yaml"), args.out, frames=args.frames,
              seed=3, backend=args.backend, shards=2)
    data = ExportDataset(args.out)
    if torch is not None:
        loader = DataLoader(data, batch_size=args.batch, shuffle=True, collate_fn=collate,
                            generator=torch.Generator().manual_seed(0))
    else:
        order = np.random.default_rng(0).permutation(len(data))
        loader = (collate([data[int(k)] for k in order[i:i + args.batch]])
                  for i in range(0, len(order), args.batch))
    frames = points = 0
    for batch in loader:
        frames += len(batch["frame_index"])
        points += len(batch["points"])
        classes = np.unique(batch["semantic_class"])
        print(f"batch: frames {batch['frame_index'].tolist()}, {len(batch['points'])} points, "
              f"classes {classes.tolist()}")
    assert frames == len(data) and points == data.frames.manifest["points"]
    print(f"{frames} frames, {points} points ({'torch DataLoader' if torch else 'numpy'})")


if __name__ == "__main__":
    main()
