"""Slow clients against the site: N connections from one address that send a request's
first header lines and then one more line every 5 s (slowloris), held open while a second
client asks for a page every 0.25 s and measures how long each answer takes.

Side by side in one run, on loopback, the same database and static files:
  before   gunicorn as `./dev serve` ran it until now (gthread, 2 x cores + 1 processes
           of 4 threads) listening on the port itself;
  after    the site as `./dev run` serves it: nginx in front (header timeout
           PROXY_HEADER_TIMEOUT, 10 s) and gunicorn on a local socket behind it;
  uvicorn  (only with --uvicorn, when `import uvicorn` works) the other way considered:
           an ASGI server (h11, --timeout-keep-alive 5) that handles slow clients itself.

    .venv/bin/python bench/slow_clients.py            # 200 slow connections, 30 s each
    .venv/bin/python bench/slow_clients.py --slow 60 --seconds 20 --uvicorn

Prints one table: per server, the page's p50 / p95 / max before the attack and under it,
requests with no answer within 10 s, and how many slow connections the server closed
(and the median time it took). Bounded: at most --slow sockets (<= 500), --seconds each.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe  # noqa: E402 - bench/machine.py, beside this file
from site_run import ROOT, answers, dev_run, free_port, stop_group, wait_until_up  # noqa: E402

PAGE_TIMEOUT_S = 10.0
TRICKLE_EVERY_S = 5.0
PROBE_EVERY_S = 0.25


@dataclass
class Latencies:
    seconds: list[float] = field(default_factory=list)
    unanswered: int = 0

    def row(self) -> str:
        if not self.seconds:
            return f"{'-':>7} {'-':>7} {'-':>7} {self.unanswered:>5}"
        ordered = sorted(self.seconds)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        return (
            f"{statistics.median(ordered):>7.3f} {p95:>7.3f} {ordered[-1]:>7.3f} "
            f"{self.unanswered:>5}"
        )


def probe(url: str, seconds: float) -> Latencies:
    """GET url every PROBE_EVERY_S for `seconds`; each answer's time, or unanswered."""
    got = Latencies()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.monotonic()
        try:
            answers(url, timeout_s=PAGE_TIMEOUT_S)
            got.seconds.append(time.monotonic() - start)
        except OSError:
            got.unanswered += 1
        time.sleep(max(0.0, PROBE_EVERY_S - (time.monotonic() - start)))
    return got


