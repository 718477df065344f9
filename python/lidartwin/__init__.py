"""lidartwin in Python: simulate a LiDAR, read real recordings, compare and calibrate.

The native module (``_lidartwin``) binds the same workflows the ``lidartwin`` CLI runs, so a
function here and its command give the same files and numbers. Frames come back as
:class:`Frame` objects whose fields are numpy arrays viewing our memory (no copy).

Errors raise :class:`Error` (an argument refused: :class:`OptionError`, also a ValueError);
Ctrl-C stops a long call between frames with KeyboardInterrupt, leaving no partial output.
Each workflow's lines go to the ``lidartwin`` logger and its warnings to :mod:`warnings`.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from ._lidartwin import (  # noqa: F401  (the native API, re-exported)
    Error,
    Frame,
    OptionError,
    Recording,
    Scene,
    SensorProfile,
    Simulator,
    Trajectory,
    __version__,
    write_frames,
)
from . import _lidartwin

__all__ = [
    "Error", "OptionError", "Frame", "Recording", "Scene", "SensorProfile", "Simulator",
    "Trajectory", "write_frames", "read_recording", "to_structured", "config_path", "convert",
    "simulate", "compare", "reconstruct", "reproduce", "resimulate", "labgen", "calibrate",
    "export",
    "__version__",
]

log = logging.getLogger("lidartwin")

_PathLike = "str | os.PathLike[str]"


def config_path(relative: str = "") -> Path:
    """A file of the built-in configs (``sensors/ouster_os0_128.yaml``), or their folder.

    Looked for in ``$LIDARTWIN_HOME/configs``, then beside the installed package
    (``lidartwin/configs``, put there by pip), then in the source tree this module was built from.
    """
    here = Path(__file__).resolve().parent
    candidates = []
    if os.environ.get("LIDARTWIN_HOME"):  # first, as the CLI looks (base/config_root.h)
        candidates.append(Path(os.environ["LIDARTWIN_HOME"]) / "configs")
    candidates.append(here / "configs")
    # build/python/lidartwin -> the source tree's configs/
    candidates.append(here.parent.parent.parent / "configs")
    for root in candidates:
        if root.is_dir():
            return root / relative
    raise Error("no configs folder found (looked in " +
                ", ".join(str(c) for c in candidates) + "); set LIDARTWIN_HOME")


def read_recording(path: _PathLike, sidecar: _PathLike = "", **options: Any) -> Recording:
    """Opens a recording for reading a frame at a time: ``for frame in read_recording(p): ...``.

    sidecar: the metadata (Ouster .json) or calibration (Velodyne .yaml/.xml, Hesai and RoboSense
    .csv) a packet capture needs. options: ``format`` ("kitti" or "nuscenes" for a .bin),
    ``topic`` (a bag's or OSF file's lidar topic), ``firetimes`` (a Hesai fire-time file).
    """
    return Recording(os.fspath(path), os.fspath(sidecar), **options)


def to_structured(frame: Frame) -> np.ndarray:
    """The frame as one numpy structured array (a copy), a column per field it carries."""
    fields = frame.fields()
    out = np.empty(len(frame), dtype=[(name, a.dtype) for name, a in fields.items()])
    for name, a in fields.items():
        out[name] = a
    return out


def _passed_on(result: dict) -> dict:
    """Sends a job's log lines to the logger and warnings module; returns the rest."""
    for line in result.pop("info", []):
        log.info(line.rstrip("\n"))
    for line in result.pop("notes", []):
        log.info(line)
    for message in result.pop("warnings", []):
        warnings.warn(message, stacklevel=3)
    return result


def _fspaths(kwargs: dict) -> dict:
    return {k: (os.fspath(v) if isinstance(v, os.PathLike) else v) for k, v in kwargs.items()}


def convert(recording: _PathLike, out: _PathLike, **options: Any) -> dict:
    """``lidartwin convert``: any readable recording into .h5, .mcap/.db3, or .ply/.pcd/.las
    files. Returns frames, points, the files written and the reader's notes."""
    return _lidartwin._convert(os.fspath(recording), os.fspath(out), **_fspaths(options))


