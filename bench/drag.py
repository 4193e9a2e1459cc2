"""The chart during a drag: redraws per second while the hand moves, and release → final chart.

Starts the site as production runs it (`bench/burst.py`'s `Site`: gunicorn, the workers,
the sweeper) on a database of the bench's own, unless `--url` names one running. Each
student is a scripted client that drags as drafts.js does (static/labs/drafts.js): a hand
moves a slider of `--lab` (`DRAGGED`: drain's `per_worker`, trapped-service's `spike_rps`)
to and fro for `--seconds` (a new value every 50 ms, from 100 to 300), a poster
sends the newest value at most every 220 ms and never two at once (each post with an
`Idempotency-Key`, as the page's outbox sends it), polls a queued body as the page does,
and counts a redraw for every finished body that comes while the hand is down; at the
release the hand settles on a value not sent yet, and the time from the release to that
value's finished body is measured (the browser's own drawing, ~20-60 ms on a laptop, is
not in it: tests/browser/test_drag.py counts the redraws in Chromium).

Run for 1 student, then `--students` at once (default 30), on a PostgreSQL cluster and a
Redis of the bench's own (measured whole):

    .venv/bin/python bench/drag.py --own-postgres
    .venv/bin/python bench/drag.py --database-url postgres://postgres@127.0.0.1:5432/bench_drag

After each row, the site's CPU over it by role (web, workers, PostgreSQL: the cluster's
every process, or the backends of `--database-url`'s database on a shared server, and the
Redis: `bench/role_cpu.py`), per draft posted
and per draft a worker computed (a run that leads: not answered from the result store nor
waiting on an identical run). Students dragging the same slider share results, so most of
their drafts are answered by the store; `--unshared` gives each student values of their
own (`own_form`: on drain another `fixed_workers`, on trapped-service a seed of their own;
and the drag's number added to the dragged value), so nearly every draft is computed:

    .venv/bin/python bench/drag.py --own-postgres --lab trapped-service --unshared

Before the rows, the site's CPU while nobody drags (`--idle-seconds`), a cost of the time,
which a slow drag spreads over fewer drafts. `--py-spy DIR` samples every
process of the site during the class's drags (`bench/pyspy.py`) and prints where the CPU
went. `--release-at-once`: the release posts its value at once, even with a post in
flight, as drafts.js does since issue 40 (before, the release waited for the answer in
flight, and for the pace). The answer in flight still lands in the page if it comes before
the release's (drafts.js takes an answer whose post is newer than the last one taken), and
is dropped if it comes after; either way it is no redraw here (the hand has let go) and
does not move the release → final chart time.

Unlike drafts.js, this student posts its next value only once the last one's body is
finished (drafts.js posts it when the post's answer comes, and a queued body polls itself
meanwhile): on a site whose runs wait in a queue it posts fewer drafts a drag than a page
does. `bench/class_drag.py`'s student does what drafts.js does.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
import urllib.parse
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import pyspy  # noqa: E402
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
from bench.machine import describe, django_for_bench  # noqa: E402
from bench.role_cpu import RoleClock, own_postgres, own_redis, split_table  # noqa: E402

PACE_S = 0.22  # drafts.js's PACE_MS
HAND_S = 0.05  # the hand's values come this often

# The slider a drag moves on each lab, and the values each student's first draft (made
# before anything is measured) starts from, away from the dragged ones (100 to 311). Both
# stay on the quick queue: trapped-service's cost bound with `spike_rps` 500 is 0.27 s of
# a worker (labs/sim/capstone/cost.py), under LAB_HEAVY_FROM_S.
DRAGGED = {"drain": ("per_worker", 1000), "trapped-service": ("spike_rps", 400)}
OWN_SEED = 1000  # trapped-service, `--unshared`: student i's seed is OWN_SEED + i


def own_form(lab: str, i: int, unshared: bool) -> dict[str, str]:
    """Student i's form: the lesson's values, or with `unshared` a key of the student's own
    (drain has no randomness: another `fixed_workers`, unused by its backlog rule; a lab
    that draws random numbers: a seed of the student's own)."""
    if not unshared:
        return lab_form(lab, None)
    if lab == "drain":
        return lab_form(lab, None) | {"fixed_workers": str(10 + i)}
    return lab_form(lab, OWN_SEED + i)


def drag_once(
    student: Student,
    form: dict[str, str],
    seconds: float,
    seed: int,
    offset: int = 0,
    at_once: bool = False,
    lab: str = "drain",
):
    """One drag; (redraws while the hand was down, seconds held, release → final chart,
    drafts posted). `offset` is added to every value the hand passes (below 10).
    `at_once`: the release posts its value at once, on a connection of its own, even with
    a post in flight or the pace not yet run out (that post's answer is no redraw)."""
    state = {"value": 100 + offset, "released": 0.0, "final": None}
    lock = threading.Lock()
    released: dict[str, float | bool] = {}
    held = time.perf_counter()
    param = DRAGGED[lab][0]

    def hand() -> None:
        step = 0
        while time.perf_counter() - held < seconds:
            step += 1
            at = step % 20 if (step // 20) % 2 == 0 else 20 - step % 20
            state["value"] = 100 + 10 * at + offset
            time.sleep(HAND_S)
        with lock:
            state["final"] = 305 + seed % 7  # never a value the drag passed through
            state["value"] = state["final"]
            state["released"] = time.perf_counter()
        if at_once:
            released["ok"] = finished(state["final"])
            released["at"] = time.perf_counter()

    page_id, posted = uuid.uuid4().hex, [0]  # this page load, and its posts so far

    def finished(value: int) -> bool:
        """Post `value` with its number on the page (drafts.js); True once its body is
        finished (polled as the page polls it). A post the site answers "superseded" (a
        newer one of the page got there first) shows nothing: False."""
        with lock:
            posted[0] += 1
            place = {"draft_page": page_id, "draft_post": str(posted[0])}
        _status, _, body = student.request(
            f"/labs/{lab}/draft/",
            form | {param: str(value)} | place,
            htmx=True,
            headers={"Idempotency-Key": str(uuid.uuid4())},  # as the page's outbox sends it
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
    redraws, sent, last_at, posts = 0, None, 0.0, 0
    while True:
        wait = last_at + PACE_S - time.perf_counter()
        if wait > 0 and not (at_once and state["released"]):
            time.sleep(wait)
        with lock:
            if at_once and state["released"]:
                break  # the release posted its value itself
            value = state["value"]
        if value == sent:
            if state["released"]:
                break
            time.sleep(HAND_S / 2)
            continue
        sent, last_at = value, time.perf_counter()
        posts += 1
        ok = finished(value)
        if ok and not state["released"]:
            redraws += 1
        if state["released"] and sent == state["final"]:
            break
    done = time.perf_counter()
    worker.join()
    if at_once:
        posts += 1
        done = float(released["at"])
    return redraws, seconds, done - state["released"], posts


def signed_in(base: str, names: list[str], lab: str = "drain", first: int = 0) -> list[Student]:
    """The class, signed in and on the lab's page, each with a draft made (before anything
    is measured: a login's password hash alone is tens of ms of CPU, and every web process
    and worker is then past its first requests' imports and templates). `first`: the
    number of the first (students signed in later join a class signed in before)."""
    students = [Student(base, name) for name in names]
    param, warm = DRAGGED[lab]

    def one(i: int, student: Student) -> None:
        student.log_in()
        student.request(f"/labs/{lab}/")
        form = lab_form(lab, None) | {param: str(warm + first + i)}
        student.request(f"/labs/{lab}/draft/", form, htmx=True)

    threads = [threading.Thread(target=one, args=(i, s)) for i, s in enumerate(students)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return students


def class_drags(
    students: list[Student],
    seconds: float,
    drags: int,
    unshared: bool = False,
    at_once: bool = False,
    lab: str = "drain",
) -> dict:
    rates: list[float] = []
    finals: list[float] = []
    posts: list[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(len(students))

    def one(i: int, student: Student) -> None:
        form = own_form(lab, i, unshared)
        barrier.wait()
        for k in range(drags):
            offset = k if unshared else 0
            redraws, held, final_s, sent = drag_once(
                student, form, seconds, i * 31 + k, offset, at_once, lab
            )
            with lock:
                rates.append(redraws / held)
                finals.append(final_s)
                posts.append(sent)
            time.sleep(0.5)

    threads = [threading.Thread(target=one, args=(i, s)) for i, s in enumerate(students)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"rates": rates, "finals": finals, "posts": sum(posts)}


def settle(sessions: set[str], quiet_s: float = 0.05, most_s: float = 60) -> None:
    """Wait (at most `most_s`) until the site used under `quiet_s` of CPU in a second."""
    deadline = time.monotonic() + most_s
    while time.monotonic() < deadline:
        clock = RoleClock(sessions).start()
        time.sleep(1.0)
        if sum(clock.stop().values()) < quiet_s:
            return


def idle_line(sessions: set[str], database: str, trees: dict[str, int], seconds: float) -> str:
    """The site's CPU while nobody drags (the sweeper's sampler, the workers' beats and
    polls): ms a second by role, a cost of the time a drag takes, not of its drafts."""
    settle(sessions)
    clock = RoleClock(sessions, database, trees).start()
    time.sleep(seconds)
    used = clock.stop()
    parts = ", ".join(f"{who} {1000 * cpu / seconds:.1f}" for who, cpu in sorted(used.items()))
    return f"\nidle, ms of CPU a second: {parts} (all {1000 * sum(used.values()) / seconds:.1f})"


def computed_drafts() -> int:
    """The bench students' runs a worker computed: leaders (not answered from the store,
    not waiting on an identical run) that succeeded."""
    from labs.runs.models import Run

    mine = Run.objects.filter(owner__username__startswith="bench-", draft=True)
    return mine.filter(same_as__isnull=True, status=Run.Status.SUCCEEDED).count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench.sqlite3'}")
    parser.add_argument("--url", help="a site already running (else one is started)")
    parser.add_argument("--lab", choices=sorted(DRAGGED), default="drain", help="the lab dragged")
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=2.0, help="how long a drag holds")
    parser.add_argument("--drags", type=int, default=5, help="drags per student")
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument(
        "--own-postgres",
        action="store_true",
        help="a PostgreSQL cluster of the bench's own (then --database-url is not used)",
    )
    parser.add_argument("--unshared", action="store_true", help="values of each student's own")
    parser.add_argument(
        "--release-at-once",
        action="store_true",
        help="the release posts its value at once, even with a post in flight",
    )
    parser.add_argument("--idle-seconds", type=float, default=10, help="0: not measured")
    parser.add_argument("--py-spy", metavar="DIR", help="profile the class's drags into DIR")
    parser.add_argument("--py-spy-bin", default="py-spy")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        trees: dict[str, int] = {}  # servers of the bench's own, measured whole
        if not args.url:
            os.environ["REDIS_URL"], trees["Redis"] = stack.enter_context(own_redis())
            if args.own_postgres:
                args.database_url, trees["PostgreSQL"] = stack.enter_context(own_postgres())
        run(args, trees)


def run(args: argparse.Namespace, trees: dict[str, int]) -> None:
    django_for_bench(args.database_url, site_given=bool(args.url))
    print(describe())
    print(
        f"{args.lab}, dragging {DRAGGED[args.lab][0]}; "
        + ("values of each student's own (--unshared)" if args.unshared else "shared values")
    )
    site = None if args.url else Site(args.database_url, args.web_workers)
    try:
        if site:
            site.__enter__()
        base = args.url or site.url  # type: ignore[union-attr]
        names = make_students(args.students)
        students = signed_in(base, names, args.lab)
        database = urllib.parse.urlsplit(args.database_url).path.lstrip("/")
        if site and args.idle_seconds:
            print(idle_line(site.sessions(), database, trees, args.idle_seconds))
        print(
            "\n| students | drags | redraws/s while held, p50 | min "
            "| release → final chart p50 | p95 | max |"
        )
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        splits = []
        for count in (1, args.students):
            clear_runs()
            if site:
                settle(site.sessions())
            clock = RoleClock(site.sessions() if site else set(), database, trees).start()
            with contextlib.ExitStack() as spying:
                if args.py_spy and site and count > 1:
                    spying.enter_context(
                        pyspy.recording(site.sessions(), Path(args.py_spy), "drag", args.py_spy_bin)
                    )
                out = class_drags(
                    students[:count],
                    args.seconds,
                    args.drags,
                    args.unshared,
                    args.release_at_once,
                    args.lab,
                )
            used = clock.stop()
            r, f = out["rates"], out["finals"]
            print(
                f"| {count} | {len(r)} | {percentile(r, 50):.1f} | {min(r):.1f} "
                f"| {percentile(f, 50) * 1000:.0f} ms | {percentile(f, 95) * 1000:.0f} ms "
                f"| {max(f) * 1000:.0f} ms |",
                flush=True,
            )
            splits.append((count, used, out["posts"], computed_drafts()))
        for count, used, posts, computed in splits:
            print(f"\n{count} student(s): {posts} drafts posted, {computed} computed by a worker")
            print(split_table(used, posts, computed))
        if args.py_spy and site:
            print("\n" + pyspy.top(Path(args.py_spy), "drag"))
    finally:
        if site:
            site.__exit__(None, None, None)


if __name__ == "__main__":
    main()
