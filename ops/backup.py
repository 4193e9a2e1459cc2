"""A backup of the site's database, and putting one back: everything a teacher cannot redo.

Classes, assignments, runs, hand-ins, analyses, feedback and accounts live in the one
database, so a backup is that database, taken while the site runs:

- PostgreSQL: `pg_dump --format=custom`, one consistent snapshot (a transaction of its own,
  so writes during the dump are not half in it); `pg_restore --clean --single-transaction`
  puts it back all or nothing.
- SQLite: the online backup API (`sqlite3.Connection.backup`), which copies pages under the
  database's own locks, so a backup taken while workers write is still a consistent file
  (a plain `cp` of a WAL database is not); a restore copies the other way, into the live file.

Redis is left out on purpose: its three databases hold only what the site rebuilds or lets
go (Celery's queued messages, experiments' keys with TTLs of minutes, kept DLQs of an hour,
rendered fragments). A run that was queued when the backup was taken is failed by the
sweeper after `LAB_QUEUE_TIMEOUT_S`, and can be run again.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connections
from django.utils import timezone

PG_MAGIC = b"PGDMP"  # the first bytes of a pg_dump custom-format file
SQLITE_MAGIC = b"SQLite format 3\x00"


class BackupError(Exception):
    """A backup or restore that cannot be done, said in a sentence for the operator."""


def engine(alias: str = "default") -> str:
    """'postgresql' or 'sqlite', the two databases the site runs on."""
    vendor = connections[alias].vendor
    if vendor not in ("postgresql", "sqlite"):
        raise BackupError(f"backups know PostgreSQL and SQLite, not {vendor}")
    return vendor


def default_path(alias: str = "default") -> Path:
    """`BACKUP_DIR` (default var/backups) / site-<engine>-<UTC time>.<ext>."""
    folder = Path(settings.BACKUP_DIR)
    ext = "dump" if engine(alias) == "postgresql" else "sqlite3"
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    return folder / f"site-{engine(alias)}-{stamp}.{ext}"


def back_up(path: str | Path | None = None, alias: str = "default") -> Path:
    """Write a backup of the database to `path` (made atomically: a half-written file is
    never left under the final name) and return the path."""
    path = Path(path) if path else default_path(alias)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        if engine(alias) == "postgresql":
            _run(["pg_dump", "--format=custom", "--no-owner", f"--file={partial}"], alias)
        else:
            _sqlite_copy(Path(_settings(alias)["NAME"]), partial)
        os.chmod(partial, 0o600)  # password hashes and students' names are in it
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def restore(path: str | Path, alias: str = "default") -> None:
    """Replace the database's contents with the backup at `path`.

    Refuses a file that is not a backup of this kind of database, before touching anything.
    """
    path = Path(path)
    if not path.is_file():
        raise BackupError(f"no backup at {path}")
    kind = engine(alias)
    head = _head(path)
    wanted = PG_MAGIC if kind == "postgresql" else SQLITE_MAGIC
    if not head.startswith(wanted):
        raise BackupError(
            f"{path} is not a {kind} backup (made with `manage.py backup` on this kind of database)"
        )
    connections[alias].close()  # our own session must not hold a lock the restore waits for
    if kind == "postgresql":
        _run(
            [
                "pg_restore",
                "--clean",
                "--if-exists",
                "--no-owner",
                "--single-transaction",
                "--exit-on-error",
                str(path),
            ],
            alias,
            database_flag=True,
        )
    else:
        _sqlite_copy(path, Path(_settings(alias)["NAME"]))


def _head(path: Path) -> bytes:
    with path.open("rb") as file:
        return file.read(16)


def _sqlite_copy(source: Path, target: Path) -> None:
    """Copy one SQLite database into another through the online backup API."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=20)
    dst = sqlite3.connect(target, timeout=20)
    try:
        # In one step: one read snapshot of the whole file. In WAL mode a reader does not
        # block writers, and a copy in steps would start again after each of their commits.
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def _settings(alias: str) -> dict[str, Any]:
    # The connection's own settings: under pytest-django they already name the test database.
    return connections[alias].settings_dict


def _run(command: list[str], alias: str, *, database_flag: bool = False) -> None:
    """Run pg_dump/pg_restore against the alias's database; the password goes by env."""
    db = _settings(alias)
    tool = command[0]
    if shutil.which(tool) is None:
        raise BackupError(f"{tool} is not installed (apt-get install postgresql-client)")
    env = {**os.environ}
    for key, var in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER")):
        if db.get(key):
            env[var] = str(db[key])
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = str(db["PASSWORD"])
    name = str(db["NAME"])
    args = [*command, f"--dbname={name}"] if database_flag else [*command, name]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"{tool} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
