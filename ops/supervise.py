"""Run the site's processes together and restart any that dies: `./dev run` uses it.

    python -m ops.supervise "web=gunicorn school.wsgi ..." "worker-1=celery -A school worker ..."

Each process's output goes to this terminal, every line prefixed with its name. Each
program runs in a process group of its own. When a program's main process exits, whatever
it left behind in its group (a killed gunicorn master's workers, which keep the listening
socket and would make the new master fail with "Connection in use") is sent SIGTERM, then
SIGKILL after ORPHAN_GRACE_S, before the program is started again. A program that exits by
itself is started again after a pause that doubles while it keeps dying quickly (1 s up to
30 s) and starts again from 1 s once it has run for a minute; one killed from outside
(SIGKILL, SIGTERM, SIGINT, SIGHUP: the kernel's OOM killer, an operator) is started again
at once and does not grow the pause: that death was not the program's fault. Ctrl-C or
SIGTERM stops them all: SIGTERM first, SIGKILL for any still running after the grace period.
No Django import: it must run, and keep running, whatever state the site is in.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

FIRST_PAUSE_S = 1.0
LONGEST_PAUSE_S = 30.0
HEALTHY_AFTER_S = 60.0
STOP_GRACE_S = 15.0
# How long a dead main process's leftovers get to finish before they are killed: short,
# because while they hold the listening socket the site cannot come back.
ORPHAN_GRACE_S = 1.0
POLL_S = 0.2
# Deaths that come from outside the program: restarted at once, no back-off.
KILLED_FROM_OUTSIDE = frozenset({signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP})

_print_lock = threading.Lock()


def say(name: str, line: str) -> None:
    with _print_lock:
        sys.stdout.write(f"{name:>9} | {line}\n")
        sys.stdout.flush()


@dataclass
class Program:
    name: str
    argv: list[str]
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    pause_s: float = FIRST_PAUSE_S
    quick_exits: int = 0
    restart_at: float | None = None
    # Set while a dead main process's group is being cleared: when to send SIGKILL.
    orphans_kill_at: float | None = None
    starts: int = 0
    readers: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        self.process = subprocess.Popen(
            self.argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            bufsize=1,
            text=True,
            errors="replace",
            # Its own process group (id = its pid), so what it leaves behind can be found.
            process_group=0,
        )
        self.started_at = time.monotonic()
        self.restart_at = None
        self.starts += 1
        say("supervise", f"started {self.name} (pid {self.process.pid})")
        reader = threading.Thread(target=self._copy_output, args=(self.process,), daemon=True)
        reader.start()
        self.readers.append(reader)

    def _copy_output(self, process: subprocess.Popen) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            say(self.name, line.rstrip("\n"))

    def check(self, now: float) -> None:
        """Notice an exit, clear its process group, restart when its time has come."""
        if self.process is not None and self.restart_at is None:
            code = self.process.poll()
            if code is None:
                return
            ran_s = now - self.started_at
            if code < 0 and -code in KILLED_FROM_OUTSIDE:
                self.pause_s = 0.0
                why = f"was killed by {signal.Signals(-code).name}"
            else:
                # Quick exits in a row wait 1, 2, 4 ... s; a run of a minute or more starts afresh.
                self.quick_exits = 0 if ran_s >= HEALTHY_AFTER_S else self.quick_exits + 1
                self.pause_s = min(
                    FIRST_PAUSE_S * 2 ** max(self.quick_exits - 1, 0), LONGEST_PAUSE_S
                )
                why = f"exited with {code}"
            self.restart_at = now + self.pause_s
            if self._signal_group(signal.SIGTERM):
                self.orphans_kill_at = now + ORPHAN_GRACE_S
                say("supervise", f"{self.name}: stopping what its main process left running")
            say("supervise", f"{self.name} {why}; restarting in {self.pause_s:.0f} s")
        if self.orphans_kill_at is not None:
            if not self._group_alive():
                self.orphans_kill_at = None
            elif now >= self.orphans_kill_at:
                say(
                    "supervise",
                    f"{self.name}: killing what is left of it after {ORPHAN_GRACE_S:.0f} s",
                )
                self._signal_group(signal.SIGKILL)
                self.orphans_kill_at = None
            else:
                return
        if self.restart_at is not None and now >= self.restart_at:
            self.start()

    def _signal_group(self, signum: int) -> bool:
        """Signal every process left in the program's group; False when none is left."""
        if self.process is None:
            return False
        try:
            os.killpg(self.process.pid, signum)
        except ProcessLookupError:
            return False
        return True

    def _group_alive(self) -> bool:
        """Whether a process of the group still runs (a zombie holds no socket: not counted)."""
        if self.process is None:
            return False
        pgid = self.process.pid
        if not os.path.isdir("/proc"):
            return self._signal_group(0)
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rpartition(")")[2].split()
            except OSError:
                continue
            # After the name: state, ppid, pgrp.
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
        return False

    def signal(self, signum: int) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signum)


def parse_programs(specs: list[str]) -> list[Program]:
    programs = []
    for spec in specs:
        name, sep, command = spec.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise SystemExit(f"supervise: expected NAME=COMMAND, got {spec!r}")
        programs.append(Program(name.strip(), shlex.split(command)))
    return programs


def run(programs: list[Program]) -> int:
    stopping = threading.Event()

    def stop(signum, _frame) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    for program in programs:
        program.start()
    while not stopping.is_set():
        now = time.monotonic()
        for program in programs:
            program.check(now)
        stopping.wait(POLL_S)
    say("supervise", "stopping every process")
    for program in programs:
        program.signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    for program in programs:
        if program.process is None:
            continue
        try:
            program.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            say("supervise", f"{program.name} did not stop in {STOP_GRACE_S:.0f} s: killing it")
            program.process.kill()
            program.process.wait()
    for program in programs:
        program._signal_group(signal.SIGKILL)  # anything a dead main process left behind
    for program in programs:
        for reader in program.readers:
            reader.join(timeout=1)
    return 0


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    # Children print as they go, not in blocks when their pipe buffer fills.
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    return run(parse_programs(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
