"""How long a quick lab waits while another student's four big redrives drain.

One student (Bob) redrives four kept DLQs of ~950 messages each at once: four drains on
the heavy queue, each a chain of 20 s tasks, minutes of work for the two heavy worker
processes. Another student (Alice) then presses Run on a quick lab (`fanout`, a new seed
each time, so the result store never answers it), one run after another (while the
drains go on, one every `--every` seconds, so the samples cover their minutes). Printed: p50 /
p95 / max of submit → finished (the run's `finished_at` minus the moment before the
start call, so no polling lag), and of its queue wait (created → started), first with no
redrives, then while the drains go on. A sample counts as "during" only if the heavy
queue still held Bob's work when Alice's run finished; the script says how many did.

The site's own processes, as `./dev run` starts them: a quick worker and a heavy worker
(`nice -n 10`), two processes each, on queues of the bench's own, the real Redis, and a
database of the bench's own (SQLite by default). Runs are started through
`labs.runs.dispatch` and the redrives as the queue panel does them. Usage:

    .venv/bin/python bench/bench_fairness.py                   # about 3 minutes
    .venv/bin/python bench/bench_fairness.py --samples 5 --messages 300 --every 1
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402

TAG = uuid.uuid4().hex[:6]
QUICK, HEAVY = f"bench-quick-{TAG}", f"bench-heavy-{TAG}"
LAB = "fanout"
BINDINGS = ("binding", "binding_permanent")  # what kombu keeps per queue in the broker


def start_worker(queue: str, log: Path, *, nice: bool) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "celery", "-A", "school", "worker", "-Q", queue,
           "--concurrency=2", "--loglevel=INFO", "-n", f"{queue}@%h",
           "--without-gossip", "--without-mingle", "--without-heartbeat"]  # fmt: skip
    with log.open("w") as out:
        return subprocess.Popen(
            (["nice", "-n", "10"] if nice else []) + cmd,
            cwd=ROOT, env=os.environ.copy(), stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def park(run_pk: int, count: int) -> None:
    """Keep a DLQ of `count` parked messages for run `run_pk`, as a poison-live run does."""
    from labs.experiments.dlq import keep_dead_letters
    from labs.experiments.namespace import Namespace, connect, kept_namespace, run_key_for
    from labs.experiments.queue import RedisQueue

    r = connect(name="qlab-bench")
    scratch = Namespace(ttl_s=120)
    try:
        q = RedisQueue(r, scratch, visibility_timeout_s=0.05, max_receives=1)
        q.send_many((f"pdf-{i}", f"certificate {i}") for i in range(count))
        for m in q.receive("w", count):
            q.fail(m, "PoisonMessage('cannot be processed')", retry_after_s=0)
        if q.receive("w", count):  # this receive parks them: each was received once already
            raise SystemExit("a message came back instead of being parked")
        kept = keep_dead_letters(q, kept_namespace(run_key_for(run_pk)))
        if kept != count:
            raise SystemExit(f"parked {kept} of {count} messages")
    finally:
        scratch.cleanup(r)
        r.close()


def heavy_work_left(bobs: list) -> int:
    """Bob's messages not yet made (queued, in flight or still parked) over all his drains."""
    from labs.runs import retained_queue

    left = 0
    for run in bobs:
        snap = retained_queue.snapshot(run.pk)
        left += snap["depth"] + snap["in_flight"] + snap["dlq_depth"]
    return left


def quick_run(alice, seed: int) -> tuple[float, float, object]:
    """Start one quick run as the form does; (submit → finished s, queue wait s, run)."""
    from django.utils import timezone

    from labs.catalogue.entries import get_lab
    from labs.runs.dispatch import start_run
    from labs.runs.models import Run

    lab = get_lab(LAB)
    params = {p.name: p.default for p in lab.params}
    submitted = timezone.now()
    run = start_run(alice, lab, params, seed)
    if run.queue != QUICK:
        raise SystemExit(f"the quick lab went to {run.queue!r}, not {QUICK!r}")
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run.pk)
        if run.status in ("succeeded", "failed"):
            break
        time.sleep(0.02)
    if run.status != "succeeded":
        raise SystemExit(f"the quick run ended {run.status}: {run.error}")
    return (
        (run.finished_at - submitted).total_seconds(),
        (run.started_at - run.created_at).total_seconds(),
        run,
    )


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))]


