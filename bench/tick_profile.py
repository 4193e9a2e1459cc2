"""What one phone call of a class experiment costs the web, in one process.

A class of phones posts about a hundred calls a second while an experiment runs (a tick a
second each, taps, a Done per job), and every call is CPU of the same gunicorn processes
that answer the other classes' pages. This plays those calls through Django's whole
middleware stack (test client, CSRF enforced as the phones send it) and counts, per call:

- **CPU ms** (`time.process_time`: this process only, whatever else the machine runs);
- **queries** to the database (the session, the user, the experiment, the phone's row);
- **Redis round trips** (one per command sent alone, one per pipeline or script) and
  **Redis commands** (every command in them), the cache's (sessions) included.

The calls: `tick` of a signed-in student and of a guest (scenario 1), `take` and `done`
of a guest worker (scenario 2). The service is turned between calls (not counted), so
answers, timeouts and retries come back as in a class. Phones take turns, so each calls
about as often as a real one does (its pace credit builds as on a real phone).

Usage (SQLite, the database `var/tick_profile.sqlite3` of the measured checkout)::

    .venv/bin/python bench/tick_profile.py --calls 300 --phones 30
    .venv/bin/python bench/tick_profile.py --profile 25        # cProfile's top functions
    .venv/bin/python bench/tick_profile.py --against /path/to/old /path/to/middle --rounds 4

`--against` measures those checkouts and this one in turns (old, middle, new, then new,
middle, old...), each in a fresh process, and prints them side by side: on a busy machine
compare the ratios, not the absolute milliseconds. A checkout per commit shows each cut
(`git archive COMMIT | tar -x -C DIR`, with `.venv` linked in).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
# TREE=/path/to/another/checkout measures that code (e.g. main before a change).
ROOT = Path(os.environ.get("TREE") or HERE)
KINDS = ("tick (student)", "tick (guest)", "take (guest)", "done (guest)")


class Counted:
    """Redis round trips and commands sent by this process while `on` (every client)."""

    def __init__(self) -> None:
        from redis import connection

        self.on = False
        self.trips = 0
        self.commands = 0
        counter = self
        send = connection.AbstractConnection.send_packed_command

        def send_packed_command(conn, command, check_health=True):
            if counter.on:
                counter.trips += 1
            return send(conn, command, check_health)

        connection.AbstractConnection.send_packed_command = send_packed_command  # type: ignore[method-assign]
        # Every command, alone or in a pipeline, is packed by one of the two serializers.
        for serializer in (connection.PythonRespSerializer, connection.HiredisRespSerializer):
            serializer.pack = self._counting(serializer.pack)  # type: ignore[method-assign]

    def _counting(self, pack):
        def counted(packer, *args):
            if self.on:
                self.commands += 1
            return pack(packer, *args)

        return counted


class Calls:
    """Per kind of call: CPU seconds, queries, round trips and commands of each call."""

    def __init__(self, profile: bool) -> None:
        self.rows: dict[str, list[tuple[float, int, int, int]]] = defaultdict(list)
        self.profile = cProfile.Profile() if profile else None
        self.redis = Counted()

    def timed(self, kind: str, fn, *args, **kwargs):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        trips, commands = self.redis.trips, self.redis.commands
        with CaptureQueriesContext(connection) as queries:
            self.redis.on = True
            if self.profile is not None and kind.startswith("tick"):
                self.profile.enable()
            started = time.process_time()
            try:
                answer = fn(*args, **kwargs)
            finally:
                cpu = time.process_time() - started
                if self.profile is not None:
                    self.profile.disable()
                self.redis.on = False
        self.rows[kind].append(
            (cpu, len(queries), self.redis.trips - trips, self.redis.commands - commands)
        )
        return answer


def phone(kind: str, code: str, user=None):
    """A phone's browser that joined experiment `code` (signed in as `user`, or a guest)."""
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    if user is not None:
        browser.force_login(user)
    browser.get(f"/x/{code}/")  # the join page: the CSRF cookie
    token = browser.cookies["csrftoken"].value
    form = {} if user is not None else {"nickname": f"p{uuid.uuid4().hex[:6]}"}
    answer = browser.post(f"/x/{code}/", form, HTTP_X_CSRFTOKEN=token)
    if answer.status_code != 302:
        raise SystemExit(f"{kind}: joining answered {answer.status_code}")
    return browser, token


