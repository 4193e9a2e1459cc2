"""The experiment's live state: one sample a second, kept in Redis and announced.

The worker that turns the service writes each sample three ways: appended to `timeline`
(the run's record), SET as `state` (one small JSON every poller reads: no database) and
PUBLISHed on `channel(run_key)` (for a Server-Sent Events stream). Django-free.
"""

from __future__ import annotations

import json
from typing import Any

import redis

from classlab.jobs import Jobs
from classlab.storm import Storm
from labs.experiments.namespace import Namespace

SAMPLE_EVERY_MS = 1000
TTL_S = 900.0  # refreshed by every write; an experiment ends within 10 minutes


def namespace(run_key: str) -> Namespace:
    return Namespace(run_key, ttl_s=TTL_S)


def channel(run_key: str) -> str:
    return f"classlab:live:{run_key}"


def state_key(run_key: str) -> str:
    return namespace(run_key).key("state")


def storm_sample(storm: Storm, before: dict[str, int], t_s: float) -> dict[str, Any]:
    """What happened in the last second, and the service's state now."""
    counts, cfg, reading = storm.counts(), storm.settings(), storm.reading()

    def new(name: str) -> int:
        return counts[name] - before.get(name, 0)

    return {
        "t": round(t_s, 1),
        "original": new("original"),
        "retry": new("retry"),
        "goodput": new("served_ok"),
        "late": new("served_late"),
        "timeouts": new("expired"),
        "refused": new("failed"),
        "dropped": new("dropped"),
        "fast_fail": new("fast_fail"),
        "backlog": reading["backlog"],
        "oldest_ms": reading["oldest_ms"],
        "busy": reading["busy"],
        "breakers_open": reading["breakers_open"],
        "breakers_half_open": reading["breakers_half_open"],
        "breakers_closed": reading["breakers_closed"],
        "trapped": reading["oldest_ms"] >= cfg["timeout_ms"],
        "policy": cfg["policy"],
        "spike": cfg["spike"],
        "slow": cfg["slow"],
        "admission": cfg["admission"],
        "drop_expired": cfg["drop_expired"],
        "pace_per_min": cfg["pace_per_min"],
        "slots": cfg["slots"],
        "service_ms": cfg["service_ms"],
        "timeout_ms": cfg["timeout_ms"],
        "totals": counts,
    }


def jobs_sample(jobs: Jobs, before: dict[str, int], t_s: float) -> dict[str, Any]:
    reading, cfg = jobs.reading(), jobs.settings()
    counts = jobs.counts()
    return {
        "t": round(t_s, 1),
        "arrived": counts["arrived"] - before.get("arrived", 0),
        "acked": counts["acked"] - before.get("acked", 0),
        "visible": reading["visible"],
        "in_flight": reading["in_flight"],
        "oldest_ms": reading["oldest_ms"],
        "redeliveries": reading["redeliveries"],
        "dlq": reading["dlq"],
        "charged": counts["charged"],
        "duplicates_caught": counts["duplicates_caught"],
        "visibility_ms": cfg["visibility_ms"],
        "receive_limit": cfg["receive_limit"],
        "arrivals_per_min": cfg["arrivals_per_min"],
        "work_ms": cfg["work_ms"],
        "totals": counts,
    }


def publish(r: redis.Redis, run_key: str, sample: dict[str, Any], *, status: str) -> None:
    """Keep the sample in the timeline, make it the current state, announce it."""
    ns = namespace(run_key)
    body = json.dumps({**sample, "status": status})
    pipe = r.pipeline()
    pipe.rpush(ns.key("timeline"), json.dumps(sample))
    pipe.pexpire(ns.key("timeline"), ns.ttl_ms)
    pipe.set(ns.key("state"), body, px=ns.ttl_ms)
    pipe.publish(channel(run_key), body)
    pipe.execute()


def announce(r: redis.Redis, run_key: str, state: dict[str, Any], *, status: str) -> None:
    """Make `state` the current state and announce it now, without adding a sample.

    For changes that happen between samples (the teacher's move, the start, a phone joining):
    announced the moment they happen, not at the worker's next sample. The timeline keeps
    only the worker's one-a-second samples, so a move never counts a second twice.
    """
    ns = namespace(run_key)
    body = json.dumps({**state, "status": status})
    pipe = r.pipeline()
    pipe.set(ns.key("state"), body, px=ns.ttl_ms)
    pipe.publish(channel(run_key), body)
    pipe.execute()


def current(r: redis.Redis, run_key: str) -> dict[str, Any] | None:
    raw = r.get(state_key(run_key))
    return json.loads(raw) if raw else None


def timeline(r: redis.Redis, run_key: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in r.lrange(namespace(run_key).key("timeline"), 0, -1)]


def add_move(r: redis.Redis, run_key: str, move: dict[str, Any]) -> None:
    """A teacher's move (spike on, policy flipped), for the timeline's notes."""
    key = namespace(run_key).key("moves")
    r.rpush(key, json.dumps(move))
    r.pexpire(key, namespace(run_key).ttl_ms)


def moves(r: redis.Redis, run_key: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in r.lrange(namespace(run_key).key("moves"), 0, -1)]


def stop(r: redis.Redis, run_key: str) -> None:
    """Ask the worker to end the experiment at its next turn."""
    r.set(namespace(run_key).key("stop"), "1", px=namespace(run_key).ttl_ms)


def stopping(r: redis.Redis, run_key: str) -> bool:
    return bool(r.exists(namespace(run_key).key("stop")))
