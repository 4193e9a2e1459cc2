"""One class floods the quick queue with phase maps; another class presses a quick lab.

Issue 40's Done-when, against the site as `./dev run` serves it (nginx, gunicorn, a quick and
a heavy Celery worker, the sweeper and its queue sampler; bench/burst.py's `Site`, on queues
and a telemetry prefix of the bench's own). Two classes are made: class A of `--flood`
students (100) and class B of `--others` (20), every student logged in over HTTP.

1. **Alone**: class B's students press Run on `--quick-lab` (trapped-service) at once, each
   with a seed of their own (so every run takes a worker): their usual time.
2. **Flood**: class A's students press Run on `phase-map` at once, each with a seed of their
   own (about 0.3 s of a quick worker each, so half a minute of work for two processes);
   `--after` seconds (12) after they pressed, class B's students press the quick lab again
   (new seeds). Every student then polls as the page does until the chart comes back.

Printed: for each press, submit → chart (p50/p95/max), how many were refused (503) and why,
the queue waits and the Run press's own request (the POST); for the flood, how many maps
were answered, refused and when the last was shown. Class B's presses "are answered in
their usual time, not refused" when none is refused and their p95 stays near the alone p95
(the table gives both).

    createdb -h 127.0.0.1 -U postgres bench_flood
    .venv/bin/python bench/class_flood.py \
        --database-url postgres://postgres@127.0.0.1:5432/bench_flood
    .venv/bin/python bench/class_flood.py --ab ...   # also with LAB_FAIR_SHARE=false (before)

`--ab` runs the same on a second site started with `LAB_FAIR_SHARE=false` (first come, first
served, admission by the queue's oldest run: the site before issue 40), one after the other
(`--before-first` to swap the order: on a shared machine the load drifts between the two).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import burst  # noqa: E402 - bench/burst.py, beside this file
import machine  # noqa: E402

FLOOD_LAB = "phase-map"


def make_class(name: str, usernames: list[str]) -> None:
    """A class of these students (made by the bench), taught by a bench teacher."""
    from django.contrib.auth import get_user_model

    from teaching.models import Classroom, Membership

    teacher, _ = get_user_model().objects.get_or_create(username="bench-teacher")
    classroom, _ = Classroom.objects.get_or_create(teacher=teacher, name=name)
    users = get_user_model().objects.filter(username__in=usernames)
    Membership.objects.filter(student__in=users).exclude(classroom=classroom).delete()
    for user in users:
        Membership.objects.get_or_create(classroom=classroom, student=user)


@dataclass
class Presses:
    """A group's presses: their timings (an `error` for a refusal or a failure)."""

    label: str
    timings: list[burst.Timing] = field(default_factory=list)
    released_at: float = 0.0
    last_shown_at: float = 0.0

    @property
    def answered(self) -> list[burst.Timing]:
        return [t for t in self.timings if not t.error]

    @property
    def refused(self) -> list[str]:
        return [t.error for t in self.timings if t.error.startswith("HTTP 503")]

    @property
    def failed(self) -> list[str]:
        return [t.error for t in self.timings if t.error and not t.error.startswith("HTTP 503")]


def press_together(
    students: list[burst.Student], lab: str, seeds: list[int], go: threading.Event, group: Presses
) -> list[threading.Thread]:
    """One thread per student: open the lab page (not timed), wait for `go`, press Run, poll
    until the chart is back. The threads are started and returned (join them)."""
    lock = threading.Lock()
    group.timings = [None] * len(students)  # type: ignore[list-item]

    def one(i: int, student: burst.Student) -> None:
        student.request(f"/labs/{lab}/")
        go.wait()
        timing = burst.press_run(student, lab, burst.lab_form(lab, seeds[i]), threading.Barrier(1))
        with lock:
            group.timings[i] = timing
            group.last_shown_at = max(group.last_shown_at, time.time())

    threads = [threading.Thread(target=one, args=(i, s)) for i, s in enumerate(students)]
    for thread in threads:
        thread.start()
    return threads


def run_group(students, lab: str, seeds: list[int], label: str) -> Presses:
    """`students` press Run on `lab` at once (after all have opened the page)."""
    go = threading.Event()
    group = Presses(label)
    threads = press_together(students, lab, seeds, go, group)
    time.sleep(2 + len(students) * 0.02)  # every page opened (the class is in the room)
    group.released_at = time.time()
    go.set()
    for thread in threads:
        thread.join()
    return group


def flood_then_others(
    flooders, others, quick_lab: str, after_s: float, seed_base: int
) -> tuple[Presses, Presses]:
    """Class A presses the phase maps; `after_s` later class B presses the quick lab."""
    go_flood, go_others = threading.Event(), threading.Event()
    flood, later = Presses(f"class A: {FLOOD_LAB} × {len(flooders)}"), Presses("")
    later.label = f"class B: {quick_lab} × {len(others)}, {after_s:g} s into the flood"
    flood_seeds = [seed_base + 10_000 + i for i in range(len(flooders))]
    other_seeds = [seed_base + 30_000 + i for i in range(len(others))]
    threads = press_together(flooders, FLOOD_LAB, flood_seeds, go_flood, flood)
    threads += press_together(others, quick_lab, other_seeds, go_others, later)
    time.sleep(2 + (len(flooders) + len(others)) * 0.02)
    flood.released_at = time.time()
    go_flood.set()
    time.sleep(max(0.0, flood.released_at + after_s - time.time()))
    later.released_at = time.time()
    go_others.set()
    for thread in threads:
        thread.join()
    return flood, later


