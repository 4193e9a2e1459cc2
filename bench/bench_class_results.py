"""What an assignment's class results page costs the server, for 100 and 500 students.

Builds a throwaway site (DEBUG off, its own SQLite file or the database given) with one
teacher, one class and the capstone's pair assignment, then N students who each handed in
a before/after pair. The runs' results are computed by the real model (20 distinct seeds,
controls on and off) and kept in the result store as workers keep them; every hand-in
gets its digest the way the site makes it (on save). Then, through Django's test client
in this process (server time: view, queries, template, no network), it times:

- the results page (goal < 300 ms at 100 students) and its query count (goal: the same
  at 100 and 500);
- the projector's poll when nothing changed (what a projector costs each few seconds);
- the CSV export;
- beside them, the class's gradebook, the site's other whole-class page, as the peer.

    .venv/bin/python bench/bench_class_results.py
    .venv/bin/python bench/bench_class_results.py --students 100 500 --repeat 15
    .venv/bin/python bench/bench_class_results.py --database-url postgres://postgres@127.0.0.1:5432/bench_class
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = 20


def setup_site(database_url: str | None) -> None:
    var = Path(tempfile.mkdtemp(prefix="class-results-"))
    os.environ.update(
        {
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "VAR_DIR": str(var),
            "ALLOWED_HOSTS": "testserver",
            "SECURE_COOKIES": "false",
            "DATABASE_URL": database_url or f"sqlite:///{var / 'db.sqlite3'}",
        }
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("collectstatic", "--noinput", verbosity=0)
    call_command("migrate", verbosity=0)


def build_class(students: int, tag: str):
    """A teacher, a class of `students` and the capstone pair assignment, all handed in."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from labs.catalogue.entries import get_lab
    from labs.runs.models import Run
    from labs.sim.capstone.trapped import RECOMMENDED_CONTROLS
    from teaching.demo_class import DemoRuns
    from teaching.models import Assignment, Classroom, Membership, Submission

    users = get_user_model()
    lab = get_lab("trapped-service")
    teacher = users.objects.create(username=f"teacher-{tag}")
    classroom = Classroom.objects.create(name=f"Class {tag}", teacher=teacher)
    assignment = Assignment.objects.create(
        classroom=classroom,
        title="Free the trapped service",
        lab=lab.slug,
        presets={"trigger_start_s": 60, "trigger_end_s": 90, "spike_rps": 200.0},
        locked=["trigger_start_s", "trigger_end_s", "spike_rps"],
        criteria=[
            {"figure": "before.recovered", "op": "==", "value": False},
            {"figure": "after.recovered", "op": "==", "value": True},
            {"figure": "after.obligations_lost", "op": "==", "value": 0},
            {"figure": "after.goodput_last_30s_rps", "op": ">=", "value": 70},
        ],
        handin="pair",
        due_at=timezone.now() + timezone.timedelta(days=7),
    )
    runs = DemoRuns(lab, assignment)
    people = users.objects.bulk_create([users(username=f"s{tag}-{n:03d}") for n in range(students)])
    Membership.objects.bulk_create(
        [
            Membership(classroom=classroom, student=s, section="AB"[n % 2])
            for n, s in enumerate(people)
        ]
    )
    now = timezone.now()
    for n, student in enumerate(people):
        seed = 1 + n % SEEDS
        before = runs.run(student, {}, seed, "", now)
        after = runs.run(student, dict(RECOMMENDED_CONTROLS), seed, "", now)
        Submission.objects.create(
            assignment=assignment, student=student, run=after, before_run=before
        )
    assert Run.objects.filter(owner__in=people).count() == 2 * students
    return teacher, assignment


def timed(client, url: str, repeat: int, **headers) -> tuple[float, float, int, int]:
    """Median and slowest server time (ms) of `repeat` GETs, the queries and the bytes
    sent (gzipped, as a browser asks for them and the site's GZipMiddleware answers)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    headers = {"HTTP_ACCEPT_ENCODING": "gzip", **headers}
    client.get(url, **headers)  # warm: templates compiled, catalogue loaded
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        with CaptureQueriesContext(connection) as seen:
            response = client.get(url, **headers)
        times.append(1000 * (time.perf_counter() - start))
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times), max(times), len(seen), len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    setup_site(args.database_url)
    from django.test import Client
    from django.urls import reverse

    from bench.machine import describe

    print(describe())
    print(f"database: {os.environ['DATABASE_URL'].split('://')[0]}; repeat {args.repeat}")
    print("students | page            | median ms | slowest ms | queries | KB gzipped")
    for students in args.students:
        start = time.perf_counter()
        teacher, assignment = build_class(students, str(students))
        built_s = time.perf_counter() - start
        client = Client()
        client.force_login(teacher)
        page = reverse("assignment-results", args=[assignment.pk])
        projector = reverse("assignment-results-projector", args=[assignment.pk])
        body = client.get(projector).content.decode()
        since = body.split("since=")[1].split('"')[0]
        pages = [
            ("results page", page, {}),
            ("small multiples", page + "?tab=small", {}),
            ("projector poll", f"{projector}?names=off&tab=lines&since={since}",
             {"HTTP_HX_REQUEST": "true"}),
            ("CSV export", reverse("assignment-results-csv", args=[assignment.pk]), {}),
            ("gradebook (peer)", reverse("gradebook", args=[assignment.classroom_id]), {}),
        ]  # fmt: skip
        for name, url, headers in pages:
            median, slowest, queries, size = timed(client, url, args.repeat, **headers)
            print(
                f"{students:8d} | {name:15s} | {median:9.1f} | {slowest:10.1f} | "
                f"{queries:7d} | {size / 1024:.0f}"
            )
        print(f"         (class of {students} built in {built_s:.1f} s)")
    print(describe())


if __name__ == "__main__":
    main()