def measure(calls: Calls, n_calls: int, n_phones: int) -> None:
    from django.contrib.auth import get_user_model

    from classlab import live
    from classlab.jobs import Jobs
    from classlab.models import Experiment
    from classlab.storm import Storm
    from labs.experiments.namespace import connect

    r = connect()
    teacher, _ = get_user_model().objects.get_or_create(username="tick-profile-teacher")
    storm_exp = Experiment.objects.create(
        teacher=teacher, scenario="storm", allow_guests=True, status="running"
    )
    jobs_exp = Experiment.objects.create(
        teacher=teacher, scenario="workers", allow_guests=True, status="running"
    )
    storm = Storm(r, live.namespace(storm_exp.run_key))
    jobs = Jobs(r, live.namespace(jobs_exp.run_key))
    try:
        storm.setup({"pace_per_min": 60})
        jobs.setup({})
        students = [
            get_user_model().objects.get_or_create(username=f"tick-profile-{i}")[0]
            for i in range(n_phones)
        ]
        phones = {
            "tick (student)": [phone("student", storm_exp.code, u) for u in students],
            "tick (guest)": [phone("guest", storm_exp.code) for _ in range(n_phones)],
            "take (guest)": [phone("worker", jobs_exp.code) for _ in range(n_phones)],
        }
        held: dict[int, str] = {}
        for i in range(n_calls):
            p = i % n_phones
            for kind in ("tick (student)", "tick (guest)"):
                browser, token = phones[kind][p]
                taps = {"taps": "1" if i % 7 == 0 else "0"}
                answer = calls.timed(
                    kind, browser.post, f"/x/{storm_exp.code}/tick/", taps, HTTP_X_CSRFTOKEN=token
                )
                if answer.status_code != 200:
                    raise SystemExit(f"{kind}: {answer.status_code} {answer.content[:200]!r}")
            storm.serve()
            browser, token = phones["take (guest)"][p]
            if p in held:
                calls.timed(
                    "done (guest)",
                    browser.post,
                    f"/x/{jobs_exp.code}/done/",
                    {"job": held.pop(p)},
                    HTTP_X_CSRFTOKEN=token,
                )
            if i % 5 == 0:
                jobs.arrive(5)
            answer = calls.timed(
                "take (guest)", browser.post, f"/x/{jobs_exp.code}/take/", HTTP_X_CSRFTOKEN=token
            )
            job = answer.json().get("job")
            if job:
                held[p] = job["job"]
    finally:
        live.namespace(storm_exp.run_key).cleanup(r)
        live.namespace(jobs_exp.run_key).cleanup(r)


