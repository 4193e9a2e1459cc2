"""CPU seconds a site spends over a bench's run, by role: web, stream, workers, PostgreSQL,
Redis, nginx, sweeper. The one reader of `/proc/<pid>/stat` for the benches that split a
site's CPU: bench/drag.py (per draft, `split_table`) and bench/class_experiment.py (seconds
a second, `per_second`).

`RoleClock(sessions, database, trees)` reads `/proc/<pid>/stat` (user + system time, every
thread) of:

- the site's own processes (the process sessions the bench started: nginx, gunicorn,
  uvicorn, the Celery workers and their pool children, the sweeper), by role, every 0.2 s
  (`every_s`): a process that ends during the run keeps what it had used by its last
  reading, one that starts counts from zero (their own time only: a child that ended would
  otherwise be counted twice, as itself and in its parent's). `every_s=None` reads at
  `start()` and `stop()` only, for a bench whose own CPU is among its figures: a process
  that ends between the two is then not counted;
- a server of the bench's own, whole (`trees`: its first process and every process under
  it, the children that ended included, through their parents' `cutime`): a PostgreSQL
  cluster (`own_postgres`: every backend, however short-lived, and the WAL writer,
  checkpointer and autovacuum its writes cost) and a Redis (`own_redis`); the shared ones
  on 5432 and 6379 serve other work too;
- else the PostgreSQL backends serving `database` on a shared server, told apart by their
  process title, polled as above (a backend that lives less than 0.2 s is missed, and the
  server's background processes are not counted).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
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
ROLES = (
    "web", "stream", "quick worker", "heavy worker", "PostgreSQL", "Redis", "nginx", "sweeper"
)  # fmt: skip


def role_of(cmdline: str, database: str | None) -> str:
    """The role of a process by its command line (a backend's: its process title)."""
    if cmdline.startswith("postgres:"):
        # "postgres: 15/main: postgres bench_drag 127.0.0.1(51234) idle"
        return "PostgreSQL" if database and f" {database} " in cmdline else ""
    if "gunicorn" in cmdline:
        return "web"
    if "uvicorn" in cmdline:
        return "stream"  # the class experiment's live streams (`./dev program stream`)
    if "celery" in cmdline and " worker" in cmdline:
        return "heavy worker" if "heavy" in cmdline else "quick worker"
    if "nginx" in cmdline:
        return "nginx"
    if "sweep_runs" in cmdline:
        return "sweeper"
    return "other"


def _stat(text: str) -> tuple[int, str, float, float]:
    """(parent pid, session id, own seconds, ended children's seconds) of a stat line."""
    fields = text.rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) * TICK_S
    children = (int(fields[13]) + int(fields[14])) * TICK_S
    return int(fields[1]), fields[3], own, children


def tree_cpu_s(root: int) -> float:
    """CPU seconds of `root` and every process under it, those that ended included (each
    in the `cutime` of the parent that reaped it)."""
    parents: dict[int, int] = {}
    spent: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent, _session, own, children = _stat(stat.read_text())
        except (OSError, IndexError, ValueError):
            continue
        pid = int(stat.parent.name)
        parents[pid], spent[pid] = parent, own + children
    total = 0.0
    for pid, cpu_s in spent.items():
        up = pid
        while up in parents and up != root:
            up = parents[up]
        if up == root:
            total += cpu_s
    return total


