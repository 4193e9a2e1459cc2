"""CPU seconds a site spends over a bench's run, by role: web, workers, PostgreSQL, Redis.

`RoleClock(sessions, database, redis_pid)` reads `/proc/<pid>/stat` (user + system time,
every thread) of the site's own processes (the process sessions the bench started: nginx,
gunicorn, the Celery workers and their pool children, the sweeper), of the PostgreSQL
backends serving the bench's database (told apart by their process title, which names the
database: the server's other databases and its own background processes are not counted,
so other work on a shared machine stays out), and of a Redis server of the bench's own
(`own_redis`: the shared one on 6379 serves other work too). A thread reads them every
0.2 s, so a process that ends during the run (a database connection closed) keeps what it
had used by its last reading; one that starts counts from zero.

Only a process's own time is read, never its children's (`cutime`): a child that ended
would be counted twice, once as itself and once in its parent.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

TICK_S = 1 / os.sysconf("SC_CLK_TCK")
EVERY_S = 0.2
ROLES = ("web", "quick worker", "heavy worker", "PostgreSQL", "Redis", "nginx", "sweeper")


def role_of(cmdline: str, database: str | None) -> str:
    """The role of a process by its command line (a backend's: its process title)."""
    if cmdline.startswith("postgres:"):
        # "postgres: 15/main: postgres bench_drag 127.0.0.1(51234) idle"
        return "PostgreSQL" if database and f" {database} " in cmdline else ""
    if "gunicorn" in cmdline:
        return "web"
    if "celery" in cmdline and " worker" in cmdline:
        return "heavy worker" if "heavy" in cmdline else "quick worker"
    if "nginx" in cmdline:
        return "nginx"
    if "sweep_runs" in cmdline:
        return "sweeper"
    return "other"


def _own_cpu_s(stat: str) -> tuple[str, float]:
    """(session id, user + system seconds) from a /proc/<pid>/stat line."""
    fields = stat.rsplit(")", 1)[1].split()
    return fields[3], (int(fields[11]) + int(fields[12])) * TICK_S


class RoleClock:
    """The CPU used by each role between `start()` and `stop()` (see the module doc)."""

    def __init__(
        self, sessions: set[str], database: str | None = None, redis_pid: int | None = None
    ) -> None:
        self.sessions, self.database, self.redis_pid = sessions, database, redis_pid
        self._first: dict[int, float] = {}
        self._last: dict[int, tuple[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _read(self, started: bool) -> None:
        for stat in Path("/proc").glob("[0-9]*/stat"):
            pid = int(stat.parent.name)
            try:
                session, cpu_s = _own_cpu_s(stat.read_text())
                if pid in self._last:
                    who = self._last[pid][0]
                else:
                    cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")
                    text = cmdline.decode(errors="replace").strip()
                    if pid == self.redis_pid:
                        who = "Redis"
                    elif session in self.sessions or text.startswith("postgres:"):
                        who = role_of(text, self.database)
                    else:
                        continue
                    if not who:
                        continue
            except (OSError, IndexError, ValueError):
                continue  # ended meanwhile
            if pid not in self._first:
                self._first[pid] = cpu_s if not started else 0.0
            self._last[pid] = (who, cpu_s)

    def _poll(self) -> None:
        while not self._stop.wait(EVERY_S):
            self._read(started=True)

    def start(self) -> RoleClock:
        self._read(started=False)
        self._thread.start()
        return self

    def stop(self) -> dict[str, float]:
        """Seconds of CPU by role since `start()`."""
        self._stop.set()
        self._thread.join()
        self._read(started=True)
        used: Counter[str] = Counter()
        for pid, (who, cpu_s) in self._last.items():
            used[who] += max(0.0, cpu_s - self._first.get(pid, 0.0))
        return dict(used)


def split_table(used: dict[str, float], drafts: int, computed: int) -> str:
    """Markdown rows: milliseconds of CPU per draft posted and per draft computed, by role."""
    rows = ["| role | CPU s | ms per draft posted | ms per draft computed |"]
    rows.append("| --- | ---: | ---: | ---: |")
    order = [r for r in ROLES if r in used] + sorted(set(used) - set(ROLES))
    for who in [*order, "all"]:
        seconds = sum(used.values()) if who == "all" else used[who]
        per_post = 1000 * seconds / drafts if drafts else 0.0
        per_run = 1000 * seconds / computed if computed else 0.0
        name = "**all**" if who == "all" else who
        rows.append(f"| {name} | {seconds:.1f} | {per_post:.1f} | {per_run:.1f} |")
    return "\n".join(rows)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def own_redis() -> Iterator[tuple[str, int]]:
    """A Redis server of the bench's own, as `./dev` starts one: (its URL, its pid)."""
    port, folder = _free_port(), tempfile.mkdtemp(prefix="bench-redis-")
    proc = subprocess.Popen(
        [shutil.which("redis-server") or "redis-server", "--bind", "127.0.0.1",
         "--port", str(port), "--save", "", "--appendonly", "no", "--dir", folder,
         "--maxmemory", "256mb", "--maxmemory-policy", "volatile-ttl"],
        stdout=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
