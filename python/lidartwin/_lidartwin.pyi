# Type stub of the native module (python/src/*.cpp), for editors and type checkers.
import os
from typing import Iterator, Optional, Sequence

import numpy as np
import numpy.typing as npt

__version__: str

_Path = str | os.PathLike[str]

class Error(RuntimeError):
    """A lidartwin call failed; the message names the file, the key or offset and the problem."""

class OptionError(Error, ValueError):
    """An argument was refused: .option names it, and the message begins with it."""
    option: str

class Frame:
    """One frame; per-point fields are numpy views of its memory.

    A field the source does not have (a recording's labels, a KITTI scan's channel) is None:
    absent, never zeros. x, y, z and range are always there."""
    index: int
    start_time_s: float
    end_time_s: float
    motion_corrected: bool
    pose_start: npt.NDArray[np.float64]  # 4x4 sensor -> world
    pose_end: npt.NDArray[np.float64]
    def __init__(self, fields: dict[str, npt.ArrayLike]) -> None: ...
    def __len__(self) -> int: ...
    def fields(self) -> dict[str, np.ndarray]: ...
    @staticmethod
    def units() -> dict[str, str]: ...
    @property
    def x(self) -> npt.NDArray[np.float32]: ...
    @property
    def y(self) -> npt.NDArray[np.float32]: ...
    @property
    def z(self) -> npt.NDArray[np.float32]: ...
    @property
    def range(self) -> npt.NDArray[np.float32]: ...
    @property
    def intensity(self) -> Optional[npt.NDArray[np.float32]]: ...
    @property
    def reflectance(self) -> Optional[npt.NDArray[np.float32]]: ...
    @property
    def channel(self) -> Optional[npt.NDArray[np.uint16]]: ...
    @property
    def column(self) -> Optional[npt.NDArray[np.uint32]]: ...
    @property
    def timestamp(self) -> Optional[npt.NDArray[np.float64]]: ...
    @property
    def return_index(self) -> Optional[npt.NDArray[np.uint8]]: ...
    @property
    def echo_pulse_width(self) -> Optional[npt.NDArray[np.float32]]: ...
    @property
    def material_id(self) -> Optional[npt.NDArray[np.uint16]]: ...
    @property
    def instance_id(self) -> Optional[npt.NDArray[np.uint32]]: ...
    @property
    def semantic_class(self) -> Optional[npt.NDArray[np.uint16]]: ...
    @property
    def beam_id(self) -> Optional[npt.NDArray[np.uint32]]: ...
    @property
    def return_type(self) -> Optional[npt.NDArray[np.uint8]]: ...
    @property
    def absent_fields(self) -> list[str]: ...

class SensorProfile:
    name: str
    wavelength_nm: float
    min_range_m: float
    max_range_m: float
    columns: int
    beam_count: int
    rays_per_frame: int
    frame_period_s: float
    @staticmethod
    def load(path: _Path) -> SensorProfile: ...

class Scene:
    triangle_count: int  # stored: a model placed many times (instances) counted once
    has_moving_objects: bool
    @staticmethod
    def load(path: _Path) -> Scene: ...

class Trajectory:
    times_s: list[float]
    start_time_s: float
    motion_correction: bool
    def __init__(self, times_s: Sequence[float], poses: Sequence[npt.ArrayLike],
                 motion_correction: bool = False, start_time_s: float = 0.0) -> None: ...
    @staticmethod
    def load(path: _Path) -> Trajectory: ...

class Simulator:
    backend: str
    rays_per_frame: int
    def __init__(self, profile: SensorProfile, scene: Scene, *, backend: str = "auto",
                 seed: int = 0, threads: int = 0, motion_slices: int = 16,
                 trajectory: Optional[Trajectory] = None) -> None: ...
    def simulate(self, pose: Optional[npt.ArrayLike] = None, *,
                 trajectory: Optional[Trajectory] = None, frames: int = 1,
                 first: int = 0) -> list[Frame]: ...

class Recording:
    reader: str
    sensor: str
    intensity_unit: str
    wavelength_nm: float
    frames_known: int
    notes: list[str]
    fraction_read: float
    def __init__(self, path: _Path, sidecar: _Path = "", *, format: str = "", topic: str = "",
                 firetimes: _Path = "") -> None: ...
    def __iter__(self) -> Iterator[Frame]: ...
    def __next__(self) -> Frame: ...

def write_frames(path: _Path, frames: Sequence[Frame], *, sensor_name: str = "",
                 wavelength_nm: float = 0.0,
                 intensity_unit: str = "unknown") -> list[os.PathLike[str]]: ...
