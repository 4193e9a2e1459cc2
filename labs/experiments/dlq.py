"""Operating the dead-letter queue: look, redrive one, redrive all at a bounded rate, purge.

Redriving everything at once would hand the fixed consumer the whole backlog in one go, the
same burst that may have broken it. So `redrive_all` moves messages through a small token
bucket: at most `rate_per_s` per second, like SQS's message move task with a maximum velocity.

`copy_dead_letters` keeps a run's parked messages after the run: the run's own keys are all
deleted when it ends, so the DLQ is first copied into a queue of another namespace (with a
TTL of its own), where an operator can still look at it and redrive it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import redis

from labs.experiments.limits import check_float, check_int
from labs.experiments.namespace import KEPT_DLQ_S, Namespace
from labs.experiments.queue import RedisQueue

COPY_CHUNK = 200

# KEYS: dlq, dlq index. ARGV: ttl_ms, then (entry id, msg_id, body, receives, error, sent_ms)
# sextets. A message already parked in the target is skipped, so copying twice is harmless.
_PARK_COPIES = """
local n = 0
for i = 2, #ARGV, 6 do
  local m = ARGV[i + 1]
  if redis.call('HEXISTS', KEYS[2], m) == 0 then
    local f = {'m', m, 'b', ARGV[i + 2], 'r', ARGV[i + 3], 'e', ARGV[i + 4], 's', ARGV[i + 5]}
    -- Keep the original entry id (the time it was parked) when the target allows it.
    local ok = redis.pcall('XADD', KEYS[1], ARGV[i], unpack(f))
    if type(ok) == 'table' and ok.err then ok = redis.call('XADD', KEYS[1], '*', unpack(f)) end
    redis.call('HSET', KEYS[2], m, ok)
    n = n + 1
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return n
"""


@dataclass
class RedriveReport:
    """What a redrive moved, and when (seconds from its start)."""

    moved: int = 0
    duration_s: float = 0.0
    stopped: bool = False
    moves: list[tuple[float, str]] = field(default_factory=list)  # (t_s, msg_id)

    @property
    def rate_per_s(self) -> float:
        """The achieved rate over the whole redrive."""
        return self.moved / self.duration_s if self.duration_s > 0 else 0.0


def redrive_all(
    queue: RedisQueue,
    rate_per_s: float,
    *,
    burst: float | None = None,
    limit: int | None = None,
    should_stop: Callable[[], bool] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> RedriveReport:
    """Move every parked message back to the source queue, never faster than `rate_per_s`.

    A token bucket holding at most `burst` tokens (default: 1, or 50 ms worth of the rate if
    that is more): in any window of w seconds at most `burst + rate_per_s * w` messages move,
    even after a pause, because tokens do not pile up beyond the bucket. `limit` moves at
    most that many: the DLQ as it was when the operator asked, so messages that fail again
    and come back to the DLQ meanwhile are not redriven round and round.
    """
    rate_per_s = check_float("rate_per_s", rate_per_s, 0.1, 10_000.0)
    if limit is not None:
        check_int("limit", limit, 0, 10_000_000)
    burst = check_float("burst", burst or max(1.0, rate_per_s / 20), 1.0, 1000.0)
    report = RedriveReport()
    start = last = clock()
    tokens = 1.0
    while True:
        if should_stop is not None and should_stop():
            report.stopped = True
            break
        now = clock()
        tokens = min(burst, tokens + (now - last) * rate_per_s)
        last = now
        if tokens < 1:
            if queue.dlq_depth() == 0:
                break
            sleep((1 - tokens) / rate_per_s)
            continue
        want = int(tokens)
        if limit is not None:
            want = min(want, limit - report.moved)
            if want <= 0:
                break
        moved = queue.redrive_oldest(want)
        tokens -= len(moved)
        t_s = clock() - start
        report.moves += [(round(t_s, 4), msg_id) for msg_id, _ in moved]
        report.moved += len(moved)
        if len(moved) < want:
            break  # the DLQ is empty
    report.duration_s = clock() - start
    return report


def copy_dead_letters(source: RedisQueue, target: RedisQueue) -> int:
    """Copy every message parked in `source`'s DLQ into `target`'s DLQ; returns how many.

    Each keeps its id, body, receive count, last error and the time it was parked. The copy
    is read from `source` in slices and written to `target` one slice per script, so it is
    meant for a source nobody is writing to any more (a run whose workers have stopped).
    `target` may live under another namespace (another hash tag): no script touches both.
    """
    park = target.r.register_script(_PARK_COPIES)
    copied = 0
    start = "-"
    while True:
        entries = source.r.xrange(source.dlq, min=start, count=COPY_CHUNK)
        if not entries:
            break
        args: list[str | int] = [target.ns.ttl_ms]
        for entry_id, f in entries:
            args += [entry_id.decode(), f[b"m"], f[b"b"], f[b"r"], f[b"e"], f[b"s"]]
        copied += int(park(keys=[target.dlq, target.dlq_index], args=args))
        if len(entries) < COPY_CHUNK:
            break
        start = "(" + entries[-1][0].decode()
    return copied


def keep_dead_letters(queue: RedisQueue, into: Namespace, *, keep_for_s: float = KEPT_DLQ_S) -> int:
    """Make a queue under `into` with `queue`'s rules and copy `queue`'s DLQ into it.

    What an experiment calls just before its run's keys are deleted, so the parked
    messages outlive the run for `keep_for_s` (or `into`'s TTL, if shorter). The rules go
    in a `kept` hash written once and never refreshed, with the moment the kept queue ends
    (`ends_at`, epoch seconds); its TTL is when its keys go, whatever is done to it
    meanwhile (see `open_kept`). Returns how many messages were kept.
    """
    kept = RedisQueue(
        queue.r,
        into,
        visibility_timeout_s=queue.visibility_timeout_s,
        max_receives=queue.max_receives,
        retention_s=queue.retention_s,
    )
    copied = copy_dead_letters(queue, kept)
    queue.r.hset(
        into.key("kept"),
        mapping={
            "visibility_timeout_s": queue.visibility_timeout_s,
            "max_receives": queue.max_receives,
            "retention_s": queue.retention_s,
            "kept": copied,
            "ends_at": round(time.time() + min(keep_for_s, into.ttl_s), 3),
        },
    )
    queue.r.pexpire(into.key("kept"), into.ttl_ms)
    return copied


def kept_left_s(rules: dict[str, str], ttl_left_ms: int) -> float:
    """Seconds a kept queue has left of its promised time (its `kept` hash's `ends_at`;
    a queue kept before `ends_at` was recorded: its keys' TTL)."""
    if "ends_at" in rules:
        return float(rules["ends_at"]) - time.time()
    return ttl_left_ms / 1000


def kept_time_left_s(r: redis.Redis, run_id: str) -> float | None:
    """What `kept_left_s` says of the queue kept under namespace `run_id` (None: none)."""
    ns = Namespace(run_id)
    rules = {k.decode(): v.decode() for k, v in r.hgetall(ns.key("kept")).items()}
    if not rules:
        return None
    return kept_left_s(rules, r.pttl(ns.key("kept")))


def open_kept(
    r: redis.Redis, run_id: str, *, visibility_timeout_s: float | None = None
) -> RedisQueue | None:
    """The queue `keep_dead_letters` made under namespace `run_id`, or None once it expired.

    The namespace it is opened with has the TTL the kept queue has left, so nothing done
    to it (a redrive, a drain) keeps any of its keys beyond that moment. A consumer with
    other timing than the experiment's may give its own `visibility_timeout_s`.
    """
    ns = Namespace(run_id)
    rules = {k.decode(): v.decode() for k, v in r.hgetall(ns.key("kept")).items()}
    left_ms = r.pttl(ns.key("kept"))
    if not rules or left_ms < 1000 or kept_left_s(rules, left_ms) < 1:
        return None
    # Writes keep the keys' own end (past the promised one: see KEPT_GUARD_S).
    ns.ttl_s = left_ms / 1000
    return RedisQueue(
        r,
        ns,
        visibility_timeout_s=visibility_timeout_s or float(rules["visibility_timeout_s"]),
        max_receives=int(rules["max_receives"]),
        retention_s=float(rules["retention_s"]),
        create=False,
    )
