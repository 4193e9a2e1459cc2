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


def django_for_bench(database_url: str, *, site_given: bool) -> None:
    """Django set up in the bench's own process, on the site's database, telemetry under a
    prefix of the bench's own; the compiled capstone loop built first when the bench starts
    the site itself (a site given by `--url` was built by whoever started it)."""
    import sys

    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("TELEMETRY_PREFIX", f"bench-telemetry-{os.urandom(3).hex()}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    import django

    if not site_given:
        root = Path(__file__).resolve().parent.parent
        subprocess.run([sys.executable, "-m", "labs.sim.capstone.build"], cwd=root, check=False)
    django.setup()
