"""Compile the capstone's C event loop in place: `python -m labs.sim.capstone.build`.

`./dev` runs this after installing the requirements (Cython, setuptools, and gcc with the
Python headers on the machine). Without the compiled module the models run the pure-Python
reference loop instead: the same figures, several times slower.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SOURCE = HERE / "_fastloop.pyx"


def build() -> None:
    """Cythonize and compile `_fastloop.pyx` next to itself (the .c and .so are not committed)."""
    from Cython.Build import cythonize
    from setuptools import Extension, setup

    extension = Extension(
        "labs.sim.capstone._fastloop",
        [str(SOURCE.relative_to(ROOT))],
        extra_compile_args=["-O2"],
    )
    with tempfile.TemporaryDirectory() as temp:
        setup(
            name="capstone-fastloop",
            packages=[],
            py_modules=[],
            ext_modules=cythonize([extension], quiet=True),
            script_args=["build_ext", "--inplace", "--build-temp", temp, "--build-lib", temp, "-q"],
        )


if __name__ == "__main__":
    import os

    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    build()
