"""Each example in examples/python runs as the docs show it and does what it says."""

import os
import subprocess
import sys

from pathlib import Path

import lidartwin
from conftest import SOURCE_DIR

EXAMPLES = SOURCE_DIR / "examples" / "python"
# The examples import the lidartwin this suite tests, wherever it was imported from.
PACKAGE_ROOT = str(Path(lidartwin.__file__).resolve().parent.parent)


def run_example(name, *args, cwd):
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": PACKAGE_ROOT})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_range_image(tmp_path):
    out = run_example("simulate_range_image.py", "--out", tmp_path / "ri.png", "--frames", 2,
                      "--backend", "cpu", cwd=tmp_path)
    assert (tmp_path / "ri.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "frame 1:" in out and "x from -19.00 m" in out


def test_reproduce_real_frame(real_data, tmp_path):
    os1 = real_data / "ouster-sdk"
    out = run_example("reproduce_real_frame.py", os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap",
                      os1 / "OS-1-128_v2.3.0_1024x10.json", "--poses",
                      os1 / "OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt", "--out",
                      tmp_path / "run", cwd=tmp_path)
    assert "3 frames" in out and "return agreement" in out
    assert (tmp_path / "run" / "report" / "report.html").is_file()


def test_export_dataset(tmp_path):
    out = run_example("export_dataset.py", "--out", tmp_path / "export", "--frames", 4,
                      "--batch", 2, cwd=tmp_path)
    assert "4 frames" in out
    assert (tmp_path / "export" / "manifest.json").is_file()
