"""Compile the capstone's C event loop in place: `python -m labs.sim.capstone.build`.

`./dev` runs this after installing the requirements: Cython turns `_fastloop.pyx` into C,
and the machine's C compiler (gcc or cc, with the Python headers) builds the extension
module next to it. Nothing else is needed (no setuptools). Without the compiled module the
models run the pure-Python reference loop instead: the same figures, several times slower.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "_fastloop.pyx"
C_FILE = HERE / "_fastloop.c"


def target() -> Path:
    """Where the compiled module goes: `_fastloop` plus this Python's extension suffix."""
    return HERE / ("_fastloop" + sysconfig.get_config_var("EXT_SUFFIX"))


def build() -> Path:
    """Cythonize and compile `_fastloop.pyx` next to itself (the .c and .so are not committed)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "cython",
            "-3",
            "--module-name",
            "labs.sim.capstone._fastloop",
            str(SOURCE),
            "-o",
            str(C_FILE),
        ],
        check=True,
    )
    compiler = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise RuntimeError("no C compiler (gcc or cc) found")
    out = target()
    partial = out.with_suffix(".partial")
    subprocess.run(
        [
            compiler,
            "-O2",
            "-fPIC",
            "-shared",
            f"-I{sysconfig.get_paths()['include']}",
            str(C_FILE),
            "-o",
            str(partial),
        ],
        check=True,
    )
    partial.replace(out)  # a running worker never loads a half-written module
    return out


if __name__ == "__main__":
    print(build())
