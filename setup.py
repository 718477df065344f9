"""Builds the lidartwin Python package with CMake (pyproject.toml says why setuptools).

The native module is the CMake target lidartwin_python, built in the same build folder as
`make` uses (``build/``, or $LIDARTWIN_BUILD_DIR), so after `make test` an install only copies.
The package gets the pure-Python files, the module, the type stub and the built-in configs.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
BUILD = Path(os.environ.get("LIDARTWIN_BUILD_DIR", ROOT / "build")).resolve()
# setuptools' own scratch (build/lib.*, egg-info) kept apart from CMake's files.
SCRATCH = BUILD / "setuptools"


def cached_python(build: Path) -> str:
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        return ""
    for line in cache.read_text(errors="replace").splitlines():
        if line.startswith("LT_PYTHON_EXECUTABLE:"):
            return line.split("=", 1)[1]
    return ""


def run(command):
    print("+", " ".join(map(str, command)), flush=True)
    subprocess.run(list(map(str, command)), check=True, cwd=ROOT)


class CMakeBuild(build_ext):
    """Configures (when needed) and builds lidartwin_python, then copies the module."""

    def run(self):
        python = os.path.realpath(sys.executable)
        jobs = os.environ.get("JOBS", str(max(1, os.cpu_count() or 1)))
        if not (BUILD / "build.ninja").is_file():
            run(["cmake", "--preset", "default", "-B", BUILD, f"-DLT_PYTHON_EXECUTABLE={python}"])
        elif os.path.realpath(cached_python(BUILD) or "/") != python:
            # Built for another interpreter: the module is built again for this one.
            run(["cmake", "-B", BUILD, f"-DLT_PYTHON_EXECUTABLE={python}"])
        run(["cmake", "--build", BUILD, "--target", "lidartwin_python", "-j", jobs])
        built = BUILD / "python" / "lidartwin"
        target = Path(self.build_lib) / "lidartwin"
        target.mkdir(parents=True, exist_ok=True)
        for module in built.glob("_lidartwin*.so"):
            shutil.copy2(module, target / module.name)
        shutil.copytree(ROOT / "configs", target / "configs", dirs_exist_ok=True)


SCRATCH.mkdir(parents=True, exist_ok=True)
setup(
    packages=["lidartwin"],
    package_dir={"lidartwin": "python/lidartwin"},
    package_data={"lidartwin": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("lidartwin._lidartwin", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(SCRATCH)}, "egg_info": {"egg_base": str(SCRATCH)}},
    zip_safe=False,
)
