"""What an assignment's class results page costs the server, for 100 and 500 students.

Builds a throwaway site (DEBUG off, its own SQLite file or the database given) with one
teacher, one class and the capstone's pair assignment, then N students who each handed in
a before/after pair. The runs' results are computed by the real model (20 distinct seeds,
controls on and off) and kept in the result store as workers keep them; every hand-in
gets its digest the way the site makes it (on save). Then, through Django's test client
in this process (server time: view, queries, template, no network), it times:

- the results page (goal < 300 ms at 100 students) and its query count (goal: the same
  at 100 and 500), as most views find it (its body kept in the shared cache under the
  page's signature) and as the first view after a change finds it (built and rendered:
  the class's version is bumped before each of those requests, outside the timing);
- the projector's poll when nothing changed (what a projector costs each few seconds);
- the CSV export;
- beside them, the class's gradebook, the site's other whole-class page, as the peer.

Each line gives wall time (what the browser waits, which on a shared machine includes
waiting for a CPU) and this process's CPU time (`time.process_time`: the work itself, much
less moved by other load; the database's own CPU is not in it).

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


def timed(
    client, url: str, repeat: int, before=None, **headers
) -> tuple[float, float, float, int, int]:
    """Median and slowest server time (ms) of `repeat` GETs, the median CPU ms, the
    queries and the bytes sent (gzipped, as a browser asks for them and the site's
    GZipMiddleware answers). `before` runs ahead of each GET, outside the timing."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    headers = {"HTTP_ACCEPT_ENCODING": "gzip", **headers}
    client.get(url, **headers)  # warm: templates compiled, catalogue loaded
    times, cpu = [], []
    for _ in range(repeat):
        if before is not None:
            before()
        start, start_cpu = time.perf_counter(), time.process_time()
        with CaptureQueriesContext(connection) as seen:
            response = client.get(url, **headers)
        times.append(1000 * (time.perf_counter() - start))
        cpu.append(1000 * (time.process_time() - start_cpu))
        assert response.status_code == 200, (url, response.status_code)
    return (
        statistics.median(times),
        max(times),
        statistics.median(cpu),
        len(seen),
        len(response.content),
    )


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
    from teaching.gradebook.cache import bump

    print("| students | page | median ms | slowest ms | CPU ms | queries | KB gzipped |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
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

        def changed(class_id=assignment.classroom_id):
            bump([class_id])  # what any save in the class does: every cached copy is old

        gradebook = reverse("gradebook", args=[assignment.classroom_id])
        pages = [
            ("results page", page, None, {}),
            ("results page, first view after a change", page, changed, {}),
            ("small multiples", page + "?tab=small", None, {}),
            ("projector, first view after a change", projector, changed, {}),
            ("projector poll, nothing changed", f"{projector}?names=off&tab=lines&since={since}",
             None, {"HTTP_HX_REQUEST": "true"}),
            ("CSV export", reverse("assignment-results-csv", args=[assignment.pk]), None, {}),
            ("gradebook (peer)", gradebook, None, {}),
            ("gradebook (peer), first view after a change", gradebook, changed, {}),
        ]  # fmt: skip
        for name, url, before, headers in pages:
            median, slowest, cpu, queries, size = timed(client, url, args.repeat, before, **headers)
            print(
                f"| {students} | {name} | {median:.0f} | {slowest:.0f} | {cpu:.0f} | "
                f"{queries} | {size / 1024:.0f} |"
            )
        print(f"         (class of {students} built in {built_s:.1f} s)")
    print(describe())


if __name__ == "__main__":
    main()