def simulate(sensor: _PathLike, scene: _PathLike, out: _PathLike, **options: Any) -> dict:
    """``lidartwin simulate`` to files (for frames in memory use :class:`Simulator`)."""
    return _lidartwin._simulate(os.fspath(sensor), os.fspath(scene), os.fspath(out),
                                **_fspaths(options))


def compare(real: _PathLike, sim: _PathLike, out: _PathLike | None = None,
            **options: Any) -> dict:
    """``lidartwin compare``: the fidelity metrics of a simulated recording against a real one,
    as the dict that ``compare --out metrics.json`` writes (written to ``out`` too if given).

    options as the command's, by key: real_sidecar, real_format, real_topic, real_firetimes,
    real_frames, sim_frames, rois, scene, roi_margin_m, associate, max_angle_deg,
    max_distance_m, min_range_m, distance_bins, beams_per_frame, pairs, label.
    """
    with tempfile.TemporaryDirectory(prefix="lidartwin-compare-") as scratch:
        target = os.fspath(out) if out is not None else os.path.join(scratch, "metrics.json")
        _passed_on(_lidartwin._compare(os.fspath(real), os.fspath(sim), target,
                                       **_fspaths(options)))
        with open(target, encoding="utf-8") as f:
            return json.load(f)


def _job(name: str):
    native = getattr(_lidartwin, "_" + name, None)

    def run(*args: Any, **options: Any) -> dict:
        if native is None:
            raise Error(f"{name}: this build of lidartwin has no {name} "
                        "(built without Open3D or Ceres)")
        args = tuple(os.fspath(a) if isinstance(a, os.PathLike) else a for a in args)
        return _passed_on(native(*args, **_fspaths(options)))

    run.__name__ = name  # its docstring is set below, beside the name
    return run


reconstruct = _job("reconstruct")
reconstruct.__doc__ = """``lidartwin reconstruct``: a recording to a scene the simulator loads.

reconstruct(recording, out, *, sidecar, format, topic, firetimes, frames, poses, pose_at,
static_sensor, incremental, columns, method, depth, voxel_m, max_range_m, carve)"""
reproduce = _job("reproduce")
reproduce.__doc__ = """``lidartwin reproduce``: reconstruct a recording, simulate a held-out
frame and compare it (metrics.json, report/ in ``out``).

reproduce(recording, out, simulate_frame, *, sidecar, topic, sensor, firetimes, reconstruct_frames,
as_sensor, reconstruct_channel_step, poses, pose_at, static_sensor, rotation_rate_hz, detector,
intensity, method, depth, voxel_m, max_range_m, seed): ``as_sensor`` simulates the held-out frame
through another profile (compared where its lasers are the recorded ones: the CLI's ``--as``),
``reconstruct_channel_step`` reconstructs from every N-th channel only; ``max_range_m`` 0 (the
default) reconstructs out to the sensor's range, at least 80 m."""
resimulate = _job("resimulate")
resimulate.__doc__ = """``lidartwin resimulate``: the drive as another sensor would have seen it
(sim.h5, sensor.yaml, scene/, trajectory.yaml in ``out``; nothing to compare with).

resimulate(recording, out, as_sensor, *, sidecar, topic, firetimes, first_frame=0, frames=0,
reconstruct_frames, poses, pose_at, static_sensor, rotation_rate_hz, intensity, method, depth,
voxel_m, max_range_m, seed): the scene from every frame (or ``reconstruct_frames``), ``frames``
frames from ``first_frame`` on (0: to the recording's end) simulated through ``as_sensor`` at
the recorded poses."""
labgen = _job("labgen")
labgen.__doc__ = """``lidartwin labgen``: a virtual lab folder simulated from a unit's true
profile. labgen(profile, out, *, seed=1, backend="auto", serial="")"""
calibrate = _job("calibrate")
calibrate.__doc__ = """``lidartwin calibrate``: a lab folder fitted into a calibrated profile and
a report. calibrate(lab, base, out, report, *, accept_poor_fits=False): a fit that does not
describe its measurements within their sigmas raises lidartwin.Error naming its worst point,
unless accepted (then kept with scaled uncertainties; the result's "warnings" say so)."""
export = _job("export")
export.__doc__ = """``lidartwin export``: a labelled dataset in a folder of shards, run here.
export(sensor, scene, out, *, trajectory, frames, seed, backend, threads, motion_slices, shards,
bag)"""


