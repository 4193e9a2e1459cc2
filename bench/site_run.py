"""Start the site as `./dev run` serves it, in a folder of its own, for a benchmark.

Its own VAR_DIR (SQLite database, static files, secret key), its own port and its own
Celery queues, so it takes no other checkout's runs; stopped (its whole process group)
when the `with` block ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers(url: str, timeout_s: float = 10) -> int:
    """The status of a GET (4xx and 5xx too); raises OSError when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def wait_until_up(url: str, process: subprocess.Popen, give_up_s: float = 400) -> None:
    deadline = time.monotonic() + give_up_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the site exited with {process.returncode} before answering {url}")
        try:
            if answers(url, timeout_s=5) == 200:  # not the proxy's 502 while gunicorn starts
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"{url} never answered")


def stop_group(process: subprocess.Popen) -> None:
    """SIGTERM to the group it leads (the supervisor and what it started), then SIGKILL."""
    for sig, wait_s in ((signal.SIGTERM, 60), (signal.SIGKILL, 30)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def dev_run(var_dir: Path, *args: str, **env: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """(base URL, process) of `./dev run ARGS` on 127.0.0.1, logging to var_dir/run.log."""
    port = free_port()
    environ = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SECRET_KEY"}}
    environ |= {
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "VAR_DIR": str(var_dir),
        "LAB_QUEUE": f"bench-{uuid.uuid4().hex[:8]}",
        "LAB_HEAVY_QUEUE": f"bench-heavy-{uuid.uuid4().hex[:8]}",
    } | env
    var_dir.mkdir(parents=True, exist_ok=True)
    with (var_dir / "run.log").open("w") as log:
        process = subprocess.Popen(
            ["./dev", "run", *args], cwd=ROOT, env=environ, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(f"{base}/healthz", process)
            yield base, process
        finally:
            stop_group(process)