def line(label: str, totals: list[float], waits: list[float]) -> str:
    def three(v: list[float]) -> str:
        return f"{percentile(v, 50):.2f} / {percentile(v, 95):.2f} / {max(v):.2f}"

    return f"| {label} | {len(totals)} | {three(totals)} | {three(waits)} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20, help="quick runs per phase")
    parser.add_argument("--messages", type=int, default=950, help="parked in each DLQ")
    parser.add_argument("--drains", type=int, default=4)
    parser.add_argument(
        "--one-queue",
        action="store_true",
        help="the design before the split: quick labs and drains on one queue, one worker",
    )
    parser.add_argument(
        "--every", type=float, default=4.0, help="seconds between quick runs while draining"
    )
    parser.add_argument(
        "--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench-fairness.sqlite3'}"
    )
    args = parser.parse_args()
    os.environ |= {
        "DATABASE_URL": args.database_url,
        "LAB_QUEUE": QUICK,
        "LAB_HEAVY_QUEUE": QUICK if args.one_queue else HEAVY,
        "LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER": str(max(2, args.drains)),
        "DJANGO_SETTINGS_MODULE": "school.settings",
    }
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.utils import timezone

    from labs.runs import retained_queue
    from labs.runs.dispatch import admit_drain, start_drain
    from labs.runs.models import Run

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    bob = users.get_or_create(username="bench-fair-bob")[0]
    alice = users.get_or_create(username="bench-fair-alice")[0]
    Run.objects.filter(owner__in=[bob, alice]).delete()

    logs = ROOT / "var" / f"bench-fairness-{TAG}"
    logs.mkdir(parents=True, exist_ok=True)
    workers = [start_worker(QUICK, logs / "quick.log", nice=False)]
    if not args.one_queue:
        workers.append(start_worker(HEAVY, logs / "heavy.log", nice=True))
    bobs: list = []
    print(describe())
    print(
        f"quick lab {LAB!r}; {args.drains} redrives of {args.messages} messages; "
        + (
            "one queue and one worker of 2 processes for both (--one-queue)"
            if args.one_queue
            else "workers: quick 2 processes, heavy 2 under nice 10"
        )
        + "; database "
        f"{settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}"
    )
    seed = int(time.time()) % 100_000
    try:
        quick_run(alice, seed)  # warm up: both workers up, modules imported
        idle: tuple[list[float], list[float]] = ([], [])
        for i in range(args.samples):
            total, wait, _run = quick_run(alice, seed + 1 + i)
            idle[0].append(total)
            idle[1].append(wait)

        for _ in range(args.drains):
            run = Run.objects.create(
                owner=bob, lab="poison-live", params={}, seed=0, status="succeeded",
                finished_at=timezone.now(),
            )  # fmt: skip
            park(run.pk, args.messages)
            bobs.append(run)
        for run in bobs:  # what the queue panel's "Redrive all" does, four times at once
            admit_drain(run)
            retained_queue.ask_redrive_all(run.pk)
            start_drain(run)
        redriven = time.monotonic()
        during: tuple[list[float], list[float]] = ([], [])
        after = 0
        for i in range(args.samples):
            # Spread over the drains' minutes, not all in their first second.
            time.sleep(max(0.0, redriven + i * args.every - time.monotonic()))
            total, wait, _run = quick_run(alice, seed + 1000 + i)
            if heavy_work_left(bobs):
                during[0].append(total)
                during[1].append(wait)
            else:
                after += 1
        left = heavy_work_left(bobs)
        print(
            f"{len(during[0])} of {args.samples} samples finished while Bob's drains still "
            f"had work ({left} of {args.drains * args.messages} messages left "
            f"{time.monotonic() - redriven:.0f} s after the redrives)"
        )
        print()
        print(
            "| phase | runs | submit → finished p50 / p95 / max s | queue wait p50 / p95 / max s |"
        )
        print("| --- | ---: | ---: | ---: |")
        print(line("no redrives", *idle))
        if during[0]:
            print(line(f"{args.drains} redrives draining", *during))
        if after:
            print(f"({after} samples taken after the drains ended are left out)")
        if not args.one_queue:
            heavy_in_quick = "drain_retained_queue[" in (logs / "quick.log").read_text()
            print(f"quick worker took a drain task: {'YES' if heavy_in_quick else 'no'}")
        print(f"finished {datetime.now(UTC):%H:%M} UTC; worker logs in {logs}")
    finally:
        for proc in workers:
            stop(proc)
        for run in bobs:
            retained_queue.clean_run_keys(run.pk)
        Run.objects.filter(owner__in=[bob, alice]).delete()
        forget_queues()


def forget_queues() -> None:
    """Delete the bench's queues and kombu's bindings for them from the broker."""
    import redis
    from django.conf import settings

    r = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        keys = [f"_kombu.{kind}.{q}" for q in (QUICK, HEAVY) for kind in BINDINGS]
        for q in (QUICK, HEAVY):
            keys += list(r.scan_iter(match=f"{q}*", count=1000))
        r.delete(*keys)
    finally:
        r.close()


if __name__ == "__main__":
    main()
