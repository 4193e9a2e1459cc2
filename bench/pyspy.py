"""Sampling profiles of the site's own processes while a bench drives it (py-spy).

`recording(sessions, out_dir, name)` attaches `py-spy record` to every Python process in
the given process sessions (the web server's workers, both Celery workers and their pool
children, the sweeper) for the body of a `with`, writing collapsed stacks per process.
`top(out_dir, name)` reads them back and says where the CPU went: by role (web, quick
worker, heavy worker, sweeper), then the functions with the most samples on-CPU, by self
time and by inclusive time.

py-spy is not a dependency of the site: `pip install --target /tmp/pyspy py-spy` and pass
its binary (`--py-spy-bin`, default: `py-spy` on the PATH). It needs ptrace rights over the
processes (root, or `kernel.yama.ptrace_scope` 0 for one's own processes).
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

RATE_HZ = 200


def _session_processes(sessions: set[str]) -> list[tuple[int, str]]:
    """(pid, command line) of the Python processes in these sessions."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if fields[3] in sessions and any(w in cmdline for w in ("python", "gunicorn", "celery")):
            found.append((int(stat.parent.name), cmdline))
    return found


def role(cmdline: str) -> str:
    if "gunicorn" in cmdline:
        return "web"
    if "celery" in cmdline and "worker" in cmdline:
        return "heavy worker" if "heavy" in cmdline else "quick worker"
    if "sweep" in cmdline:
        return "sweeper"
    return "other"


@contextlib.contextmanager
def recording(sessions: set[str], out_dir: Path, name: str, binary: str) -> Iterator[None]:
    out_dir.mkdir(parents=True, exist_ok=True)
    spies = []
    for pid, cmdline in _session_processes(sessions):
        out = out_dir / f"{name}.{role(cmdline).replace(' ', '-')}.{pid}.txt"
        spies.append(
            subprocess.Popen(
                [binary, "record", "--pid", str(pid), "--rate", str(RATE_HZ), "--format", "raw",
                 "--output", str(out), "--nonblocking"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        )  # fmt: skip
    time.sleep(1.0)  # attached before the work starts
    try:
        yield
    finally:
        for spy in spies:
            spy.send_signal(signal.SIGINT)
        for spy in spies:
            try:
                spy.wait(timeout=30)
            except subprocess.TimeoutExpired:
                spy.kill()


def _stacks(path: Path) -> Iterator[tuple[list[str], int]]:
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            yield stack.split(";"), int(count)


def _frame(frame: str) -> str:
    """`function (path/to/module.py:line)` as `function (module.py)`: lines merged."""
    function, _, where = frame.partition(" (")
    module = where.rsplit(":", 1)[0].rsplit("/", 2)
    return f"{function} ({'/'.join(module[-2:])})"


# Leaf frames where a thread waits (a socket, a lock, a sleep, the OS): py-spy's own idle
# detection misses some of them in threads; they are not CPU, and are left out.
WAITING = (
    "Condition.wait", "Event.wait", "Thread.join", "select (", "_epoll.poll", "poll (",
    "wait_for_signals", "Connection.wait (", "_read_from_socket", "Connection._recv",
    "sleep", "accept (", "recv_into", "_copy_output", "_worker (futures",
)  # fmt: skip

# What a sample was doing, by the innermost frame that names a stage (first match wins,
# from the leaf up): the split issue 29 asks for.
STAGES = (
    ("run_lab (", "task: run_lab (the model, its checks, its JSON)"),
    ("execute_run (", "task: the wrapper (claim, lease, save, followers, announce)"),
    ("lab_draft (", "web: a draft's POST"),
    ("lab_detail (", "web: the Run press (POST, its wait, the answer)"),
    ("run_detail (", "web: polls (and the final render)"),
    ("WSGIHandler.__call__ (", "web: middleware, sessions, other requests"),
    ("Sampler.tick (", "sweeper: the queue telemetry sampler"),
)


def _own_stacks(out_dir: Path, name: str) -> Iterator[tuple[str, list[str], int]]:
    """(role, frames, samples) of one recording, waiting samples left out."""
    for path in sorted(out_dir.glob(f"{name}.*.txt")):
        who = path.name.split(".")[1].replace("-", " ")
        for stack, n in _stacks(path):
            frames = [_frame(f) for f in stack[1:]]  # the first is the process/thread
            if frames and not any(w in frames[-1] for w in WAITING):
                yield who, frames, n


def stage(who: str, frames: list[str]) -> str:
    for frame in reversed(frames):
        for marker, label in STAGES:
            if frame.startswith(marker) or f" {marker}" in f" {frame}":
                return label
    return {
        "web": "web: gunicorn's own (sockets, threads, logging)",
        "quick worker": "quick worker: Celery's own (messages, acks, the pool)",
    }.get(who, f"{who}: all")


def top(out_dir: Path, name: str, count: int = 20, ms_per_press: float | None = None) -> str:
    """Where the samples of one recording went, as Markdown: by stage (with milliseconds
    per press when the measured CPU per press is given), then the top functions."""
    stages: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    for who, frames, n in _own_stacks(out_dir, name):
        stages[stage(who, frames)] += n
        own[f"{who}: {frames[-1]}"] += n
    total = sum(stages.values()) or 1
    lines = [f"{total} samples on CPU at {RATE_HZ} Hz (waits left out)", ""]
    head = "| stage | share |" + (" ms per press |" if ms_per_press else "")
    lines += [head, "| --- | ---: |" + (" ---: |" if ms_per_press else "")]
    for label, n in stages.most_common():
        row = f"| {label} | {100 * n / total:.1f}% |"
        if ms_per_press:
            row += f" {ms_per_press * n / total:.1f} |"
        lines.append(row)
    lines += ["", f"| top {count} functions by self time | share |", "| --- | ---: |"]
    lines += [
        f"| {frame.replace('|', '/')} | {100 * n / total:.1f}% |"
        for frame, n in own.most_common(count)
    ]
    return "\n".join(lines)


def available(binary: str) -> bool:
    try:
        subprocess.run([binary, "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return False
    return os.geteuid() == 0 or Path("/proc/sys/kernel/yama/ptrace_scope").read_text() == "0\n"
