"""The supervisor behind `./dev serve`: a process that dies is started again."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ops.supervise import parse_programs

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.nodb

SLEEPER = "import os, time; print('up', os.getpid(), flush=True); time.sleep(120)"


def test_it_reads_name_equals_command():
    (program,) = parse_programs(["web=gunicorn app --bind '127.0.0.1:0'"])
    assert (program.name, program.argv) == ("web", ["gunicorn", "app", "--bind", "127.0.0.1:0"])
    with pytest.raises(SystemExit):
        parse_programs(["no command here"])


class Lines:
    """The supervisor's output, line by line, waited for without a timed assertion."""

    def __init__(self, stream) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.put(line.rstrip("\n"))

    def next_matching(self, text: str, give_up_s: float = 60) -> str:
        deadline = time.monotonic() + give_up_s
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r}")


def test_a_process_that_dies_is_restarted_and_all_stop_together():
    supervisor = subprocess.Popen(
        [sys.executable, "-m", "ops.supervise", f'sleeper={sys.executable} -c "{SLEEPER}"'],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out = Lines(supervisor.stdout)
        first = int(out.next_matching("sleeper | up").split()[-1])
        os.kill(first, signal.SIGKILL)
        assert "restarting" in out.next_matching("sleeper exited with -9")
        second = int(out.next_matching("sleeper | up").split()[-1])
        assert second != first
        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(timeout=60) == 0
        with pytest.raises(ProcessLookupError):
            os.kill(second, 0)
    finally:
        if supervisor.poll() is None:
            os.killpg(supervisor.pid, signal.SIGKILL)
            supervisor.wait()
