"""A lab that answers as its controls move: how soon the chart follows, and what it costs.

Starts the site as production runs it (`./dev serve`: gunicorn, a quick and a heavy
worker, the sweeper; `bench/burst.py`'s `Site`) on a database of the bench's own, then:

1. **One student drags a slider** (Playwright + Debian's Chromium) on drain, backoff,
   breaker, availability and trapped-service: each drag is a few arrow-key steps of the
   lab's first slider, 40 ms apart, then the student waits. Measured in the page: from the
   last key to the last chart redrawn (`chart:drawn` after `Plotly.react`), and the draft
   posts and computed runs per settled value (the goal: at most one).
2. **A class drags at once** (a scripted client, threads): every student settles on
   `--settles` values of drain's `per_worker` (the same values in a different order each,
   as a class told "drag it from 100 to 190" does; every third settle has an intermediate
   value posted 100 ms before, as a slow answer overtaken by a newer move), posting the
   form as drafts.js does and polling as the body says until its chart. Reported: last
   change (the 100 ms debounce included) → chart, p50/p95/max; whether every settle got
   its chart; the posts refused and why; runs computed against answered by the store; the
   most runs any student had going at once (from the rows' own times); and a peer
   pressing Run on trapped-service every 2 s meanwhile (fair share: Run is not starved).
3. **Rows and bytes**: draft rows and stored results made per 1,000 slider moves and per
   settle, their bytes (PostgreSQL's `pg_column_size`, else the JSON's length), and the
   sweeper's prune after `LAB_DRAFT_KEEP_MIN`.

    .venv/bin/python bench/bench_drafts.py \
        --database-url postgres://postgres@127.0.0.1:5432/bench_drafts
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.burst import (  # noqa: E402
    PASSWORD,
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

LABS = ("drain", "backoff", "breaker", "availability", "trapped-service")
DEBOUNCE_S = 0.1  # drafts.js's wait after the last change (0.25 until 4 Dec 2026)

# In the page: when the last key went down, and when each chart of the results was drawn.
PROBE = """() => {
  window.__bench = {key: 0, drawn: [], answered: []};
  // When each draft post's answer had come in (resource timing, the page's own clock).
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name.endsWith("/draft/")) window.__bench.answered.push(e.responseEnd);
    }
  }).observe({type: "resource"});
  document.addEventListener("keydown", () => { window.__bench.key = performance.now(); }, true);
  document.addEventListener("chart:drawn", (e) => {
    if (e.target.closest(".results")) window.__bench.drawn.push(performance.now());
  });
}"""
LANDED = """([before, key]) => {
  const body = document.querySelector(".results .run-body");
  if (!body || body.id === before) return null;
  const want = body.querySelectorAll("figure.chart").length;
  const drawn = window.__bench.drawn.filter((t) => t > key);
  if (drawn.length < want) return null;
  const answered = window.__bench.answered.filter((t) => t > key);
  return {id: body.id, ms: Math.max(...drawn) - key, first_ms: Math.min(...drawn) - key,
          answered_ms: answered.length ? Math.max(...answered) - key : null};
}"""


def one_student(base: str, username: str, drags: int, steps: int) -> dict[str, dict]:
    """Drag each lab's first slider `drags` times; per lab, the timings and the counts."""
    from playwright.sync_api import sync_playwright

    from labs.runs.models import Run

    out: dict[str, dict] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
            headless=True,
            args=["--no-sandbox"],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(base + "/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
        page.locator("main form button[type=submit]").click()
        page.wait_for_load_state()
        for lab in LABS:
            clear_runs()
            posts: list[str] = []

            def count(request, posts=posts) -> None:
                if request.url.endswith("/draft/"):
                    posts.append(request.url)

            page.on("request", count)
            page.goto(f"{base}/labs/{lab}/")
            page.evaluate(PROBE)
            # The longest track in view (a 6-position one would reach its end in two drags).
            sliders = page.locator("details.group[open] input.slider")
            longest = max(
                range(sliders.count()), key=lambda i: int(sliders.nth(i).get_attribute("max") or 0)
            )
            slider = sliders.nth(longest)
            slider.focus()
            top = int(slider.get_attribute("max") or 0)
            key = "ArrowRight"
            times, firsts, answers, refused, per_settle = [], [], [], 0, []
            for _ in range(drags):
                at = int(slider.input_value())
                if key == "ArrowRight" and at + steps > top:
                    key = "ArrowLeft"
                elif key == "ArrowLeft" and at - steps < 0:
                    key = "ArrowRight"
                before = page.evaluate(
                    "() => (document.querySelector('.results .run-body') || {}).id || ''"
                )
                sent = len(posts)
                for _ in range(steps):
                    page.keyboard.press(key)
                    page.wait_for_timeout(40)
                last_key = page.evaluate("() => window.__bench.key")
                try:
                    handle = page.wait_for_function(LANDED, arg=[before, last_key], timeout=15_000)
                    landed = handle.json_value()
                    times.append(landed["ms"] / 1000)
                    firsts.append(landed["first_ms"] / 1000)
                    if landed["answered_ms"] is not None:
                        answers.append(landed["answered_ms"] / 1000)
                except Exception:  # noqa: BLE001 - a refused value lands nothing: count it
                    refused += 1
                page.wait_for_timeout(400)  # settled: nothing more should be posted
                per_settle.append(len(posts) - sent)
            page.remove_listener("request", count)
            mine = Run.objects.filter(owner__username=username, lab=lab)
            out[lab] = {
                "times": times,
                "answers": answers,  # last key → the draft's answer in (no redraw yet)
                "firsts": firsts,  # last key → the first of its charts redrawn
                "refused": refused,
                "posts": per_settle,
                "computed": mine.filter(attempts__gt=0).count(),
                "settles": drags,
                "moves": drags * steps,
            }
        browser.close()
    return out


def drag_class(base: str, names: list[str], settles: int, peer: str) -> dict:
    """Every student settles on `settles` values at once; the peer presses Run meanwhile."""
    values = [100 + 10 * i for i in range(settles)]
    form = lab_form("drain", None)
    results: list[tuple[float, str]] = []
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    barrier = threading.Barrier(len(names) + 1)
    done = threading.Event()

    def post(student: Student, value: int):
        status, _, body = student.request(
            "/labs/drain/draft/", form | {"per_worker": str(value)}, htmx=True
        )
        with lock:
            statuses[status] += 1
        return status, body

    def settle(student: Student, value: int, overtaken: bool) -> tuple[float, str]:
        started = time.perf_counter() - DEBOUNCE_S  # the last change came that long before
        if overtaken:
            threading.Thread(target=post, args=(student, value + 5)).start()
            time.sleep(0.1)
        status, body = post(student, value)
        match = RUN_ID.search(body)
        if not match:
            return time.perf_counter() - started, f"HTTP {status}: {body[:120]}"
        path = f"/runs/{match.group(1)}/"
        while f'hx-get="{path}"' in body:
            time.sleep(next_delay_s(body))
            status, _, body = student.request(path, htmx=True)
            if status not in (200, 286):
                return time.perf_counter() - started, f"poll HTTP {status}"
        if "status-succeeded" not in body:
            return time.perf_counter() - started, "not succeeded"
        return time.perf_counter() - started, ""

    def one(i: int, name: str) -> None:
        student = Student(base, name)
        student.log_in()
        student.request("/labs/drain/")
        order = values[:]
        random.Random(i).shuffle(order)
        barrier.wait()
        for k, value in enumerate(order):
            took, error = settle(student, value, overtaken=k % 3 == 2)
            with lock:
                results.append((took, error))
            time.sleep(0.3)  # the student looks, then moves again

    peer_times: list[float] = []

    def press_peer() -> None:
        student = Student(base, peer)
        student.log_in()
        data = lab_form("trapped-service", None)
        barrier.wait()
        while not done.is_set():
            started = time.perf_counter()
            status, _, body = student.request("/labs/trapped-service/", data, htmx=True)
            match = RUN_ID.search(body)
            if match:
                path = f"/runs/{match.group(1)}/"
                while f'hx-get="{path}"' in body:
                    time.sleep(next_delay_s(body))
                    status, _, body = student.request(path, htmx=True)
                peer_times.append(time.perf_counter() - started)
            data = data | {"seed": str(random.randint(1, 10**6))}  # computed every time
            time.sleep(2)

    clear_runs()
    since = time.time()
    threads = [threading.Thread(target=one, args=(i, n)) for i, n in enumerate(names)]
    peer_thread = threading.Thread(target=press_peer)
    for thread in [*threads, peer_thread]:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    peer_thread.join()
    return {
        "results": results,
        "statuses": statuses,
        "peer": peer_times,
        "since": since,
        "values": len(values),
    }


def most_going_at_once(names: list[str], since: float) -> int:
    """The most runs one student had queued or running at one moment, from the rows."""
    from datetime import UTC, datetime

    from labs.runs.models import Run

    worst = 0
    rows = Run.objects.filter(
        owner__username__in=names, created_at__gte=datetime.fromtimestamp(since, UTC)
    ).values_list("owner_id", "created_at", "finished_at")
    by_owner: dict[int, list[tuple[float, int]]] = {}
    for owner, created, finished in rows:
        steps = by_owner.setdefault(owner, [])
        steps.append((created.timestamp(), 1))
        steps.append(((finished or created).timestamp(), -1))
    for steps in by_owner.values():
        going = 0
        for _t, change in sorted(steps, key=lambda s: (s[0], s[1])):
            going += change
            worst = max(worst, going)
    return worst


def footprint(names: list[str]) -> tuple[int, int, int, int]:
    """(draft rows, their bytes, stored results, their bytes) of these students' runs."""
    from django.db import connection

    from labs.runs.models import Run, StoredResult

    drafts = Run.objects.filter(owner__username__in=names, draft=True)
    results = StoredResult.objects.filter(runs__in=drafts).distinct()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            ids = [str(pk) for pk in drafts.values_list("pk", flat=True)]
            cursor.execute(
                "SELECT COUNT(*), COALESCE(SUM(pg_column_size(r.*)), 0) FROM labs_run r "
                "WHERE r.id = ANY(%s::uuid[])",
                [ids],
            )
            n_runs, run_bytes = cursor.fetchone()
            keys = list(results.values_list("pk", flat=True))
            cursor.execute(
                "SELECT COUNT(*), COALESCE(SUM(pg_column_size(s.*)), 0) "
                "FROM labs_storedresult s WHERE s.id = ANY(%s)",
                [keys],
            )
            n_results, result_bytes = cursor.fetchone()
        return n_runs, run_bytes, n_results, result_bytes
    import json

    run_bytes = sum(len(json.dumps(p)) + 200 for p in drafts.values_list("params", flat=True))
    result_bytes = sum(len(json.dumps(d)) for d in results.values_list("data", flat=True))
    return drafts.count(), run_bytes, results.count(), result_bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench.sqlite3'}")
    parser.add_argument("--url", help="a site already running (else one is started)")
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--settles", type=int, default=10)
    parser.add_argument("--drags", type=int, default=8)
    parser.add_argument("--steps", type=int, default=4, help="arrow presses per drag")
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
        # The ORM is read between Playwright's calls, in this one thread (as the browser
        # tests' `orm_beside_playwright` does): Playwright's event loop makes Django refuse.
        # Set after the site has its environment (its checks refuse the variable).
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        base = args.url or site.url  # type: ignore[union-attr]
        names = make_students(args.students + 2)
        solo, peer, class_names = names[0], names[1], names[2:]
        # A site that has served a page and a run before (not measured).
        warm = Student(base, solo)
        warm.log_in()
        warm.request("/labs/drain/draft/", lab_form("drain", None), htmx=True)

        print("\n## One student drags a slider (Chromium)\n")
        print("| lab | drags | last key → every chart redrawn p50 | p95 | max "
              "| → first chart redrawn p50 | p95 | → answer in, p50 | refused "
              "| posts per settle (max) | computed runs per settle |")  # fmt: skip
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        solo_out = one_student(base, solo, args.drags, args.steps)
        for lab, r in solo_out.items():
            t = r["times"] or [float("nan")]
            a = r["answers"] or [float("nan")]
            f = r["firsts"] or [float("nan")]
            print(
                f"| {lab} | {r['settles']} | {percentile(t, 50):.3f} | {percentile(t, 95):.3f} "
                f"| {max(t):.3f} | {percentile(f, 50):.3f} | {percentile(f, 95):.3f} "
                f"| {percentile(a, 50):.3f} | {r['refused']} | {max(r['posts'])} "
                f"| {r['computed'] / r['settles']:.2f} |"
            )
        moves = sum(r["moves"] for r in solo_out.values())
        settles = sum(r["settles"] for r in solo_out.values())
        # The footprint before the sweeper deletes the drafts (the solo student's, all labs:
        # clear_runs ran before each lab, so count the last lab's and scale by its moves).
        rows, row_bytes, stored, stored_bytes = footprint([solo])
        last = solo_out[LABS[-1]]
        print(
            f"\n{LABS[-1]}: {last['moves']} moves, {last['settles']} settles → {rows} draft rows "
            f"({row_bytes:,} B) and {stored} stored results ({stored_bytes:,} B): per 1,000 "
            f"moves {1000 * rows / last['moves']:.0f} rows, {1000 * row_bytes / last['moves']:,.0f}"
            f" B of rows, {1000 * stored_bytes / last['moves']:,.0f} B of results "
            f"(all five labs: {moves} moves, {settles} settles)"
        )

        print(f"\n## {len(class_names)} students drag at once (scripted client)\n")
        out = drag_class(base, class_names, args.settles, peer)
        ok = [t for t, e in out["results"] if not e]
        errors = Counter(e for _t, e in out["results"] if e)
        print("| last change → chart | p50 | p95 | max | settles | charts | failed |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        print(
            f"| drain, per_worker | {percentile(ok, 50):.2f} | {percentile(ok, 95):.2f} "
            f"| {max(ok):.2f} | {len(out['results'])} | {len(ok)} | {sum(errors.values())} |"
        )
        for error, n in errors.most_common(5):
            print(f"  failed ×{n}: {error}")
        print(f"draft posts by status: {dict(out['statuses'])}")
        from datetime import UTC, datetime

        from django.conf import settings

        from labs.runs.drafts import prune_drafts
        from labs.runs.models import Run

        mine = Run.objects.filter(
            owner__username__in=class_names,
            created_at__gte=datetime.fromtimestamp(out["since"], UTC),
        )
        computed = mine.filter(attempts__gt=0).count()
        stored_at_once = mine.filter(attempts=0, same_as__isnull=False).count()
        print(
            f"runs kept: {mine.count()} (computed by a worker {computed}, answered by the store "
            f"or an identical run {stored_at_once}); distinct values {out['values']}"
        )
        worst = most_going_at_once(class_names, out["since"])
        print(
            f"most runs one student had going at once: {worst}"
            f" (cap {settings.LAB_MAX_ACTIVE_RUNS_PER_USER})"
        )
        peer_s = out["peer"] or [float("nan")]
        print(
            f"peer pressing Run on trapped-service meanwhile: {len(out['peer'])} runs, submit → "
            f"chart p50 {percentile(peer_s, 50):.2f} s, p95 {percentile(peer_s, 95):.2f} s, "
            f"max {max(peer_s):.2f} s"
        )
        rows, row_bytes, stored, stored_bytes = footprint(class_names)
        n_moves = len(out["results"])  # one settle per move for the scripted client
        print(
            f"\nclass drafts left: {rows} rows ({row_bytes:,} B), {stored} stored results "
            f"({stored_bytes:,} B) for {n_moves} settles"
        )
        later = datetime.now(UTC) + timedelta(minutes=settings.LAB_DRAFT_KEEP_MIN + 1)
        pruned = 0
        while True:
            gone = prune_drafts(later)
            pruned += gone
            if not gone:
                break
        left = Run.objects.filter(draft=True, owner__username__in=names).count()
        print(f"the sweeper's prune {settings.LAB_DRAFT_KEEP_MIN} min later: {pruned} drafts "
              f"deleted, {left} left")  # fmt: skip
    finally:
        if site:
            site.__exit__(None, None, None)


if __name__ == "__main__":
    main()
