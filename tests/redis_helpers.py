"""A Redis server of a test's own, on a port the kernel hands out: started as `./dev` starts
the site's (no persistence), stopped the hard way (`SHUTDOWN NOSAVE`) and started again, and
always killed after. For the tests that need a real restart or a real full memory without
touching the shared Redis on 6379.

Parallel test processes each start their own: a start counts only when the server that
answers on the port is the process this object started (its `process_id`), so two tests
can never share one server (CI once saw a test talk to another's server, then lose it)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis

START_TRIES = 5


def free_port() -> int:
    """A port nothing listens on now; another process may still take it before Redis binds
    it, which `RedisServer.start` notices and retries."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """`redis-server` on `port`, with `./dev`'s `--save "" --appendonly no` and any `extra`
    arguments (e.g. `--maxmemory 2mb --maxmemory-policy volatile-ttl`)."""

    def __init__(self, workdir: Path, *extra: str) -> None:
        self.port = free_port()
        self.workdir, self.extra = workdir, extra
        self.proc: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def client(self, db: int = 0) -> redis.Redis:
        return redis.Redis.from_url(self.url(db), socket_connect_timeout=1, socket_timeout=5)

    def start(self) -> RedisServer:
        """Started on `self.port` if it is still free there (a restart keeps the port its
        clients know); the first start moves to a new port if another process took it."""
        restart = self.proc is not None
        for _ in range(START_TRIES):
            if self._start_once():
                return self
            self.kill()
            if restart:
                break  # its clients know this port: say so rather than move
            self.port = free_port()
        log = (self.workdir / "redis.log").read_text()[-2000:]
        raise RuntimeError(f"redis-server did not start on a port of its own:\n{log}")

    def _start_once(self) -> bool:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir), *self.extra],
            stdout=(self.workdir / "redis.log").open("a"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 30  # a busy machine starts it slowly
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False  # it exited: most likely the port was taken
            with contextlib.suppress(redis.RedisError):
                answering = int(self.client().info("server")["process_id"])
                return answering == self.proc.pid  # else another's server holds the port
            time.sleep(0.05)
        return False

    def shutdown_nosave(self) -> None:
        """What `redis-cli shutdown nosave` does: stop at once, writing nothing."""
        with contextlib.suppress(redis.ConnectionError):
            self.client().shutdown(nosave=True)
        assert self.proc is not None
        self.proc.wait(timeout=10)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def fill_without_ttl(server: RedisServer, value_bytes: int = 4096) -> int:
    """Keys that never expire until the server refuses a write as over its maxmemory (what
    another program sharing the Redis, or a huge backlog, does); how many were written.

    Then its maxmemory is lowered a tenth below what it uses: at the very limit a freed
    buffer would let the next small write through, and a test would depend on when."""
    filler = server.client(0)
    for written in range(1_000_000):
        try:
            filler.set(f"filler:{written}", b"x" * value_bytes)
        except redis.OutOfMemoryError:
            used = int(filler.info("memory")["used_memory"])
            filler.config_set("maxmemory", used * 9 // 10)
            return written
    raise RuntimeError("Redis never refused a write: is its maxmemory set?")


@contextlib.contextmanager
def site_broker_on(server: RedisServer, settings):
    """The site's broker (this process's Celery app and settings) on `server` while the
    block runs, then back on the one it had; `server` is killed at the end."""
    from school.celery import app as celery_app

    before = celery_app.conf.broker_url
    settings.CELERY_BROKER_URL = celery_app.conf.broker_url = server.url()
    celery_app._after_fork()  # drop the connection pools made for the other server
    try:
        yield server
    finally:
        server.kill()
        celery_app.conf.broker_url = before
        celery_app._after_fork()
