"""Where a computed draft spends its CPU, in one process: the post, the task, the answer.

One student moves drain's `per_worker` to values nobody has run (so every draft is
computed; `--lab trapped-service`: each draft with a seed nobody has run), and the script
plays what a draft costs the web and the worker, each step timed by `time.process_time`
(CPU of this process, whatever else the machine runs) with its database queries counted:

- **post**: the Django test client's htmx POST of the form to `/labs/drain/draft/`, with
  an `Idempotency-Key` as the page sends it (form, caps, the result store, the run's row,
  the publish, the wait for the end, the finished body with its charts);
- **task**: the Celery task's body (`execute_run`), run in this process where the post
  publishes it (so the post finds its run finished, as it does when a worker is quick).

`--stored`: the drafts of a class dragging one slider instead, nearly all answered by the
result store: the values are computed once first (not measured), then posted again, by
another student (as a classmate's drag comes to them), so each post is a store-answered
draft (no task).

On PostgreSQL, the CPU of the database's own process serving this script's connection is
measured per step too (from /proc, in clock ticks of 10 ms: a mean over the drafts, so run
60 or more); Redis's is not (bench/drag.py measures every role), nor gunicorn's or Celery's
own machinery. Usage (REDIS_URL and CACHE_REDIS_URL as for the site):

    .venv/bin/python bench/draft_profile.py \
        --database-url postgres://postgres@127.0.0.1:5432/bench_draft_profile --drafts 60
    .venv/bin/python bench/draft_profile.py ... --profile 25   # cProfile's top 25 a step
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
import uuid
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlencode

# TREE=/path/to/another/checkout measures that code (e.g. main before a change), side by side.
ROOT = Path(os.environ.get("TREE") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # bench.burst, bench.machine
os.chdir(ROOT)  # Celery puts the working folder first on the path: that tree's, then
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")

RUN_ID = re.compile(r'id="run-([0-9a-f-]{36})"')


class Steps:
    """CPU seconds and queries per step, and optionally one cProfile per step."""

    def __init__(self, profile: bool) -> None:
        self.cpu: dict[str, list[float]] = defaultdict(list)
        self.queries: dict[str, list[int]] = defaultdict(list)
        # Timed by CPU, not the clock: a wait for PostgreSQL or Redis is no cost here.
        self.profiles: dict[str, cProfile.Profile] = defaultdict(
            lambda: cProfile.Profile(time.process_time)
        )
        self.profile = profile
        self.inside: str | None = None
        self.last_sql: dict[str, list[str]] = {}
        self.db_cpu: dict[str, list[float]] = defaultdict(list)

    def timed(self, step: str, fn, *args, **kwargs):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        outer, self.inside = self.inside, step
        if outer is not None and self.profile:
            self.profiles[outer].disable()  # one profiler at a time
        prof = self.profiles[step] if self.profile else None
        db_started = _database_cpu_s(connection)
        started = time.process_time()
        with CaptureQueriesContext(connection) as queries:
            if prof is not None:
                prof.enable()
            try:
                return fn(*args, **kwargs)
            finally:
                if prof is not None:
                    prof.disable()
                self.cpu[step].append(time.process_time() - started)
                self.db_cpu[step].append(_database_cpu_s(connection) - db_started)
                self.queries[step].append(len(queries.captured_queries))
                self.last_sql[step] = [q["sql"][:110] for q in queries.captured_queries]
                self.inside = outer
                if outer is not None:
                    # The outer step's own figures leave this one out.
                    self.cpu[outer].append(-self.cpu[step][-1])
                    self.db_cpu[outer].append(-self.db_cpu[step][-1])
                    self.queries[outer].append(-self.queries[step][-1])
                    if self.profile:
                        self.profiles[outer].enable()


def _database_cpu_s(connection) -> float:
    """CPU seconds so far of the PostgreSQL process serving `connection` (0 elsewhere)."""
    if connection.vendor != "postgresql" or connection.connection is None:
        return 0.0
    try:
        stat = Path(f"/proc/{connection.connection.info.backend_pid}/stat").read_text()
    except OSError:  # another machine's database: not measured
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=f"sqlite:///{ROOT / 'var' / 'drafts.sqlite3'}")
    parser.add_argument("--drafts", type=int, default=60)
    parser.add_argument(
        "--lab",
        choices=("drain", "trapped-service"),
        default="drain",
        help="drain: a new per_worker each draft; trapped-service: a new seed each draft",
    )
    parser.add_argument("--profile", type=int, default=0, help="top-N functions per step")
    parser.add_argument("--sql", action="store_true", help="the last draft's queries")
    parser.add_argument(
        "--stored", action="store_true", help="drafts the result store answers (module doc)"
    )
    args = parser.parse_args()
    if args.stored and args.lab != "drain":
        parser.error("--stored drags drain's per_worker: use it with --lab drain")
    os.environ["DATABASE_URL"] = args.database_url

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    import labs.runs.dispatch as dispatch
    import labs.runs.tasks as tasks
    from bench.burst import lab_form
    from bench.machine import describe
    from labs.runs.models import Run

    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="draft-profile")
    client = Client()
    client.force_login(user)
    client.get(f"/labs/{args.lab}/")
    base = int(time.time()) % 10_000 * 10  # values nobody has run: every draft computed
    stored = 20  # --stored: the values the class's drag passes, computed once
    if args.stored:
        first = Client()
        classmate, _ = get_user_model().objects.get_or_create(username="draft-profile-2")
        first.force_login(classmate)
        dispatch.publish = lambda run, lab: tasks.execute_run(str(run.pk)) == "succeeded"
        for i in range(stored):
            form = lab_form("drain", None) | {"per_worker": str(1 + base + i)}
            first.post("/labs/drain/draft/", form, HTTP_HX_REQUEST="true")
    steps = Steps(profile=bool(args.profile))

    def run_at_once(run, lab) -> bool:
        outcome = steps.timed("task", tasks.execute_run, str(run.pk))
        if outcome != "succeeded":
            raise SystemExit(f"the task said {outcome}")
        return True

    dispatch.publish = run_at_once
    warm = 5
    per: defaultdict[str, list[int]] = defaultdict(list)
    for i in range(args.drafts + warm):
        if i == warm:  # the first drafts warm imports, templates and connections
            steps = Steps(profile=bool(args.profile))
            per = defaultdict(list)
        if args.lab == "drain":
            value = 1 + base + (i % stored if args.stored else i)
            form = lab_form("drain", None) | {"per_worker": str(value)}
        else:  # a lab that draws random numbers: a seed nobody has run
            form = lab_form(args.lab, 1 + base + i)
        before = len(steps.cpu["task"])
        response = steps.timed(
            "post",
            client.post,
            f"/labs/{args.lab}/draft/",
            # As htmx posts it (urlencoded): the test client's default, multipart, added
            # ~2 ms (7-10%) of parsing that a browser's draft never costs (8 Dec 2026).
            urlencode(form),
            content_type="application/x-www-form-urlencoded",
            HTTP_HX_REQUEST="true",
            HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
        )
        body = response.content.decode()
        if response.status_code != 200 or "status-succeeded" not in body:
            raise SystemExit(f"draft {i}: HTTP {response.status_code} {body[:300]!r}")
        if len(steps.cpu["task"]) != before + (0 if args.stored else 1):
            raise SystemExit(f"draft {i}: computed {len(steps.cpu['task']) - before} times")
        per["bytes"].append(len(response.content))
    Run.objects.filter(owner__username__startswith="draft-profile").delete()

    def figure(step: str) -> tuple[float, float, float]:
        """Per draft: median CPU ms (the outer step without its inner ones), mean queries,
        mean CPU ms of the database's process."""
        cpu, queries, db_cpu = steps.cpu[step], steps.queries[step], steps.db_cpu[step]
        if not cpu:
            return 0.0, 0.0, 0.0
        if step == "post" and not args.stored:  # alternate: the post's whole, minus its task
            cpu = [a + b for a, b in zip(cpu[1::2], cpu[0::2], strict=True)]
            queries = [a + b for a, b in zip(queries[1::2], queries[0::2], strict=True)]
            db_cpu = [a + b for a, b in zip(db_cpu[1::2], db_cpu[0::2], strict=True)]
        return (
            statistics.median(cpu) * 1000,
            statistics.mean(queries),
            statistics.mean(db_cpu) * 1000,
        )

    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(f"{describe()}; {engine}; tree {ROOT}")
    kind = "store-answered" if args.stored else "computed"
    print(f"{args.lab}, {args.drafts} {kind} drafts; per draft:\n")
    print(
        "| step | CPU ms, median | queries | database CPU ms, mean |\n| --- | ---: | ---: | ---: |"
    )
    total_cpu = total_q = total_db = 0.0
    for step in ("post", "task"):
        cpu_ms, queries, db_ms = figure(step)
        total_cpu, total_q, total_db = total_cpu + cpu_ms, total_q + queries, total_db + db_ms
        print(f"| {step} | {cpu_ms:.1f} | {queries:.1f} | {db_ms:.1f} |")
    print(f"| **both** | {total_cpu:.1f} | {total_q:.1f} | {total_db:.1f} |")
    print(f"\nthe post's answer: {statistics.median(per['bytes']):.0f} bytes")
    if args.sql:
        for step in ("post", "task") if not args.stored else ("post",):  # with its task's
            print(f"\n#### {step}: the last draft's queries\n")
            print("\n".join(f"    {sql}" for sql in steps.last_sql[step]))
    if args.profile:
        for step in ("post", "task") if not args.stored else ("post",):
            print(f"\n#### {step}: top {args.profile} by own time\n")
            stats = pstats.Stats(steps.profiles[step])
            stats.sort_stats(os.environ.get("SORT", "tottime")).print_stats(
                os.environ.get("ONLY", ""), args.profile
            )


if __name__ == "__main__":
    main()
