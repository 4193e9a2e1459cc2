"""The chart during a drag: redraws per second while the hand moves, and release → final chart.

Starts the site as production runs it (`bench/burst.py`'s `Site`: gunicorn, the workers,
the sweeper) on a database of the bench's own, unless `--url` names one running. Each
student is a scripted client that drags as drafts.js does (static/labs/drafts.js): a hand
moves drain's `per_worker` to and fro for `--seconds` (a new value every 50 ms), a poster
sends the newest value at most every 220 ms and never two at once, polls a queued body
as the page does, and counts a redraw for every finished body that comes while the hand
is down; at the release the hand settles on a value not sent yet, and the time from the
release to that value's finished body is measured (the browser's own drawing, ~20-60 ms
on a laptop, is not in it: tests/browser/test_drag.py counts the redraws in Chromium).

Run for 1 student, then `--students` at once (default 30):

    .venv/bin/python bench/drag.py --database-url postgres://postgres@127.0.0.1:5432/bench_drag
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.burst import (  # noqa: E402
    RUN_ID,
    Site,
    Student,
    clear_runs,
    lab_form,
    make_students,
    next_delay_s,
    percentile,
)
from bench.machine import describe  # noqa: E402

PACE_S = 0.22  # drafts.js's PACE_MS
HAND_S = 0.05  # the hand's values come this often


def drag_once(student: Student, form: dict[str, str], seconds: float, seed: int):
    """One drag; (redraws while the hand was down, seconds held, release → final chart)."""
    state = {"value": 100, "released": 0.0, "final": None}
    held = time.perf_counter()

    def hand() -> None:
        step = 0
        while time.perf_counter() - held < seconds:
            step += 1
            state["value"] = 100 + 10 * (step % 20 if (step // 20) % 2 == 0 else 20 - step % 20)
            time.sleep(HAND_S)
        state["final"] = 305 + seed % 7  # never a value the drag passed through
        state["value"] = state["final"]
        state["released"] = time.perf_counter()

    def finished(value: int) -> bool:
        """Post `value`; True once its body is finished (polled as the page polls it)."""
        _status, _, body = student.request(
            "/labs/drain/draft/", form | {"per_worker": str(value)}, htmx=True
        )
        match = RUN_ID.search(body)
        if not match:
            return False
        path = f"/runs/{match.group(1)}/"
        while f'hx-get="{path}"' in body:
            time.sleep(next_delay_s(body))
            _status, _, body = student.request(path, htmx=True)
        return "status-succeeded" in body

    worker = threading.Thread(target=hand)
    worker.start()
    redraws, sent, last_at = 0, None, 0.0
    while True:
        wait = last_at + PACE_S - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        value = state["value"]
        if value == sent:
            if state["released"]:
                break
            time.sleep(HAND_S / 2)
            continue
        sent, last_at = value, time.perf_counter()
        ok = finished(value)
        if ok and not state["released"]:
            redraws += 1
        if state["released"] and sent == state["final"]:
            break
    done = time.perf_counter()
    worker.join()
    return redraws, seconds, done - state["released"]


def class_drags(base: str, names: list[str], seconds: float, drags: int) -> dict:
    rates: list[float] = []
    finals: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(len(names))
    form = lab_form("drain", None)

    def one(i: int, name: str) -> None:
        student = Student(base, name)
        student.log_in()
        student.request("/labs/drain/")
        barrier.wait()
        for k in range(drags):
            redraws, held, final_s = drag_once(student, form, seconds, i * 31 + k)
            with lock:
                rates.append(redraws / held)
                finals.append(final_s)
            time.sleep(0.5)

    threads = [threading.Thread(target=one, args=(i, n)) for i, n in enumerate(names)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"rates": rates, "finals": finals}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench.sqlite3'}")
    parser.add_argument("--url", help="a site already running (else one is started)")
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=2.0, help="how long a drag holds")
    parser.add_argument("--drags", type=int, default=5, help="drags per student")
    parser.add_argument("--web-workers", type=int, default=3)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("TELEMETRY_PREFIX", f"bench-telemetry-{uuid.uuid4().hex[:6]}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    import django

    if not args.url:
        subprocess.run([sys.executable, "-m", "labs.sim.capstone.build"], cwd=ROOT, check=False)
    django.setup()
    print(describe())
    site = None if args.url else Site(args.database_url, args.web_workers)
    try:
        if site:
            site.__enter__()
        base = args.url or site.url  # type: ignore[union-attr]
        names = make_students(args.students)
        warm = Student(base, names[0])
        warm.log_in()
        warm.request("/labs/drain/draft/", lab_form("drain", None), htmx=True)
        print(
            "\n| students | drags | redraws/s while held, p50 | min "
            "| release → final chart p50 | p95 | max |"
        )
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for count in (1, args.students):
            clear_runs()
            out = class_drags(base, names[:count], args.seconds, args.drags)
            r, f = out["rates"], out["finals"]
            print(
                f"| {count} | {len(r)} | {percentile(r, 50):.1f} | {min(r):.1f} "
                f"| {percentile(f, 50) * 1000:.0f} ms | {percentile(f, 95) * 1000:.0f} ms "
                f"| {max(f) * 1000:.0f} ms |",
                flush=True,
            )
    finally:
        if site:
            site.__exit__(None, None, None)


if __name__ == "__main__":
    main()