def summary(rows: list[tuple[float, int, int, int]]) -> dict[str, float]:
    rows = rows[len(rows) // 10 :]  # the first calls warm imports, templates, connections
    cpu = sorted(row[0] * 1000 for row in rows)
    return {
        "calls": len(rows),
        "cpu_median": statistics.median(cpu),
        "cpu_p90": cpu[int(0.9 * (len(cpu) - 1))],
        "queries": statistics.mean(row[1] for row in rows),
        "trips": statistics.mean(row[2] for row in rows),
        "commands": statistics.mean(row[3] for row in rows),
    }


def run_here(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)  # Celery's app puts the working directory first on sys.path
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{ROOT / 'var' / 'tick_profile.sqlite3'}")
    # The sessions' cache entries under a prefix of this run's own, removed at the end.
    prefix = os.environ.setdefault("CACHE_KEY_PREFIX", f"tick-profile-{uuid.uuid4().hex[:8]}")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    import classlab

    print(f"measuring {Path(classlab.__file__).parent}", file=sys.stderr)
    calls = Calls(profile=bool(args.profile))
    try:
        measure(calls, args.calls, args.phones)
    finally:
        from django.conf import settings
        from redis import Redis

        cache = Redis.from_url(settings.CACHES["default"]["LOCATION"])
        keys = list(cache.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            cache.delete(*keys)
    if args.profile:
        print(f"#### ticks: top {args.profile} by {os.environ.get('SORT', 'tottime')}\n")
        stats = pstats.Stats(calls.profile)
        stats.sort_stats(os.environ.get("SORT", "tottime")).print_stats(args.profile)
    return {kind: summary(calls.rows[kind]) for kind in KINDS if calls.rows[kind]}


def side_by_side(args: argparse.Namespace) -> None:
    """The `--against` checkouts and this one in turns, each round a fresh process, the
    order reversed every other round (no tree always first); medians of the rounds."""
    sys.path.insert(0, str(HERE))
    from bench.machine import describe

    trees = [Path(tree).resolve() for tree in args.against] + [HERE]
    got: dict[Path, list[dict]] = defaultdict(list)
    loads = [os.getloadavg()[0]]
    for round_no in range(args.rounds):
        for tree in trees if round_no % 2 == 0 else trees[::-1]:
            out = subprocess.run(
                [sys.executable, __file__, "--json", "--calls", str(args.calls)]
                + ["--phones", str(args.phones)],
                env={**os.environ, "TREE": str(tree)},
                cwd=tree,  # Celery's app puts the working directory first on sys.path
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            got[tree].append(json.loads(out.strip().splitlines()[-1]))
            loads.append(os.getloadavg()[0])
    print(describe())
    print(f"load average (1 min) during the run: {min(loads):.1f} to {max(loads):.1f}")
    print(f"{args.rounds} rounds of {args.calls} calls a kind, {args.phones} phones a kind")
    print("CPU ms a call (median of the rounds' medians), × the first tree's; queries,")
    print("Redis round trips and Redis commands a call\n")
    print("| call | tree | CPU ms | × first | queries | Redis round trips | Redis commands |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for kind in KINDS:
        first = middle(got[trees[0]], kind)["cpu_median"]
        for tree in trees:
            m = middle(got[tree], kind)
            print(
                f"| {kind} | {tree.name} | {m['cpu_median']:.2f} | {m['cpu_median'] / first:.2f} "
                f"| {m['queries']:.1f} | {m['trips']:.1f} | {m['commands']:.1f} |"
            )


def middle(runs: list[dict], kind: str) -> dict[str, float]:
    """Each figure of `kind`: the median of the rounds'."""
    return {k: statistics.median(run[kind][k] for run in runs) for k in runs[0][kind]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls of each kind")
    parser.add_argument("--phones", type=int, default=30, help="phones of each kind")
    parser.add_argument("--profile", type=int, default=0, help="top-N functions of the ticks")
    parser.add_argument(
        "--against", nargs="+", help="older checkouts, measured in turns with this one"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="one JSON line (for --against)")
    args = parser.parse_args()
    if args.against:
        side_by_side(args)
        return
    result = run_here(args)
    if args.json:
        print(json.dumps(result))
        return
    print("| call | CPU ms median | p90 | queries | Redis round trips | Redis commands |")
    print("| --- | --- | --- | --- | --- | --- |")
    for kind, s in result.items():
        print(
            f"| {kind} | {s['cpu_median']:.2f} | {s['cpu_p90']:.2f} | {s['queries']:.1f} "
            f"| {s['trips']:.1f} | {s['commands']:.1f} |"
        )


if __name__ == "__main__":
    main()
