"""Fixtures of the Python suite: the CLI built beside the module (to check the module against it
on the same inputs), the source tree's configs and ../shared/real-data (tests that need it skip
with a message when it is absent; CI always has it)."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

SOURCE_DIR = Path(os.environ.get("LT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
REAL_DATA = Path(os.environ.get("LT_REAL_DATA_DIR", SOURCE_DIR.parent / "shared" / "real-data"))


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("LT_CLI")
    if not path or not Path(path).is_file():
        pytest.skip("LT_CLI does not name the lidartwin program (ctest sets it)")

    def run(*args, check=True):
        done = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"lidartwin {' '.join(map(str, args))} exited "
                                 f"{done.returncode}:\n{done.stderr}")
        return done

    return run


@pytest.fixture(scope="session")
def configs():
    return SOURCE_DIR / "configs"


@pytest.fixture(scope="session")
def real_data():
    if not REAL_DATA.is_dir():
        pytest.skip(f"{REAL_DATA} is absent: the real-data tests need ../shared/real-data")
    return REAL_DATA


def assert_same_frames(a, b):
    """Two lists of frames with the same fields and, field for field, the same values."""
    assert len(a) == len(b)
    for fa, fb in zip(a, b):
        da, db = fa.fields(), fb.fields()
        assert da.keys() == db.keys()
        for name in da:
            np.testing.assert_array_equal(da[name], db[name], err_msg=name)
