"""A school year's data, and what each page costs as it grows: queries and server time.

Builds, in a PostgreSQL database of its own (dropped and made again), 5 classes of up to
100 students with 20 assignments each; every student has 200 runs and hands in every
assignment with 4 earlier versions (100% = 500 students, 100,000 runs, 10,000 submissions,
40,000 versions), with `bulk_create`. It measures at 10%, 50% and 100% of the students
(the data grows in place), through Django's test client with DEBUG off, per page: the
number of queries and the median server time of 5 requests after one to warm up. Last, it
adds 100,000 old runs that nothing holds and times `prune()` over the whole table.

    .venv/bin/python bench/school_year.py [--database bench_school_year] [--runs 200]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from datetime import timedelta

from machine import describe
from page_weight import setup_site

CLASSES, STUDENTS, ASSIGNMENTS, VERSIONS = 5, 100, 20, 4
SIZES = (0.1, 0.5, 1.0)


def make_database(name: str) -> str:
    for command in (["dropdb", "--if-exists", name], ["createdb", name]):
        subprocess.run([*command, "-h", "127.0.0.1", "-U", "postgres"], check=True)
    return f"postgres://postgres@127.0.0.1:5432/{name}"


class School:
    """The year's fixed part (teacher, classes, assignments), and students added in steps."""

    def __init__(self, runs_per_student: int) -> None:
        from django.contrib.auth.hashers import make_password
        from django.utils import timezone

        from labs.catalogue.entries import get_lab
        from labs.interface.progress import SilentProgress
        from labs.runs.execution import run_lab
        from labs.runs.models import StoredResult
        from teaching.models import Assignment, Classroom
        from tests.base import DRAIN_CRITERIA, make_user

        self.runs_per_student = runs_per_student
        self.password = make_password("bench-password-123")
        self.now = timezone.now()
        self.teacher = make_user("teacher", teacher=True)
        lab = get_lab("drain")
        result = run_lab(lab, lab.defaults(), 0, SilentProgress())
        self.results = [
            StoredResult.objects.create(key=f"{i:064d}", data=result) for i in range(ASSIGNMENTS)
        ]
        self.classes = [
            Classroom.objects.create(name=f"Class {c}", teacher=self.teacher)
            for c in range(CLASSES)
        ]
        due = self.now + timedelta(days=30)
        self.assignments = {
            c.pk: Assignment.objects.bulk_create(
                Assignment(
                    classroom=c, title=f"A{a}", lab="drain", criteria=DRAIN_CRITERIA, due_at=due
                )
                for a in range(ASSIGNMENTS)
            )
            for c in self.classes
        }
        self.students = 0  # per class, so far

    def grow_to(self, per_class: int) -> None:
        """Add students to every class until each has `per_class`, with all their data."""
        for classroom in self.classes:
            for s in range(self.students, per_class):
                self._student(classroom, s)
        self.students = per_class

    def _student(self, classroom, s: int) -> None:
        from django.contrib.auth import get_user_model

        from labs.runs.models import Run
        from teaching.models import Membership, Submission, SubmissionDigest, SubmissionVersion

        user = get_user_model().objects.create(
            username=f"s{classroom.pk}-{s}", password=self.password, first_name=f"Student {s}"
        )
        Membership.objects.create(classroom=classroom, student=user)
        runs = Run.objects.bulk_create(
            Run(
                owner=user,
                lab="drain",
                params={},
                seed=i,
                status="succeeded",
                stored_result=self.results[i % ASSIGNMENTS],
                created_at=self.now - timedelta(minutes=self.runs_per_student - i),
                finished_at=self.now - timedelta(minutes=self.runs_per_student - i),
            )
            for i in range(self.runs_per_student)
        )
        step = VERSIONS + 1
        subs = Submission.objects.bulk_create(
            Submission(
                assignment=assignment,
                student=user,
                run=runs[(a * step + VERSIONS) % len(runs)],
                version=VERSIONS + 1,
                submitted_at=self.now,
                feedback="Good." if a % 2 else "",
            )
            for a, assignment in enumerate(self.assignments[classroom.pk])
        )
        # The digest the site keeps on every hand-in's save (`Submission.save`, which
        # bulk_create does not call).
        SubmissionDigest.objects.bulk_create(
            SubmissionDigest(
                submission=sub,
                figures=self.results[sub.run.seed % ASSIGNMENTS].data["summary"],
                seed=sub.run.seed,
            )
            for sub in subs
        )
        SubmissionVersion.objects.bulk_create(
            SubmissionVersion(
                submission=sub,
                version=v + 1,
                run=runs[(a * step + v) % len(runs)],
                submitted_at=self.now - timedelta(hours=VERSIONS - v),
            )
            for a, sub in enumerate(subs)
            for v in range(VERSIONS)
        )


