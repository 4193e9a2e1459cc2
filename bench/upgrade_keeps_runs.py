"""`./dev upgrade` loses no queued run: shown on a machine where the site runs as a service.

Run as root where `./dev install-service` installed the units (systemd running):

    .venv/bin/python bench/upgrade_keeps_runs.py [--runs 10]

It freezes the quick workers (SIGSTOP: a class's runs now wait in the queue), starts N runs of the
drain lab for a user of its own, deletes half of their messages from Redis (as a Redis
restart without persistence would: the rows stay queued, the doorbells are gone), then runs
`./dev upgrade --no-pull` (install, collectstatic, migrate, restart every unit, which
starts the workers again). It prints each run's state until all have ended: every one
should succeed, the lost ones sent again by the sweeper (`resent_at` set).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = os.environ.get("SERVICE_NAME", "queues-lab")


def load_service_env() -> None:
    for line in Path(f"/etc/{NAME}/env").read_text().splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            os.environ[key.strip()] = value.strip().strip('"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    load_service_env()
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from labs.catalogue.entries import get_lab
    from labs.runs import redis_clients
    from labs.runs.dispatch import start_runs
    from labs.runs.models import Run
    from labs.runs.telemetry import PRIORITY_SUFFIXES

    # Frozen, not stopped: the workers still count as up (a run is refused with none), but
    # take nothing from the queue, as when every one is busy. The upgrade's restart ends them.
    subprocess.run(["systemctl", "kill", "-s", "SIGCONT", f"{NAME}-quick@*.service"], check=True)
    subprocess.run(["systemctl", "start", f"{NAME}-quick@1.service"], check=True)
    time.sleep(15)  # its heartbeat is written
    subprocess.run(["systemctl", "kill", "-s", "SIGSTOP", f"{NAME}-quick@*.service"], check=True)
    lab = get_lab("drain")
    assert lab is not None
    count = max(1, min(args.runs, 50))
    seed = int(time.time())  # runs never run before: each one computes
    runs = []
    for i in range(count):  # a student each: one may have only a few runs going
        user, _ = get_user_model().objects.get_or_create(username=f"upgrade-bench-{i}")
        runs += start_runs(user, lab, [(lab.defaults(), seed + i)])
    ids = [run.pk for run in runs]
    time.sleep(1.0)  # published after commit
    broker = redis_clients.broker()
    queue = os.environ.get("LAB_QUEUE", "labs")
    removed = 0
    for name in [queue + suffix for suffix in ("", *PRIORITY_SUFFIXES)]:
        for raw in broker.lrange(name, 0, -1):
            if removed < count // 2 and any(str(pk).encode() in raw for pk in ids):
                removed += broker.lrem(name, 1, raw)
    print(f"{count} runs queued with the quick workers frozen; {removed} messages deleted")
    started = time.monotonic()
    done = subprocess.run(["./dev", "upgrade", "--no-pull"], capture_output=True, text=True)
    print(f"./dev upgrade --no-pull: rc {done.returncode} in {time.monotonic() - started:.1f} s")
    if done.returncode:
        print(done.stdout[-2000:], done.stderr[-2000:])
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        states = list(Run.objects.filter(pk__in=ids).values_list("status", "resent_at"))
        if all(status in {"succeeded", "failed"} for status, _ in states):
            break
        time.sleep(1.0)
    ok = sum(status == "succeeded" for status, _ in states)
    resent = sum(resent_at is not None for _, resent_at in states)
    print(
        f"after the upgrade: {ok} of {count} succeeded, {resent} sent again by the sweeper, "
        f"{count - ok} not succeeded; {time.monotonic() - started:.1f} s from the upgrade's start"
    )


if __name__ == "__main__":
    main()
