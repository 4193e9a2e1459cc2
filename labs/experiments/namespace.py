"""Connections and per-run key namespaces on the shared Redis server.

Thirty students run experiments on one Redis at the same time. Each run gets a random
prefix, every key under it carries a TTL, and the run deletes its prefix when it ends, so
runs never see each other's messages and a crashed run still leaves nothing behind for long.
"""

from __future__ import annotations

import os
import re
import secrets
import uuid
from typing import Any

import redis

from labs.experiments.limits import check_float

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
KEY_ROOT = "qlab"
DEFAULT_KEY_TTL_S = 900.0
_RUN_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def redis_url() -> str:
    """The server to use: `EXPERIMENT_REDIS_URL` (the site sets it: a database apart from
    Celery's broker), else `REDIS_URL`, else the local default."""
    return (
        os.environ.get("EXPERIMENT_REDIS_URL") or os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
    )


def connect(url: str | None = None, *, name: str | None = None) -> redis.Redis:
    """A client with a connection pool of its own, so one worker's dropped link stays its own.

    `name` is set with CLIENT SETNAME on every (re)connection, which lets a test find the
    connection in CLIENT LIST and kill it.
    """
    return redis.Redis.from_url(
        url or redis_url(),
        client_name=name,
        socket_connect_timeout=2.0,
        socket_timeout=5.0,
    )


class Namespace:
    """The key prefix one run owns; everything it writes lives under it and expires.

    The run id sits in a `{hash tag}`, so all of a run's keys would land on one cluster slot
    and a Lua script may touch any of them.
    """

    def __init__(self, run_id: str | None = None, *, ttl_s: float = DEFAULT_KEY_TTL_S) -> None:
        run_id = run_id or secrets.token_hex(6)
        if not _RUN_ID.match(run_id):
            raise ValueError(f"run_id must match {_RUN_ID.pattern}, got {run_id!r}")
        self.ttl_s = check_float("ttl_s", ttl_s, 1.0, 86_400.0)
        self.run_id = run_id
        self.prefix = f"{KEY_ROOT}:{{{run_id}}}:"

    @property
    def ttl_ms(self) -> int:
        """The key TTL in milliseconds, as the Lua scripts want it."""
        return int(self.ttl_s * 1000)

    def key(self, *parts: str) -> str:
        """A key of this run: the prefix plus `parts` joined by colons."""
        return self.prefix + ":".join(parts)

    def child(self, name: str) -> Namespace:
        """A sub-namespace (one of two queues in a run) that the parent's cleanup also removes."""
        if not _RUN_ID.match(name):
            raise ValueError(f"name must match {_RUN_ID.pattern}, got {name!r}")
        sub = Namespace(self.run_id, ttl_s=self.ttl_s)
        sub.prefix = f"{self.prefix}{name}:"
        return sub

    def keys(self, r: redis.Redis) -> list[str]:
        """Every key under this prefix now on the server (SCAN, so the server never blocks)."""
        # The prefix holds only [A-Za-z0-9_.-:{}], none of them glob characters, so no escaping.
        return sorted(k.decode() for k in r.scan_iter(match=self.prefix + "*", count=1000))

    def cleanup(self, r: redis.Redis) -> int:
        """Delete every key under this prefix; returns how many were removed."""
        removed = 0
        for _ in range(5):  # a straggling thread may still write once after a pass
            batch = self.keys(r)
            if not batch:
                break
            for start in range(0, len(batch), 500):
                removed += int(r.unlink(*batch[start : start + 500]))
        return removed

    def __repr__(self) -> str:
        return f"Namespace({self.prefix!r})"


# A run started from the site: its keys live under a namespace named after the run.
# Refreshed by every write, so twice the longest run (60 s): a killed run's keys are gone
# two minutes after its last write even if nobody cleans them.
RUN_KEY_TTL_S = 120.0
# How long a run's DLQ stays after the run, for the queue panel: the promise.
KEPT_DLQ_S = 3600.0
# Its keys' Redis TTL is longer by this: longer than what else the site keeps in Redis
# with a TTL (the cache's hour, the telemetry's samples' two, a live run's two minutes), so a
# full Redis under `volatile-ttl`, which evicts the keys nearest their end first, evicts
# all of those before a kept DLQ still in its hour. The hour itself is kept by the
# `ends_at` its `kept` hash records (`dlq.open_kept` treats it as gone after) and by the
# sweeper, which deletes it then (`labs.runs.retained_caps`); the TTL only ends what a
# stopped sweeper left.
KEPT_GUARD_S = 3 * 3600.0


def run_key_for(run_pk: Any) -> str:
    """The namespace id of a saved run: `run-` and its UUID's hex."""
    return f"run-{uuid.UUID(str(run_pk)).hex}"


def run_namespace(run_key: str) -> Namespace:
    """Where the experiment of run `run_key` keeps its keys while it runs."""
    return Namespace(run_key, ttl_s=RUN_KEY_TTL_S)


def kept_id(run_key: str) -> str:
    """The namespace id of run `run_key`'s kept DLQ."""
    return f"{run_key}-dlq"


def kept_namespace(run_key: str) -> Namespace:
    """Where run `run_key`'s DLQ is kept after it ends, for `KEPT_DLQ_S` (its keys'
    TTL: that and `KEPT_GUARD_S`)."""
    return Namespace(kept_id(run_key), ttl_s=KEPT_DLQ_S + KEPT_GUARD_S)