def pages(school: School) -> dict[str, tuple]:
    """(who, url[, what runs before each timed view]) per page measured."""
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    from teaching.gradebook.cache import bump
    from teaching.models import Submission

    classroom = school.classes[0]
    student = get_user_model().objects.get(username=f"s{classroom.pk}-0")
    sub = Submission.objects.filter(student=student).order_by("pk").first()
    assert sub is not None
    run = sub.run
    assignment = sub.assignment
    t = school.teacher
    return {
        "/runs/ (a student's, page 1)": (student, reverse("my-runs")),
        "/runs/ (page 4, the oldest)": (student, reverse("my-runs") + "?page=4"),
        "/runs/ handed in only": (student, reverse("my-runs") + "?handed_in=yes"),
        "run page (teacher, a student's run)": (t, reverse("run-detail", args=[run.pk])),
        "run JSON (teacher)": (t, reverse("run-json", args=[run.pk])),
        "report pick (teacher)": (t, reverse("report-pick")),
        "class page (teacher)": (t, reverse("class-detail", args=[classroom.pk])),
        "gradebook (teacher)": (t, reverse("gradebook", args=[classroom.pk])),
        "gradebook, first view after a change (teacher)": (
            t,
            reverse("gradebook", args=[classroom.pk]),
            lambda: bump([classroom.pk]),  # what a hand-in or feedback in the class does
        ),
        "gradebook CSV (teacher)": (t, reverse("gradebook-csv", args=[classroom.pk])),
        "submission (teacher)": (t, reverse("submission-detail", args=[sub.pk])),
        "assignment (student)": (student, reverse("assignment-detail", args=[assignment.pk])),
    }


def measure(who, url: str, before=None) -> tuple[int, float, int, float, float]:
    """(queries, median server ms of 5 after a warm-up, bytes, the warm-up's ms, median
    CPU ms of this process) of a page. `before` runs ahead of each of the 5, untimed.

    The warm-up is the first view (for the gradebook: rendered, then kept in the cache)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.force_login(who)
    start = time.perf_counter()
    response = client.get(url)
    first = (time.perf_counter() - start) * 1000
    assert response.status_code == 200, (url, response.status_code)
    times, cpu = [], []
    for _ in range(5):
        if before is not None:
            before()
        with CaptureQueriesContext(connection) as captured:
            start, start_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
    return len(captured), statistics.median(times), len(body), first, statistics.median(cpu)


def prune_time(school: School, n: int) -> tuple[int, float, int]:
    """Add `n` old runs nothing holds; (deleted, seconds, runs kept) of one prune."""
    from django.contrib.auth import get_user_model

    from labs.runs.models import Run
    from labs.runs.sweeps import prune

    owners = list(get_user_model().objects.filter(username__startswith="s")[:100])
    old = school.now - timedelta(days=400)
    Run.objects.bulk_create(
        (
            Run(
                owner=owners[i % len(owners)],
                lab="drain",
                params={},
                seed=i,
                status="succeeded",
                stored_result=school.results[i % ASSIGNMENTS],
                created_at=old,
                finished_at=old,
            )
            for i in range(n)
        ),
        batch_size=5000,
    )
    # Make every run of the year old too: the held ones must survive, the rest go.
    Run.objects.update(created_at=old, finished_at=old)
    start = time.perf_counter()
    deleted = prune()
    return deleted, time.perf_counter() - start, Run.objects.count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="bench_school_year")
    parser.add_argument("--runs", type=int, default=200, help="runs per student")
    parser.add_argument("--prune", type=int, default=100_000, help="old runs to prune (0: none)")
    parser.add_argument("--sizes", type=float, nargs="+", default=SIZES)
    args = parser.parse_args()
    setup_site(make_database(args.database))
    from labs.runs.models import Run
    from teaching.models import Submission, SubmissionVersion

    print(describe())
    school = School(args.runs)
    results: dict[str, list[tuple[int, float, int, float, float]]] = {}
    for size in args.sizes:
        start = time.perf_counter()
        school.grow_to(round(STUDENTS * size))
        built = time.perf_counter() - start
        subprocess.run(
            ["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", "ANALYZE", args.database]
        )
        counts = (
            Run.objects.count(),
            Submission.objects.count(),
            SubmissionVersion.objects.count(),
        )
        print(
            f"{size:.0%}: {counts[0]:,} runs, {counts[1]:,} submissions, {counts[2]:,} versions "
            f"(built in {built:.1f} s); {describe()}"
        )
        for name, (who, url, *before) in pages(school).items():
            results.setdefault(name, []).append(measure(who, url, *before))
    sizes = " / ".join(f"{size:.0%}" for size in args.sizes)
    print()
    print(
        f"| page | queries {sizes} | server ms {sizes} | CPU ms {sizes} "
        f"| first view ms {sizes} | KB at {args.sizes[-1]:.0%} |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for name, row in results.items():
        queries = " / ".join(str(r[0]) for r in row)
        ms = " / ".join(f"{r[1]:.0f}" for r in row)
        cpu = " / ".join(f"{r[4]:.0f}" for r in row)
        first = " / ".join(f"{r[3]:.0f}" for r in row)
        print(f"| {name} | {queries} | {ms} | {cpu} | {first} | {row[-1][2] / 1024:,.0f} |")
    if not args.prune:
        return
    deleted, seconds, kept = prune_time(school, args.prune)
    print()
    print(
        f"prune: {deleted:,} runs deleted in {seconds:.1f} s, {kept:,} held runs kept; {describe()}"
    )


if __name__ == "__main__":
    main()
