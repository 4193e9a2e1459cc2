"""Lesson 13's poison messages on a real queue: parked in the DLQ after max_receives receives.

Ten PDF jobs go through a real queue; two of them can never be made. Every failed receive
waits out the visibility timeout, and once a poison message has been received
`max_receives` times the queue moves it to the dead-letter queue with its receive count and
last error. The lesson's figures come out exactly: 8 made, 2 parked, and 10, 14, 18
receives in all for max_receives 1, 3, 5. Afterwards the "fix" is deployed and the DLQ is
redriven at a bounded rate, and the parked jobs are made too.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from labs.experiments.context import LOCAL, ExperimentContext
from labs.experiments.dlq import keep_dead_letters, redrive_all
from labs.experiments.effects import Effects
from labs.experiments.faults import Poison
from labs.experiments.harness import ExperimentSession, finish
from labs.experiments.limits import MAX_WORKERS, check_float, check_int
from labs.experiments.metrics import Sampler, queue_reader
from labs.experiments.queue import Message, RedisQueue
from labs.experiments.workers import Handle, WorkerContext, WorkerPool

MAX_POISON_MESSAGES = 1000


def poison(
    messages: int = 10,
    poison_ids: Sequence[int] = (3, 7),
    max_receives: Sequence[int] = (1, 3, 5),
    *,
    workers: int = 2,
    visibility_timeout_s: float = 0.3,
    redrive_rate_per_s: float = 5.0,
    seed: int = 0,
    context: ExperimentContext = LOCAL,
) -> dict[str, Any]:
    """Run `messages` PDF jobs, of which `poison_ids` always fail, once per max_receives value.

    Bounds: messages 1..1000; poison_ids distinct, each in [0, messages); 1..5 values of
    max_receives, each 1..20; workers 1..32; visibility_timeout_s 0.05..5 (it must exceed
    the time a good job takes, or good jobs are received twice and the counts change);
    redrive_rate_per_s 0.1..1000, or 0 for no redrive.
    """
    check_int("messages", messages, 1, MAX_POISON_MESSAGES)
    poison_ids = list(poison_ids)
    for i in poison_ids:
        check_int("poison_ids[]", i, 0, messages - 1)
    if len(set(poison_ids)) != len(poison_ids):
        raise ValueError(f"poison_ids must be distinct, got {poison_ids}")
    max_receives = list(max_receives)
    check_int("len(max_receives)", len(max_receives), 1, 5)
    for mr in max_receives:
        check_int("max_receives[]", mr, 1, 20)
    check_int("workers", workers, 1, MAX_WORKERS)
    check_float("visibility_timeout_s", visibility_timeout_s, 0.05, 5.0)
    if redrive_rate_per_s:
        check_float("redrive_rate_per_s", redrive_rate_per_s, 0.1, 1000.0)

    ids = [f"pdf-{i}" for i in range(messages)]
    bad = Poison(ids[i] for i in poison_ids)

    with context.run(seed) as run:
        rows: list[dict[str, Any]] = []
        samples: list[dict[str, Any]] = []
        summary: dict[str, Any] = {"messages": messages, "poison": len(poison_ids)}
        for mr in max_receives:
            if run.stopped():
                break
            ns = run.ns.child(f"mr{mr}")
            queue = RedisQueue(
                run.redis, ns, visibility_timeout_s=visibility_timeout_s, max_receives=mr
            )
            made = Effects(run.redis, ns, kind="pdf_made")

            def make_handler(ctx: WorkerContext, made: Effects = made) -> Handle:
                mine = made.with_client(ctx.r)

                def handle(message: Message) -> None:
                    bad.check(message.msg_id)
                    mine.apply(message.msg_id)

                return handle

            read = queue_reader(queue, made)

            def tagged(read: Any = read, mr: int = mr) -> dict[str, Any]:
                return {"max_receives": mr} | read()

            sampler = run.own(
                Sampler(tagged, interval_s=context.interval_s(0.05), on_sample=context.on_sample)
            )
            pool = run.own(WorkerPool(queue, make_handler, workers=workers, url=context.redis_url))
            queue.send_many((i, f"certificate {i}") for i in ids)
            sampler.start(t0=run.t0)
            pool.start()
            run.settle(queue, messages, pool, sampler)
            samples += sampler.samples
            stats = queue.stats()
            parked = queue.dead_letters()
            rows.append(
                {
                    "max_receives": mr,
                    "made": stats.done,
                    "dlq": [d.msg_id for d in parked],
                    "receives": stats.receives,
                    "parked": [
                        {"id": d.msg_id, "receives": d.receives, "last_error": d.last_error}
                        for d in parked
                    ],
                    "pdf_made": made.totals()["effects"],
                    "unexpected_redeliveries": stats.receives
                    - (messages - len(parked))
                    - sum(d.receives for d in parked),
                }
            )
            summary |= {
                f"made_mr{mr}": stats.done,
                f"dlq_mr{mr}": len(parked),
                f"receives_mr{mr}": stats.receives,
            }

        redrive = _redrive_after_fix(
            run, rows, max_receives, redrive_rate_per_s, workers, context.redis_url
        )
        if context.keep_dlq is not None and rows:
            # The last count's DLQ, after any redrive: what an operator would find parked.
            last = rows[-1]["max_receives"]
            keep_dead_letters(
                RedisQueue(
                    run.redis,
                    run.ns.child(f"mr{last}"),
                    visibility_timeout_s=visibility_timeout_s,
                    max_receives=last,
                    create=False,
                ),
                context.keep_dlq,
            )
        summary |= redrive | run.footer()
        keys = ["t_s", "max_receives", "visible", "in_flight", "done", "dlq_depth", "receives"]
        result = {
            "summary": summary,
            "series": {k: [s.get(k) for s in samples] for k in keys},
            "tables": {"runs": rows},
        }
    return finish(run, result)


def _redrive_after_fix(
    run: ExperimentSession,
    rows: list[dict[str, Any]],
    max_receives: list[int],
    rate_per_s: float,
    workers: int,
    redis_url: str | None,
) -> dict[str, Any]:
    """Deploy the fix, redrive the last run's DLQ at `rate_per_s`, and let workers make them."""
    if not rate_per_s or not rows or run.stopped() or not rows[-1]["dlq"]:
        return {"redriven": 0, "made_after_redrive": rows[-1]["made"] if rows else 0}
    mr = rows[-1]["max_receives"]
    ns = run.ns.child(f"mr{mr}")
    queue = RedisQueue(run.redis, ns, max_receives=mr, create=False)
    made = Effects(run.redis, ns, kind="pdf_made")

    def make_handler(ctx: WorkerContext) -> Handle:
        # The fixed consumer: no poison check any more.
        mine = made.with_client(ctx.r)

        def handle(message: Message) -> None:
            mine.apply(message.msg_id)

        return handle

    done_before = queue.stats().done
    pool = run.own(WorkerPool(queue, make_handler, workers=workers, url=redis_url).start())
    started = time.monotonic()
    report = redrive_all(queue, rate_per_s, should_stop=run.stopped)
    target = done_before + report.moved
    run.wait_until(lambda: queue.stats().done >= target, run.max_wall_s)
    pool.stop()
    return {
        "redriven": report.moved,
        "redrive_s": round(report.duration_s, 3),
        "redrive_rate_per_s": rate_per_s,
        "made_after_redrive": queue.stats().done,
        "redrive_wall_s": round(time.monotonic() - started, 3),
    }
