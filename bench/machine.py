"""One line saying when and where a benchmark ran: date, CPUs, CPU model, load average."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from pathlib import Path


def describe() -> str:
    """`2026-11-30 21:58 UTC; nproc 2, AMD EPYC; Python 3.13.0; load average 9.9`."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    return (
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; nproc {nproc}, {cpu}; "
        f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.1f}"
    )
