"""What a computed run costs a real Celery worker, and the database it talks to.

`bench/draft_profile.py` times the task in the script's own process; a worker also pays
Celery's own machinery (the message, the prefork pool's hand-over, the ack). This starts one
quick worker (prefork, one child) on a queue of its own, sends it `--runs` computed runs of
`--lab` (drafts with seeds nobody has run, as a class dragging with its own seeds makes
them), waits for them, and prints per run: the worker's CPU (parent and child, from /proc),
the CPU of the PostgreSQL processes serving the database meanwhile (on this machine; the
script's own connection left out), and the task's CPU in this process for comparison.

    # TREE=/path/to/another/checkout measures that code (main before a change), in turns
    nice -n 10 .venv/bin/python bench/worker_cost.py \\
        --database-url postgres://postgres@127.0.0.1:5432/bench_worker_cost --runs 200

Give REDIS_URL a database of its own on a shared Redis (the broker's queue is named for the
script's process). The worker keeps its database connection (`DB_CONN_MAX_AGE=60`, as
`./dev serve` runs it).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(os.environ.get("TREE") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # bench.machine
os.chdir(ROOT)
TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int, *, children: bool = False) -> float:
    """CPU seconds of a process (and of its children, waited for or not), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return ticks * TICK_S + sum(cpu_s(int(kid), children=True) for kid in kids)
    return ticks * TICK_S


def database_cpu_s() -> float:
    """CPU seconds of the processes serving this database, this script's own left out."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return 0.0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        pids = [row[0] for row in cursor.fetchall()]
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):  # gone meanwhile, or another machine's
            total += cpu_s(pid)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--lab", choices=("trapped-service", "drain"), default="trapped-service")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    queue = f"bench-worker-cost-{os.getpid()}"
    os.environ |= {
        "DATABASE_URL": args.database_url,
        "LAB_QUEUE": queue,
        "LAB_HEAVY_QUEUE": f"{queue}-heavy",
        "DB_CONN_MAX_AGE": "60",
        "DJANGO_SETTINGS_MODULE": "school.settings",
    }
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from bench.machine import describe
    from labs.catalogue.entries import get_lab
    from labs.runs.models import Run
    from labs.runs.result_store import result_key
    from labs.runs.tasks import execute_run

    call_command("migrate", verbosity=0)
    lab = get_lab(args.lab)
    assert lab is not None
    user, _ = get_user_model().objects.get_or_create(username="bench-worker-cost")
    params = lab.defaults()
    base = int(time.time()) % 100_000 * 1_000  # seeds (or drain's values) nobody has run

    def make(i: int) -> Run:
        values, seed = params, base + i
        if args.lab == "drain":  # drain draws nothing at random: a new per_worker instead
            values, seed = {**params, "per_worker": 1 + (base + i) % 100_000}, 0
        return Run.objects.create(
            owner=user,
            lab=lab.slug,
            params=values,
            seed=seed,
            draft=True,
            queue=queue,
            result_key=result_key(lab, values, seed),
        )

    def send_and_wait(runs: list[Run]) -> None:
        for run in runs:
            execute_run.apply_async(args=(str(run.pk),), queue=queue)
        ids = [run.pk for run in runs]
        while Run.objects.filter(pk__in=ids, status__in=("queued", "running")).exists():
            time.sleep(0.2)

    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "school", "worker", "-Q", queue]
        + ["--concurrency=1", "--loglevel=INFO", "-n", f"{queue}@%h"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(8)  # started, its child forked
        send_and_wait([make(i) for i in range(10)])  # imports, connections, caches
        runs = [make(100 + i) for i in range(args.runs)]
        db_before, worker_before, started = (
            database_cpu_s(),
            cpu_s(worker.pid, children=True),
            time.time(),
        )
        send_and_wait(runs)
        worker_s = cpu_s(worker.pid, children=True) - worker_before
        db_s, took_s = database_cpu_s() - db_before, time.time() - started
        done = Run.objects.filter(pk__in=[r.pk for r in runs], status="succeeded").count()
        here = []
        for i in range(40):
            run = make(10_000 + i)
            before = time.process_time()
            execute_run.run(str(run.pk))
            here.append(time.process_time() - before)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(30)
        Run.objects.filter(owner=user).delete()
    print(f"{describe()}; tree {ROOT}")
    print(
        f"{args.lab}: {done} of {args.runs} computed runs succeeded in {took_s:.1f} s; per run, "
        f"the worker {1000 * worker_s / args.runs:.1f} ms of CPU (parent and child), "
        f"PostgreSQL {1000 * db_s / args.runs:.1f} ms; "
        f"the task in this process {1000 * statistics.median(here):.1f} ms (median of 40)"
    )


if __name__ == "__main__":
    main()
