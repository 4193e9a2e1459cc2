"""A running site's CPU split by program (the web, the stream, the workers...), from /proc.

`./dev run` starts everything in the session of the process the bench started (the
supervisor gives each program a process group of its own, not a session), so the session
finds every process of the site and its command line tells which program it belongs to.
"""

from __future__ import annotations

import os
from pathlib import Path

# The first word found in a process's command line names its program (order matters: the
# heavy worker's line holds "celery" too).
PROGRAMS = (
    ("uvicorn", "stream"),
    ("gunicorn", "web"),
    ("nginx", "proxy"),
    ("heavy", "heavy worker"),
    ("celery", "quick worker"),
    ("sweep_runs", "sweeper"),
)


def program_of(cmdline: str) -> str:
    return next((name for word, name in PROGRAMS if word in cmdline), "other")


def cpu_by_program(sessions: set[str]) -> dict[str, float]:
    """CPU seconds (user + system) used so far by each program of the site's sessions."""
    tick = os.sysconf("SC_CLK_TCK")
    used: dict[str, float] = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[3] not in sessions:
                continue
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # ended meanwhile
        name = program_of(cmdline)
        used[name] = used.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return used


def per_second(before: dict[str, float], after: dict[str, float], wall_s: float) -> dict:
    """CPU seconds per second of wall time of each program between two readings."""
    return {name: max(0.0, after[name] - before.get(name, 0.0)) / wall_s for name in sorted(after)}