class RoleClock:
    """The CPU used by each role between `start()` and `stop()` (see the module doc)."""

    def __init__(
        self,
        sessions: set[str],
        database: str | None = None,
        trees: dict[str, int] | None = None,
        every_s: float | None = EVERY_S,
    ) -> None:
        self.sessions, self.database, self.trees = sessions, database, trees or {}
        self.every_s = every_s
        self._first: dict[int, float] = {}
        self._last: dict[int, tuple[str, float]] = {}
        self._trees_first: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _read(self, started: bool) -> None:
        # Outside the sessions only a shared server's backends count, told apart by their
        # process title: else no other process's command line is read.
        backends = bool(self.database) and "PostgreSQL" not in self.trees
        for stat in Path("/proc").glob("[0-9]*/stat"):
            pid = int(stat.parent.name)
            try:
                _parent, session, cpu_s, _children = _stat(stat.read_text())
                if pid in self._last:
                    who = self._last[pid][0]
                elif session in self.sessions or backends:
                    cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")
                    text = cmdline.decode(errors="replace").strip()
                    if session not in self.sessions and not text.startswith("postgres:"):
                        continue
                    who = role_of(text, self.database)
                    if not who:
                        continue
                else:
                    continue
            except (OSError, IndexError, ValueError):
                continue  # ended meanwhile
            if pid not in self._first:
                self._first[pid] = cpu_s if not started else 0.0
            self._last[pid] = (who, cpu_s)

    def _poll(self) -> None:
        assert self.every_s is not None
        while not self._stop.wait(self.every_s):
            self._read(started=True)

    def start(self) -> RoleClock:
        self._trees_first = {who: tree_cpu_s(root) for who, root in self.trees.items()}
        self._read(started=False)
        if self.every_s is not None:
            self._thread.start()
        return self

    def stop(self) -> dict[str, float]:
        """Seconds of CPU by role since `start()`."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self._read(started=True)
        used: Counter[str] = Counter()
        for pid, (who, cpu_s) in self._last.items():
            used[who] += max(0.0, cpu_s - self._first.get(pid, 0.0))
        for who, root in self.trees.items():
            used[who] += max(0.0, tree_cpu_s(root) - self._trees_first[who])
        return dict(used)


def per_second(used: dict[str, float], wall_s: float) -> dict[str, float]:
    """CPU seconds a second of wall time, by role (a `RoleClock`'s `stop()` over `wall_s`)."""
    return {who: seconds / wall_s for who, seconds in sorted(used.items())}


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


def _wait_for_port(port: int) -> None:
    for _ in range(200):
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
            return
        time.sleep(0.05)
    raise SystemExit(f"nothing answers on port {port}")


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
        _wait_for_port(port)
        yield f"redis://127.0.0.1:{port}/0", proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def _pg_program(name: str) -> str:
    """A PostgreSQL program: on the PATH, else Debian's newest under /usr/lib/postgresql."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if not versions:
        raise SystemExit(f"no {name}: install PostgreSQL's server programs")
    return str(versions[-1])


@contextlib.contextmanager
def own_postgres() -> Iterator[tuple[str, int]]:
    """A PostgreSQL cluster of the bench's own, with PostgreSQL's default settings and one
    database: (its URL, the postmaster's pid). Run as the `postgres` user when the bench
    runs as root (PostgreSQL refuses root); its files are deleted afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="bench-pg-"))
    data, port = folder / "data", _free_port()
    as_owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_owner:
        shutil.chown(folder, "postgres")
    subprocess.run(
        [*as_owner, _pg_program("initdb"), "-D", str(data), "-U", "postgres",
         "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    log = (folder / "postgres.log").open("w")
    proc = subprocess.Popen(
        [*as_owner, _pg_program("postgres"), "-D", str(data), "-p", str(port),
         "-k", str(folder), "-c", "listen_addresses=127.0.0.1"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    postmaster = None
    try:
        _wait_for_port(port)
        postmaster = int((data / "postmaster.pid").read_text().split()[0])
        # The port answers before the cluster accepts connections ("the database system is
        # starting up"), for seconds on a loaded machine: ask until it does.
        for _ in range(600):
            ready = subprocess.run(
                [_pg_program("pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(port)], check=False
            )
            if ready.returncode == 0:
                break
            time.sleep(0.1)
        subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-qc",
             "CREATE DATABASE bench"],
            check=True,
        )  # fmt: skip
        yield f"postgres://postgres@127.0.0.1:{port}/bench", postmaster
    finally:
        if postmaster is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(postmaster, signal.SIGINT)  # a fast shutdown: clients are told to go
        else:
            proc.terminate()
        proc.wait(timeout=30)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