class SlowClients:
    """N sockets to host:port sending a request's header a line at a time, never ending it."""

    def __init__(self, port: int, count: int) -> None:
        self.port, self.count = port, count
        self.closed_after: list[float] = []  # seconds from open to the server closing it
        self.refused = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SlowClients:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        opened: dict[socket.socket, float] = {}
        for _ in range(self.count):
            sock = socket.socket()
            try:
                sock.connect(("127.0.0.1", self.port))
                sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            except OSError:
                self.refused += 1
                sock.close()
                continue
            sock.setblocking(False)
            opened[sock] = time.monotonic()
            selector.register(sock, selectors.EVENT_READ)
        next_trickle = time.monotonic() + TRICKLE_EVERY_S
        while not self._stop.is_set():
            for key, _ in selector.select(timeout=0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                # Anything from the server (a 408, or the end of the stream) ends it.
                with contextlib.suppress(OSError):
                    sock.recv(4096)
                self.closed_after.append(time.monotonic() - opened.pop(sock))
                selector.unregister(sock)
                sock.close()
            if time.monotonic() >= next_trickle:
                next_trickle += TRICKLE_EVERY_S
                for sock in list(opened):
                    with contextlib.suppress(OSError):
                        sock.send(b"X-Slow: 1\r\n")
        for sock in opened:
            sock.close()
        selector.close()


def measure(name: str, base: str, port: int, slow: int, seconds: float) -> str:
    quiet = probe(f"{base}/", 5.0)
    with SlowClients(port, slow) as clients:
        time.sleep(1.0)  # every socket opened and its first lines sent
        held = probe(f"{base}/", seconds)
        closed = list(clients.closed_after)
    recovery = probe(f"{base}/", 3.0)
    close_s = f"{statistics.median(closed):.1f}" if closed else "-"
    return (
        f"{name:<8} {quiet.row()} | {held.row()} | {len(closed):>4}/{slow:<4} {close_s:>6}"
        f" | {recovery.row()}"
    )


@contextlib.contextmanager
def server(argv: list[str], env: dict[str, str], log: Path, url: str) -> Iterator[None]:
    with log.open("w") as out:
        process = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        try:
            wait_until_up(url, process, give_up_s=120)
            yield
        finally:
            stop_group(process)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", type=int, default=200, help="slow connections (<= 500)")
    parser.add_argument("--seconds", type=float, default=30.0, help="each attack's length")
    parser.add_argument("--uvicorn", action="store_true", help="add the ASGI server (b)")
    parser.add_argument("--only", choices=["before", "after"], help="one side only")
    args = parser.parse_args()
    slow = max(1, min(args.slow, 500))
    seconds = max(5.0, min(args.seconds, 120.0))
    venv = ROOT / ".venv" / "bin"
    cores = os.cpu_count() or 2
    print(f"# {describe()}; {slow} slow-header connections, {seconds:.0f} s each")
    rows = []
    with tempfile.TemporaryDirectory(prefix="slow-clients-") as tmp:
        var_dir = Path(tmp)
        with dev_run(var_dir, "--no-demo", WEB_WORKERS=str(2 * cores + 1)) as (base, _):
            env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SECRET_KEY"}}
            env |= {
                "DEBUG": "false",
                "VAR_DIR": str(var_dir),
                "SECRET_KEY_FILE": str(var_dir / "secret_key"),
                "SECURE_COOKIES": "false",
                "DB_CONN_MAX_AGE": "60",
            }
            if args.only != "after":
                port = free_port()
                gunicorn = [
                    f"{venv}/gunicorn", "school.wsgi:application", "--bind", f"127.0.0.1:{port}",
                    "--workers", str(2 * cores + 1), "--worker-class", "gthread", "--threads", "4",
                    "--keep-alive", "5", "--timeout", "60", "--no-control-socket",
                ]  # fmt: skip
                url = f"http://127.0.0.1:{port}"
                with server(gunicorn, env, var_dir / "before.log", f"{url}/healthz"):
                    rows.append(measure("before", url, port, slow, seconds))
            if args.only != "before":
                port = int(base.rsplit(":", 1)[1])
                rows.append(measure("after", base, port, slow, seconds))
            if args.uvicorn and importlib.util.find_spec("uvicorn"):
                port = free_port()
                uvicorn = [
                    f"{venv}/python", "-m", "uvicorn", "--factory",
                    "django.core.asgi:get_asgi_application", "--host", "127.0.0.1",
                    "--port", str(port), "--http", "h11", "--timeout-keep-alive", "5",
                    "--workers", str(2 * cores + 1), "--no-access-log",
                ]  # fmt: skip
                env["DJANGO_SETTINGS_MODULE"] = "school.settings"
                url = f"http://127.0.0.1:{port}"
                with server(uvicorn, env, var_dir / "uvicorn.log", f"{url}/healthz"):
                    rows.append(measure("uvicorn", url, port, slow, seconds))
            elif args.uvicorn:
                print("# uvicorn is not importable here: its row is left out")
    print(
        f"{'server':<8} {'quiet: p50':>10} {'p95':>7} {'max':>7} {'none':>5} |"
        f" {'attack: p50':>11} {'p95':>7} {'max':>7} {'none':>5} |"
        f" {'closed':>9} {'med s':>6} | {'after: p50':>10} {'p95':>7} {'max':>7} {'none':>5}"
    )
    for row in rows:
        print(row)
    print(
        "# seconds for GET / (every 0.25 s); none: no answer within 10 s; closed: slow "
        "connections the server closed while the attack lasted, and the median time it took"
    )


if __name__ == "__main__":
    main()
