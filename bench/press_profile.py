"""Where a computed Run press spends its CPU, in one process: POST, task, polls, render.

One student presses Run with a seed of their own (so nothing comes from the result store),
and the script plays every step a press costs the site, each timed by `time.process_time`
(CPU of this process, whatever else the machine runs):

- **post**: the Django test client's htmx POST of the lab's form (form, caps, broker
  PING, result-store look-ups, the run's row, the publish to Redis, the answer);
- **poll**: one poll of the run's fragment while the run waits (what a class's pages
  cost while the workers work);
- **task**: the Celery task's body (`execute_run`, called in this process), of which
  **run_lab** is the lab itself (params checked, the model, the JSON round trip) and the
  rest the task's wrapper (claim, lease thread, progress, `mark_succeeded`, the result
  store, followers);
- **final**: the poll that renders the finished fragment (headline, charts) and answers 286.

Usage (SQLite by default, the database `var/press_profile.sqlite3` of its own; REDIS_URL
and CACHE_REDIS_URL as for the site)::

    .venv/bin/python bench/press_profile.py --lab trapped-service --presses 40
    .venv/bin/python bench/press_profile.py --lab trapped-service --profile 20

`--profile N` prints the top-N functions (own time) of each step from cProfile.
gunicorn, Celery's own machinery and PostgreSQL add their CPU on top of these figures.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

# TREE=/path/to/another/checkout measures that code (e.g. main before a change), side by side.
ROOT = Path(os.environ.get("TREE") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # bench.burst, bench.machine
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{ROOT / 'var' / 'press_profile.sqlite3'}")

RUN_ID = re.compile(r'id="run-([0-9a-f-]{36})"')


class Steps:
    """CPU seconds per step, and optionally one cProfile per step."""

    def __init__(self, profile: bool) -> None:
        self.cpu: dict[str, list[float]] = defaultdict(list)
        self.profiles: dict[str, cProfile.Profile] = defaultdict(cProfile.Profile)
        self.profile = profile

    def timed(self, step: str, fn, *args, **kwargs):
        # run_lab runs inside the task's profile: one profiler at a time.
        prof = self.profiles[step] if self.profile and step != "run_lab" else None
        started = time.process_time()
        if prof is not None:
            prof.enable()
        try:
            return fn(*args, **kwargs)
        finally:
            if prof is not None:
                prof.disable()
            self.cpu[step].append(time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lab", default="trapped-service")
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--profile", type=int, default=0, help="top-N functions per step")
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    import labs.runs.tasks as tasks
    from bench.burst import lab_form
    from bench.machine import describe
    from labs.runs.models import Run

    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="press-profile")
    client = Client()
    client.force_login(user)
    steps = Steps(profile=bool(args.profile))

    real_run_lab = tasks.run_lab

    def run_lab(*a, **k):
        return steps.timed("run_lab", real_run_lab, *a, **k)

    tasks.run_lab = run_lab
    seed0 = int(time.time()) % 1_000_000 * 100
    try:
        for i in range(args.presses + 3):
            if i == 3:  # the first presses warm imports, templates and connections
                steps = Steps(profile=bool(args.profile))
            Run.objects.filter(owner=user).delete()  # the caps count a user's active runs
            form = lab_form(args.lab, seed0 + i)
            resp = steps.timed(
                "post", client.post, f"/labs/{args.lab}/", form, HTTP_HX_REQUEST="true"
            )
            match = RUN_ID.search(resp.content.decode())
            if resp.status_code != 200 or not match:
                raise SystemExit(f"press {i}: HTTP {resp.status_code} {resp.content[:300]!r}")
            run_id = match.group(1)
            path = f"/runs/{run_id}/"
            steps.timed("poll", client.get, path, HTTP_HX_REQUEST="true")
            outcome = steps.timed("task", tasks.execute_run, run_id)
            if outcome != "succeeded":
                raise SystemExit(f"press {i}: the task said {outcome}")
            final = steps.timed("final", client.get, path, HTTP_HX_REQUEST="true")
            if final.status_code != 286:
                raise SystemExit(f"press {i}: the final poll answered {final.status_code}")
    finally:
        tasks.run_lab = real_run_lab
        import redis

        redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(
            settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE
        )

    print(f"{describe()}; {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}")
    print(f"{args.lab}, {args.presses} computed presses, own seeds; CPU ms per step:\n")
    print("| step | median | p90 |\n| --- | --- | --- |")
    med = {k: statistics.median(v) * 1000 for k, v in steps.cpu.items()}
    for step in ("post", "poll", "task", "run_lab", "final"):
        values = sorted(steps.cpu[step])
        p90 = values[int(0.9 * (len(values) - 1))] * 1000
        print(f"| {step} | {med[step]:.1f} | {p90:.1f} |")
    wrapper = med["task"] - med["run_lab"]
    total = med["post"] + med["task"] + med["final"]
    print(f"| task wrapper (task - run_lab) | {wrapper:.1f} | |")
    print(f"| press (post + task + final, no waiting polls) | {total:.1f} | |")
    if args.profile:
        for step in ("post", "poll", "task", "final"):
            print(f"\n#### {step}: top {args.profile} by own time\n")
            stats = pstats.Stats(steps.profiles[step])
            stats.sort_stats(os.environ.get("SORT", "tottime")).print_stats(
                os.environ.get("ONLY", ""), args.profile
            )
            if os.environ.get("CALLERS"):
                stats.print_callers(os.environ["CALLERS"])


if __name__ == "__main__":
    main()
