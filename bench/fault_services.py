"""A Redis and a PostgreSQL of the fault bench's own, which it may stop, fill and start again.

The machine's shared Redis (6379) and PostgreSQL (5432) serve other work: `bench/faults.py`
never stops or fills them. It starts a redis-server on a free port (its own directory, no
persistence, `volatile-ttl` as `./dev` starts one) and a PostgreSQL cluster made with
`initdb` in a temporary directory (trust authentication, a free port), and only ever
signals those, by their own port and data directory.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import time
from pathlib import Path

import redis

SHARED_PORTS = frozenset({6379, 5432})


def _not_shared(port: int) -> int:
    if port in SHARED_PORTS:
        raise SystemExit(f"port {port} is the shared server's: the fault bench never uses it")
    return port


class OwnRedis:
    """redis-server on `port`, started, shut down (NOSAVE) and started again on demand."""

    def __init__(self, port: int, folder: Path, maxmemory: str = "256mb") -> None:
        self.port, self.folder, self.maxmemory = _not_shared(port), folder, maxmemory
        folder.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self, db: int = 0) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, db=db, socket_timeout=5)

    def start(self) -> None:
        # As ./dev's ensure_redis: no persistence, only keys with a TTL evicted when full.
        subprocess.run(
            ["redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "--port",
             str(self.port), "--save", "", "--appendonly", "no", "--dir", str(self.folder),
             "--logfile", str(self.folder / "redis.log"), "--pidfile",
             str(self.folder / "redis.pid"), "--maxmemory", self.maxmemory,
             "--maxmemory-policy", "volatile-ttl"],
            check=True,
        )  # fmt: skip
        for _ in range(100):
            if self.answers():
                return
            time.sleep(0.1)
        raise SystemExit(f"the bench's Redis on {self.port} did not start")

    def answers(self) -> bool:
        try:
            return bool(self.client().ping())
        except redis.RedisError:
            return False

    def shutdown_nosave(self) -> None:
        """As the attack did: `SHUTDOWN NOSAVE`, every key gone (queued messages too)."""
        # The server closes the connection as it goes: that is its answer.
        with contextlib.suppress(redis.ConnectionError):
            self.client().shutdown(nosave=True)
        while self.answers():
            time.sleep(0.05)

    def stop(self) -> None:
        if self.answers():
            self.shutdown_nosave()


class OwnPostgres:
    """A PostgreSQL cluster in `folder` on `port`: initdb'd, stopped and started again."""

    def __init__(self, port: int, folder: Path) -> None:
        self.port, self.folder = _not_shared(port), folder
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            raise SystemExit("no /usr/lib/postgresql/*/bin/initdb: install postgresql")
        self.bin = Path(found[-1]).parent
        self.data = folder / "data"

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def _as_owner(self, *argv: str) -> subprocess.CompletedProcess:
        """`argv` as the cluster's owner: postgres refuses to run as root."""
        if os.geteuid() == 0:
            argv = ("runuser", "-u", "postgres", "--", *argv)
        return subprocess.run(argv, check=True, capture_output=True, text=True)

    def init(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self._as_owner(
            str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
            "--no-sync",
        )  # fmt: skip

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=on"
        self._as_owner(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options,
            "-l", str(self.folder / "postgres.log"), "-w", "-t", "60", "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """`fast`: connections are cut, as when the server is stopped under the site."""
        if (self.data / "postmaster.pid").exists():
            self._as_owner(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w",
                           "stop")  # fmt: skip

    def create_database(self, name: str) -> None:
        self._as_owner(str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                       "-U", "postgres", name)  # fmt: skip
