#!/usr/bin/env python3
"""How well can any return/drop rule do on a recording's leave-one-out folds? (issue 41)

For each fold (a `reproduce --simulate-frame K --out DIR` run), every beam of the held-out
frame is described by what a simulator could know before seeing it: whether the simulation
returned there, whether each reconstruction frame returned there, how many of the beam's two
neighbours in its row the simulation and each reconstruction frame left empty, and a range bin.
A decision table over those features (return where more than half of a cell's beams returned)
is then fitted two ways:

- cross-validated: on the other folds' held-out frames, applied to this one (what a rule
  learned from the truth of other frames can reach: more than a simulator may know);
- in sample: on this fold's own held-out frame (an optimistic bound, as the table sees the
  answer it is scored on).

Scores are drop accuracy (beams where both or neither returned / all beams) and return
agreement (both returned / either returned), as `compare` counts them (beams nearer than the
minimum range are empty on both sides). docs/validation.md quotes its output.

    scripts/return-decision-bound.py REC METADATA MIN_RANGE_M K1:DIR1 K2:DIR2 ...

Needs the Python module on PYTHONPATH (build/python) and numpy.
"""
import sys

import numpy as np


def range_image(frame, rows, columns):
    """The frame's first returns as a (channel, column) range image, 0 where empty."""
    image = np.zeros((rows, columns), np.float32)
    first = np.ones(len(frame), bool) if frame.return_index is None else frame.return_index == 0
    image[frame.channel[first].astype(int), frame.column[first].astype(int) % columns] = \
        frame.range[first]
    return image


def empty_row_neighbours(returned):
    """How many of each beam's two neighbours in its row (the columns either side) are empty."""
    return (np.roll(~returned, 1, axis=1).astype(int) + np.roll(~returned, -1, axis=1))


def fold_features(held_out, simulated, reconstruction, min_range_m):
    """Truth, simulated return and features of one fold; `reconstruction`: the reconstruction
    frames' range images, the held-out frame's nearest first, so that a feature means the same
    frame (the next one, the one after) in every fold. Beams nearer than the minimum range are
    empty, as compare counts them."""
    truth = held_out >= min_range_m
    sim = simulated >= min_range_m
    recon = [r >= min_range_m for r in reconstruction]
    nearest = np.where(sim, simulated, 0)
    for r, returned in zip(reconstruction, recon):
        nearest = np.where((nearest == 0) & returned, r, nearest)
    features = [sim.astype(int)] + [x.astype(int) for x in recon]
    features += [empty_row_neighbours(sim)] + [empty_row_neighbours(x) for x in recon]
    features.append(np.digitize(nearest, [1, 5, 10, 20, 30, 50, 80]))
    return truth.ravel(), sim.ravel(), features


def cell_keys(features, count):
    """One integer a beam naming its cell of the first `count` features (each below 16)."""
    if 4 * count > 63:
        raise ValueError(f"{count} features do not fit a 64-bit cell key")
    if any(f.max(initial=0) >= 16 or f.min(initial=0) < 0 for f in features[:count]):
        raise ValueError("a feature outside 0..15")
    key = np.zeros(features[0].size, np.int64)
    for f in features[:count]:
        key = key * 16 + f.ravel()
    return key


def scores(predicted, truth):
    disagreements = np.count_nonzero(predicted != truth)
    return 1 - disagreements / truth.size, 1 - disagreements / np.count_nonzero(predicted | truth)


def majority_table(keys, truth):
    cells, inverse = np.unique(keys, return_inverse=True)
    rate = np.bincount(inverse, weights=truth) / np.bincount(inverse)
    return dict(zip(cells.tolist(), (rate > 0.5).tolist()))


def decision_bounds(data, count):
    """Mean (drop accuracy, agreement) over the folds of a table on the first `count` features:
    learned from the other folds' truth (None with one fold) and from the fold's own."""
    cv, own = [], []
    for i, (truth, sim, features) in enumerate(data):
        keys = cell_keys(features, count)
        own_table = majority_table(keys, truth)
        own.append(scores(np.array([own_table[k] for k in keys.tolist()]), truth))
        if len(data) > 1:
            train_keys = np.concatenate([cell_keys(d[2], count) for j, d in enumerate(data) if j != i])
            train_truth = np.concatenate([d[0] for j, d in enumerate(data) if j != i])
            table = majority_table(train_keys, train_truth)
            cv.append(scores(np.array([table.get(k, s) for k, s in zip(keys.tolist(), sim)]), truth))
    return (tuple(np.mean(cv, axis=0)) if cv else None), tuple(np.mean(own, axis=0))


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    import lidartwin  # the module only for reading; the bounds above are plain numpy

    recording, metadata, min_range_m = argv[1], argv[2], float(argv[3])
    folds = [(int(a.split(":", 1)[0]), a.split(":", 1)[1]) for a in argv[4:]]
    real = list(lidartwin.Recording(recording, metadata))
    rows = 1 + max(int(f.channel.max()) for f in real)
    columns = 1 + max(int(f.column.max()) for f in real)
    images = [range_image(f, rows, columns) for f in real]
    data = []
    for k, directory in folds:
        simulated = range_image(next(iter(lidartwin.Recording(directory + "/sim.h5"))), rows, columns)
        others = [images[j] for j in sorted((j for j in range(len(images)) if j != k),
                                            key=lambda j: (abs(j - k), j))]
        data.append(fold_features(images[k], simulated, others, min_range_m))
    names = ["simulated return", "+ reconstruction frames' returns",
             "+ the simulation's empty row neighbours", "+ the frames' empty row neighbours",
             "+ range bin"]
    counts = [1, 1 + len(images) - 1, len(images) + 1, 2 * len(images), 2 * len(images) + 1]
    print("features | cross-validated drop accuracy, agreement | in-sample drop accuracy, "
          "agreement | cells a fold")
    for name, count in zip(names, counts):
        cv, own = decision_bounds(data, count)
        cv_text = "%.4f, %.4f" % cv if cv else "-"
        cells = max(len(np.unique(cell_keys(d[2], count))) for d in data)
        print("%-42s | %s | %.4f, %.4f | %d" % ((name, cv_text) + own + (cells,)))


if __name__ == "__main__":
    main(sys.argv)