def pct(values: list[float], q: float) -> str:
    return f"{burst.percentile(values, q):.2f}" if values else "—"


def summary_row(site: str, group: Presses) -> str:
    ok = [t.total_s for t in group.answered]
    waits = [t.queue_s for t in group.answered if not t.from_store]
    posts = [t.post_s for t in group.answered]
    last = group.last_shown_at - group.released_at if group.timings else 0.0
    return (
        f"| {site} | {group.label} | {len(group.timings)} | {len(ok)} | {len(group.refused)} "
        f"| {len(group.failed)} | {pct(ok, 50)} | {pct(ok, 95)} | "
        f"{(max(ok) if ok else 0):.2f} | {pct(waits, 95)} | {pct(posts, 95)} | {last:.1f} |"
    )


def print_reasons(group: Presses) -> None:
    """Why presses were refused or failed, the numbers in the words left out."""
    reasons = Counter(re.sub(r"\d+", "N", e)[:150] for e in group.refused + group.failed)
    for reason, n in reasons.most_common(4):
        print(f"  {group.label}: {n} × {reason}")


def oldest_seen(since: float, queue: str) -> float:
    """The quick queue's oldest waiting run's age at its highest, as the sampler saw it."""
    from labs.runs import telemetry_store

    ages = [
        s["q"][queue][1] or 0.0
        for s in telemetry_store.samples()
        if s["t"] >= since and queue in s["q"]
    ]
    return max(ages, default=0.0)


def levels_of(since: float, usernames: list[str]) -> str:
    """How the runs of these students were sent: {priority: count}."""
    from datetime import UTC, datetime

    from labs.runs.models import Run

    rows = Run.objects.filter(
        owner__username__in=usernames,
        created_at__gte=datetime.fromtimestamp(since - 1, UTC),
        same_as__isnull=True,
    ).values_list("priority", flat=True)
    counts = Counter(rows)
    return ", ".join(f"{level}: {counts[level]}" for level in sorted(counts)) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=100, help="class A's students")
    parser.add_argument("--others", type=int, default=20, help="class B's students")
    parser.add_argument("--after", type=float, default=12.0, help="s between the two presses")
    parser.add_argument("--quick-lab", default="trapped-service")
    parser.add_argument("--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench.sqlite3'}")
    parser.add_argument("--web-workers", type=int, default=5)
    parser.add_argument("--ab", action="store_true", help="also with LAB_FAIR_SHARE=false")
    parser.add_argument(
        "--before-first", action="store_true", help="with --ab: the site as before goes first"
    )
    args = parser.parse_args()

    os.environ["DATABASE_URL"] = args.database_url
    os.environ["TELEMETRY_PREFIX"] = f"bench-telemetry-{uuid.uuid4().hex[:6]}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    sys.path.insert(0, str(ROOT))
    import django

    subprocess.run([sys.executable, "-m", "labs.sim.capstone.build"], cwd=ROOT, check=False)
    django.setup()
    from labs.sim.capstone.fast import COMPILED

    print(f"{machine.describe()}; database {args.database_url.split(':')[0]}; capstone loop "
          f"{'compiled' if COMPILED else 'PURE PYTHON'}")  # fmt: skip
    seed_base = int(time.time()) % 1000 * 100_000
    rows: list[str] = []
    order = [False, True] if args.before_first else [True, False]
    for fair in order if args.ab else [True]:
        site = burst.Site(args.database_url, args.web_workers)
        site.env["LAB_FAIR_SHARE"] = "true" if fair else "false"
        # Every bench student comes from 127.0.0.1, and the proxy's limit of connections per
        # address (100 by default) would refuse class B's: two classes are two rooms.
        site.env["PROXY_CONN_PER_ADDRESS"] = "0"
        label = "fair share" if fair else "before (LAB_FAIR_SHARE=false)"
        with site:
            names = burst.make_students(args.flood + args.others)
            flood_names, other_names = names[: args.flood], names[args.flood :]
            make_class("Bench class A", flood_names)
            make_class("Bench class B", other_names)
            classes = {name: burst.Student(site.url, name) for name in flood_names + other_names}
            for student in classes.values():
                student.log_in()
            flooders = [classes[n] for n in flood_names]
            others = [classes[n] for n in other_names]
            burst.burst(others, "drain", vary_seed=False)  # warm-up, not measured
            burst.clear_runs()
            alone = run_group(
                others, args.quick_lab, [seed_base + 20_000 + i for i in range(len(others))],
                f"class B: {args.quick_lab} × {len(others)}, alone",
            )  # fmt: skip
            burst.clear_runs()
            since = time.time()
            flood, later = flood_then_others(
                flooders, others, args.quick_lab, args.after, seed_base
            )
            time.sleep(2.5)  # the sampler's last samples
            queue = site.env["LAB_QUEUE"]
            print(f"\n[{label}] load average {os.getloadavg()[0]:.1f} after the flood")
            print(f"  quick queue's oldest waiting run at its highest: "
                  f"{oldest_seen(since, queue):.1f} s")  # fmt: skip
            print(f"  class A's runs by priority: {levels_of(since, flood_names)}")
            print(f"  class B's runs by priority: {levels_of(later.released_at, other_names)}")
            for group in (alone, flood, later):
                print_reasons(group)
                rows.append(summary_row(label, group))
            seed_base += 50_000
    print("\n| site | presses | n | answered | refused (503) | failed | p50 s | p95 s "
          "| max s | queue wait p95 s | Run press p95 s | last chart at s |")  # fmt: skip
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(row)
    print(f"\n{machine.describe()}")


if __name__ == "__main__":
    main()
