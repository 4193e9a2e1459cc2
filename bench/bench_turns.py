"""How long another student's experiment waits while one student runs two long ones.

Alice presses Run on two trapped-live experiments (`horizon_s` 150: about 40 s each);
a moment later Bob presses Run on `fanout-live` (about 3 s). Printed for each round: Bob's
queue wait (created → started) and submit → finished, and when Alice's second run
finished; first on a heavy worker with turns (`LAB_EXPERIMENT_TURNS` on, the default:
labs/runs/turns.py), then on one without, side by side in one invocation. Bob alone, with
nothing else queued, is the baseline. One heavy worker of two processes under `nice -n 10`
as `./dev run` starts it, on a queue of the bench's own; the real Redis; a database of the
bench's own (SQLite by default). Runs are started through `labs.runs.dispatch.start_run`.

    .venv/bin/python bench/bench_turns.py               # about 4 minutes
    .venv/bin/python bench/bench_turns.py --rounds 1
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
HEAVY = f"bench-turns-{TAG}"
HOG: tuple[str, dict] = ("trapped-live", {"horizon_s": 150})
SHORT: tuple[str, dict] = ("fanout-live", {})


def start_worker(log: Path, *, turns: bool) -> subprocess.Popen:
    env = os.environ | {"LAB_EXPERIMENT_TURNS": "true" if turns else "false"}
    cmd = ["nice", "-n", "10", sys.executable, "-m", "celery", "-A", "school", "worker",
           "-Q", HEAVY, "--concurrency=2", "--loglevel=INFO", "-n", f"{HEAVY}@%h",
           "--without-gossip", "--without-mingle", "--without-heartbeat"]  # fmt: skip
    with log.open("w") as out:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + 120
    while " ready." not in log.read_text():
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit(f"the worker did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.2)
    return proc


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def start(user, which: tuple[str, dict], seed: int):
    from labs.catalogue.entries import get_lab
    from labs.runs.dispatch import start_run

    slug, changes = which
    lab = get_lab(slug)
    assert lab is not None
    params = {p.name: p.default for p in lab.params} | changes
    run = start_run(user, lab, params, seed)
    if run.queue != HEAVY:
        raise SystemExit(f"{slug} went to {run.queue!r}, not {HEAVY!r}")
    return run


def finished(runs: list, timeout_s: float = 600) -> list:
    from labs.runs.models import Run

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        fresh = [Run.objects.get(pk=run.pk) for run in runs]
        if all(r.status in ("succeeded", "failed") for r in fresh):
            bad = [r for r in fresh if r.status != "succeeded"]
            if bad:
                raise SystemExit(f"a run ended {bad[0].status}: {bad[0].error}")
            return fresh
        time.sleep(0.1)
    raise SystemExit("runs did not finish in time")


def round_(alice, bob, seed: int) -> tuple[float, float, float]:
    """(Bob's wait, Bob's submit → finished, Alice's first submit → her second finished)."""
    from django.utils import timezone

    alice_at = timezone.now()
    alices = [start(alice, HOG, seed), start(alice, HOG, seed + 1)]
    time.sleep(3)  # Bob presses a moment later, as in the reproduction
    bob_at = timezone.now()
    (bobs,) = finished([start(bob, SHORT, seed + 2)])
    alices = finished(alices)
    return (
        (bobs.started_at - bobs.created_at).total_seconds(),
        (bobs.finished_at - bob_at).total_seconds(),
        (max(r.finished_at for r in alices) - alice_at).total_seconds(),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench-turns.sqlite3'}"
    )
    args = parser.parse_args()
    os.environ |= {
        "DATABASE_URL": args.database_url,
        "LAB_QUEUE": HEAVY,
        "LAB_HEAVY_QUEUE": HEAVY,
        "DJANGO_SETTINGS_MODULE": "school.settings",
    }
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from labs.runs.models import Run

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    alice = users.get_or_create(username="bench-turns-alice")[0]
    bob = users.get_or_create(username="bench-turns-bob")[0]
    Run.objects.filter(owner__in=[alice, bob]).delete()
    logs = ROOT / "var" / f"bench-turns-{TAG}"
    logs.mkdir(parents=True, exist_ok=True)
    print(describe())
    print(f"Alice: 2 × {HOG[0]} {HOG[1]}; Bob: {SHORT[0]} 3 s later; heavy worker 2 processes")
    print()
    print("| heavy worker | round | Bob's wait | Bob submit → finished | Alice's two done after |")
    print("| --- | ---: | ---: | ---: | ---: |")
    seed = int(time.time()) % 100_000
    try:
        for turns in (True, False):
            worker = start_worker(logs / f"turns-{turns}.log", turns=turns)
            try:
                name = "turns on" if turns else "turns off (before)"
                (alone,) = finished([start(bob, SHORT, seed)])
                wait = (alone.started_at - alone.created_at).total_seconds()
                took = (alone.finished_at - alone.created_at).total_seconds()
                print(f"| {name} | Bob alone | {wait:.1f} s | {took:.1f} s | — |")
                for n in range(args.rounds):
                    seed += 10
                    bob_wait, bob_total, alice_total = round_(alice, bob, seed)
                    print(
                        f"| {name} | {n + 1} | {bob_wait:.1f} s | {bob_total:.1f} s "
                        f"| {alice_total:.1f} s |",
                        flush=True,
                    )
            finally:
                stop(worker)
        print(f"finished {datetime.now(UTC):%H:%M} UTC; worker logs in {logs}")
    finally:
        Run.objects.filter(owner__in=[alice, bob]).delete()
        forget_queue()


def forget_queue() -> None:
    import redis
    from django.conf import settings

    r = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        keys = [f"_kombu.{kind}.{HEAVY}" for kind in ("binding", "binding_permanent")]
        keys += list(r.scan_iter(match=f"{HEAVY}*", count=1000))
        r.delete(*keys)
    finally:
        r.close()


if __name__ == "__main__":
    main()
