"""What watching the queues costs, and how fast a Run is refused with no worker.

In one process, against a database of the bench's own (SQLite in var/, or
`--database-url`) and the real Redis under a telemetry prefix and queues of its own:

1. idle: the sampler ticks once a second for `--seconds`; CPU time of the ticks
   (`time.process_time` around each tick) over the wall time = share of one core;
2. a 100-student burst: 100 runs queued at once, then taken and finished 20 a second (the
   bench writes the rows between ticks; only the ticks are timed), as a class burst leaves
   them in the runs table;
3. refusal: with no worker beating, a student's Run press (Django's test client, the
   whole view) timed 20 times.

    .venv/bin/python bench/bench_telemetry.py [--seconds 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# The drain lab's form as a student sends it (tests/labs/web/test_views.py's GOOD).
DRAIN_FORM = {
    "arrivals": "50, 800, 800, 800, 200, 50, 50, 50, 50, 50", "per_worker": "100",
    "rule": "backlog", "fixed_workers": "3", "per_waiting": "100", "min_workers": "1",
    "max_workers": "10",
}  # fmt: skip


def setup(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ["TELEMETRY_PREFIX"] = f"bench-telemetry-{uuid.uuid4().hex[:6]}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def tick_cpu(sampler, seconds: int, between=None) -> tuple[float, float]:
    """(CPU share of one core, mean ms per tick) of ticking once a second."""
    cpu = 0.0
    started = time.monotonic()
    for i in range(seconds):
        if between:
            between(i)
        t0 = time.process_time()
        sampler.tick()
        cpu += time.process_time() - t0
        time.sleep(max(0.0, started + i + 1 - time.monotonic()))
    wall = time.monotonic() - started
    return cpu / wall, 1000 * cpu / seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--database-url", default=f"sqlite:///{ROOT}/var/bench-telemetry.sqlite3")
    args = parser.parse_args()
    setup(args.database_url)

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.utils import timezone

    from labs.runs import telemetry_store
    from labs.runs.models import Run
    from labs.runs.telemetry import Sampler

    tag = uuid.uuid4().hex[:6]
    settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE = f"bench-quick-{tag}", f"bench-heavy-{tag}"
    user, _ = get_user_model().objects.get_or_create(username=f"bench-{tag}")
    Run.objects.filter(owner__username__startswith="bench-").delete()
    sampler = Sampler()

    share, ms = tick_cpu(sampler, args.seconds)
    print(f"idle: {100 * share:.2f}% of a core ({ms:.1f} ms CPU per tick, {args.seconds} ticks)")

    runs = [
        Run(owner=user, lab="drain", params={}, seed=i, queue=settings.LAB_QUEUE)
        for i in range(100)
    ]
    Run.objects.bulk_create(runs)

    def drain(i: int) -> None:
        now = timezone.now()
        batch = [r.pk for r in runs[20 * i : 20 * (i + 1)]]
        Run.objects.filter(pk__in=batch).update(
            status="succeeded", started_at=now - timedelta(seconds=0.2), finished_at=now,
            attempts=1,
        )  # fmt: skip

    share, ms = tick_cpu(sampler, args.seconds, between=drain)
    print(f"burst of 100: {100 * share:.2f}% of a core ({ms:.1f} ms CPU per tick)")

    sampler.tick()  # no worker beats: the snapshot says none is alive
    client = Client()
    client.force_login(user)
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        response = client.post("/labs/drain/", DRAIN_FORM, HTTP_HX_REQUEST="true")
        times.append(time.perf_counter() - t0)
        assert response.status_code == 503, response.status_code
    statuses = {response.status_code}
    print(
        f"refused with no worker: median {1000 * statistics.median(times):.0f} ms, "
        f"max {1000 * max(times):.0f} ms (HTTP {statuses})"
    )
    Run.objects.filter(owner=user).delete()
    r = telemetry_store.client()
    keys = list(r.scan_iter(match=f"{settings.TELEMETRY_PREFIX}:*"))
    if keys:
        r.delete(*keys)


if __name__ == "__main__":
    main()
