"""A class presses Run at once: submit → chart times for N students, and where they go.

Starts the site as production runs it (`./dev serve` when it exists, else gunicorn), a quick
and a heavy Celery worker and the sweeper, on queues and a database of the bench's own;
makes N students, logs each one in over HTTP, then releases all their Run presses together
and polls each run's page the way the page itself does (it follows the fragment's own
`hx-trigger` delay) until the answer is 286 (the chart). Prints, per lab, p50/p95/max of
submit → chart split into queue wait (created → a worker started it), run (started →
finished) and page (the rest: the POST, the polls' lag, rendering). Usage:

    .venv/bin/python bench/burst.py --students 30 --lab trapped-service
    .venv/bin/python bench/burst.py --students 100 --lab trapped-service --lab drain
    .venv/bin/python bench/burst.py --url http://127.0.0.1:8123 ...  # a site already running

Students press Run on the lab's defaults, as a class does when told "press Run"; add
`--vary-seed` to give each a seed of their own (nothing can then be answered from the
result store).

The goals of issue 13 in one command (30 students on trapped-service, then 100, then 30
on phase-map), with a table of p50/p95 against each goal; `--ab` runs each goal twice,
on the site as `./dev serve` starts it and on the site as it was configured before
(one request at a time per web process, a new database connection per request, no shared
budget of polls, the web at the workers' CPU priority):

    .venv/bin/python bench/burst.py --goals --ab \
        --database-url postgres://postgres@127.0.0.1:5432/bench_lifecycle

After each burst it also checks the operations page against the runs themselves (issue
27): the backlog's peak and the moment it drained, as the telemetry samples the page draws
show them, against the same two moments worked out from the run records' own timestamps
(a run waits from `created_at` until `started_at`). It prints both and the differences;
the goal is within ±1 s. With `--vary-seed` every press needs a worker (a real backlog):

    .venv/bin/python bench/burst.py --students 100 --lab trapped-service --vary-seed
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import platform
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import pyspy  # noqa: E402 - bench/pyspy.py, beside this file

PASSWORD = "bench-password-123"  # noqa: S105 - throwaway accounts in a throwaway database
TRIGGER_DELAY = re.compile(r'hx-trigger="[^"]*?(?:delay:|every )(\d+(?:\.\d+)?)(ms|s)')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Student:
    """One browser: its cookies, a CSRF token, and one kept-alive connection to the site
    (as a browser keeps one between its polls: gunicorn keeps it 5 s, polls come every
    2 s at most). Until 4 Dec 2026 every request opened a connection of its own, which
    cost the site a connect and a close per poll that no browser makes it pay."""

    def __init__(self, base: str, username: str) -> None:
        self.base, self.username = base, username
        self.address = urllib.parse.urlsplit(base)
        self.cookies: dict[str, str] = {}
        # One connection per thread: a bench may send two of one student's requests at once
        # (an overtaken draft), as a browser would on two connections.
        self._local = threading.local()

    def _csrf(self) -> str:
        return self.cookies.get("csrftoken", "")

    def request(
        self, path: str, data: dict | None = None, htmx: bool = False, headers: dict | None = None
    ):
        body = urllib.parse.urlencode(data, doseq=True).encode() if data is not None else None
        headers = {"Accept-Encoding": "identity", **(headers or {})}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["X-CSRFToken"] = self._csrf()
            headers["Referer"] = self.base + path
        if htmx:
            headers["HX-Request"] = "true"
        for attempt in (1, 2):  # a connection the server closed meanwhile: once more
            connection = getattr(self._local, "connection", None)
            if connection is None:
                connection = self._local.connection = http.client.HTTPConnection(
                    self.address.hostname, self.address.port, timeout=120
                )
            try:
                connection.request("POST" if body else "GET", path, body, headers)
                resp = connection.getresponse()
                text = resp.read().decode(errors="replace")
                break
            except (http.client.HTTPException, ConnectionError, OSError):
                connection.close()
                self._local.connection = None
                if attempt == 2:
                    raise
        for cookie in resp.headers.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return resp.status, dict(resp.headers), text

    def log_in(self) -> None:
        self.request("/accounts/login/")
        status, headers, _ = self.request(
            "/accounts/login/", {"username": self.username, "password": PASSWORD}
        )
        if status != 302:
            raise SystemExit(f"{self.username} could not log in (HTTP {status})")


@dataclass
class Timing:
    total_s: float
    queue_s: float
    run_s: float
    from_store: bool
    error: str = ""
    post_s: float = 0.0  # the Run press's own request, until its answer came back
    lag_s: float = 0.0  # from the run's end (the server's clock) to the chart on screen
    polls: int = 0

    @property
    def page_s(self) -> float:
        return max(0.0, self.total_s - self.queue_s - self.run_s)


def next_delay_s(fragment: str) -> float:
    """The delay the page's own htmx trigger would wait before its next poll."""
    match = TRIGGER_DELAY.search(fragment)
    if not match:
        return 1.0
    value = float(match.group(1))
    return value / 1000 if match.group(2) == "ms" else value


RUN_ID = re.compile(r'id="run-([0-9a-f-]{36})"')
FORM_ERRORS = re.compile(r'class="form-errors"[^>]*>(.*?)</div>', re.S)
TAG = re.compile(r"<[^>]+>")


def refusal(fragment: str) -> str:
    """Why a press was answered without a run: the form's errors in words, as the student
    reads them (else the answer's first 200 characters)."""
    found = FORM_ERRORS.search(fragment)
    words = " ".join(TAG.sub(" ", found.group(1)).split()) if found else ""
    return words[:200] or fragment[:200]


def press_run(
    student: Student, lab: str, form: dict, barrier: threading.Barrier, *, record: bool = True
) -> Timing:
    """Press Run as the page does (an htmx POST that answers with the run's fragment), then
    poll as the fragment says until the chart is there (a 286). `record`: then read the
    run's record for its queue and run times (a request the page does not make; left out
    where the site's CPU per press is measured)."""
    barrier.wait()
    started = time.perf_counter()
    status, _, fragment = student.request(f"/labs/{lab}/", form, htmx=True)
    post_s = time.perf_counter() - started
    match = RUN_ID.search(fragment)
    if status != 200 or not match:
        return Timing(
            time.perf_counter() - started, 0, 0, False, f"HTTP {status}: {refusal(fragment)}"
        )
    run_path = f"/runs/{match.group(1)}/"
    polls = 0
    while f'hx-get="{run_path}"' in fragment:  # still polling: not finished
        time.sleep(next_delay_s(fragment))
        status, _, fragment = student.request(run_path, htmx=True)
        polls += 1
        if status == 286:
            break
        if status != 200:
            return Timing(time.perf_counter() - started, 0, 0, False, f"poll HTTP {status}")
    total = time.perf_counter() - started
    shown_at = time.time()
    if not record:
        return Timing(total, 0, 0, False, post_s=post_s, polls=polls)
    _, _, raw = student.request(run_path.rstrip("/") + ".json")
    run = json.loads(raw)
    if run["status"] != "succeeded":
        return Timing(total, 0, 0, False, run["error"][:200])
    created, began, ended = (
        datetime.fromisoformat(run[k]) for k in ("created_at", "started_at", "finished_at")
    )
    return Timing(
        total,
        max(0.0, (began - created).total_seconds()),
        (ended - began).total_seconds(),
        bool(run.get("same_as")),
        post_s=post_s,
        lag_s=max(0.0, shown_at - ended.timestamp()),
        polls=polls,
    )


def lab_form(lab: str, seed: int | None) -> dict[str, str]:
    from labs.catalogue.entries import get_lab
    from labs.management.commands.lab import _as_form_value

    entry = get_lab(lab)
    if entry is None:
        raise SystemExit(f"no lab {lab!r}")
    data = {p.name: _as_form_value(p.default) for p in entry.params}
    if entry.uses_seed:
        data["seed"] = str(entry.default_seed if seed is None else seed)
    return data


def percentile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def report(lab: str, students: int, timings: list[Timing]) -> None:
    ok = [t for t in timings if not t.error]
    failed = [t.error for t in timings if t.error]
    print(f"\n### {lab}: {students} students press Run at once")
    print(f"{len(ok)} charts, {len(failed)} failed, {sum(t.from_store for t in ok)} from the store")
    for error in sorted(set(failed))[:5]:
        print(f"  failed: {error}")
    if not ok:
        return
    print("| seconds | p50 | p95 | max |")
    print("| --- | ---: | ---: | ---: |")
    for label, pick in (
        ("submit → chart", lambda t: t.total_s),
        ("queue wait", lambda t: t.queue_s),
        ("run", lambda t: t.run_s),
        ("page (POST, polls, render)", lambda t: t.page_s),
        ("  of which the Run press (POST)", lambda t: t.post_s),
        ("  of which run end → chart shown", lambda t: t.lag_s),
        ("polls per student", lambda t: float(t.polls)),
    ):
        values = [pick(t) for t in ok]
        print(
            f"| {label} | {percentile(values, 50):.2f} | {percentile(values, 95):.2f} "
            f"| {max(values):.2f} |"
        )


class Site:
    """The site, two workers and the sweeper, on a free port and bench-only queues."""

    def __init__(self, database_url: str, web_workers: int, *, baseline: bool = False) -> None:
        tag = uuid.uuid4().hex[:6]
        self.port = free_port()
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_COOKIES": "false",
            "LAB_QUEUE": f"bench-quick-{tag}",
            "LAB_HEAVY_QUEUE": f"bench-heavy-{tag}",
            "LAB_MAX_ACTIVE_RUNS_PER_USER": "4",
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "WEB_WORKERS": str(web_workers),
        }
        if baseline:
            # As the site was configured before: one request at a time per web process,
            # a new database connection for each request, every page polling at its own
            # pace however many wait (no shared budget of polls), the web at the workers'
            # CPU priority.
            self.env |= {
                "WEB_THREADS": "1",
                "DB_CONN_MAX_AGE": "0",
                "LAB_POLLS_PER_S": "100000",
                "WEB_NICE": "0",
            }
        self.label = "before" if baseline else "./dev serve"
        self.web_workers = web_workers
        self.procs: list[subprocess.Popen] = []
        self.logs = ROOT / "var" / f"bench-{tag}"
        self.logs.mkdir(parents=True, exist_ok=True)

    def _start(self, name: str, cmd: list[str]) -> None:
        out = (self.logs / f"{name}.log").open("w")
        self.procs.append(
            subprocess.Popen(
                cmd, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )  # fmt: skip

    def __enter__(self) -> Site:
        py = sys.executable
        subprocess.run([py, "manage.py", "migrate", "-v0"], cwd=ROOT, env=self.env, check=True)
        subprocess.run(
            [py, "manage.py", "collectstatic", "--noinput", "-v0"],
            cwd=ROOT,
            env=self.env,
            check=True,
        )
        if "serve)" in (ROOT / "dev").read_text():
            # The production command: gunicorn, quick and heavy workers, the sweeper.
            self._start("serve", [str(ROOT / "dev"), "serve"])
        else:
            self._start_by_hand(py)
        # Up to 10 minutes: on a shared machine under load `./dev serve`'s start (migrate,
        # collectstatic, check --deploy, then gunicorn's workers) is slow.
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/accounts/login/", timeout=10).read()
                return self
            except OSError:
                time.sleep(0.3)
        raise SystemExit(f"the site did not start; see {self.logs}")

    def _start_by_hand(self, py: str) -> None:
        """Before `./dev serve` existed: gunicorn, one worker per queue and the sweeper."""
        gunicorn = shutil.which("gunicorn", path=str(Path(py).parent)) or "gunicorn"
        self._start(
            "web",
            [gunicorn, "school.wsgi", "-b", f"127.0.0.1:{self.port}",
             "-w", str(self.web_workers), "--threads", "4", "--timeout", "120"],
        )  # fmt: skip
        queues = (("quick", self.env["LAB_QUEUE"]), ("heavy", self.env["LAB_HEAVY_QUEUE"]))
        for kind, queue in queues:
            self._start(
                f"worker-{kind}",
                [py, "-m", "celery", "-A", "school", "worker", "-Q", queue, "--concurrency=2",
                 "-n", f"{queue}@%h", "--loglevel=WARNING", "--without-gossip",
                 "--without-mingle"],
            )  # fmt: skip
        self._start("sweeper", [py, "manage.py", "sweep_runs", "--loop"])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def sessions(self) -> set[str]:
        """The process sessions of the site's programs (each started its own)."""
        return {str(proc.pid) for proc in self.procs}

    def cpu_s(self) -> float:
        """CPU seconds used so far by every process of the site (web, workers, sweeper):
        they all run in the session each started process leads (`start_new_session`)."""
        sessions = self.sessions()
        return sum(cpu for sid, cpu in _processes() if sid in sessions)

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def _processes():
    """(session id, CPU seconds) of every process this machine shows in /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        yield fields[3], (int(fields[11]) + int(fields[12])) / tick


def make_students(n: int) -> list[str]:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    User = get_user_model()
    hashed = make_password(PASSWORD)
    names = [f"bench-{i:03d}" for i in range(n)]
    for name in names:
        User.objects.update_or_create(username=name, defaults={"password": hashed})
    return names


def clear_runs() -> None:
    """Each burst starts from nobody's runs and no rendered fragments, so the store and
    the cache answer only within a burst."""
    from django.conf import settings

    from labs.runs.models import Run, StoredResult

    Run.objects.filter(owner__username__startswith="bench-").delete()
    StoredResult.objects.filter(runs__isnull=True).delete()
    import redis

    cache = redis.Redis.from_url(settings.CACHE_REDIS_URL)
    for pattern in ("*run-body:*", "*run-charts:*"):
        for name in cache.scan_iter(match=pattern, count=1000):
            cache.delete(name)


def burst(students: list[Student], lab: str, vary_seed: bool) -> list[Timing]:
    """Every student presses Run on `lab` at the same instant; their timings."""
    clear_runs()
    barrier = threading.Barrier(len(students))
    timings: list[Timing] = [None] * len(students)  # type: ignore[list-item]

    def one(i: int, student: Student) -> None:
        seed = (1000 + i) if vary_seed else None
        student.request(f"/labs/{lab}/")  # the class opens the lab page first (not timed)
        timings[i] = press_run(student, lab, lab_form(lab, seed), barrier)

    threads = [threading.Thread(target=one, args=(i, s)) for i, s in enumerate(students)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return timings


def page_burst(students: list[Student], path: str) -> list[float]:
    """Every student opens `path` at the same instant (signed in, as a class does); the
    seconds each took, or -1 for an answer other than 200."""
    barrier = threading.Barrier(len(students))
    seconds = [0.0] * len(students)

    def one(i: int, student: Student) -> None:
        barrier.wait()
        started = time.perf_counter()
        status, _headers, _body = student.request(path)
        seconds[i] = time.perf_counter() - started if status == 200 else -1.0

    threads = [threading.Thread(target=one, args=(i, s)) for i, s in enumerate(students)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return seconds


def page_report(path: str, seconds: list[float], wall_s: float, cpu_s: float | None) -> None:
    ok = [s for s in seconds if s >= 0]
    print(f"\n### {path}: {len(seconds)} students open it at once")
    print(f"{len(ok)} pages, {len(seconds) - len(ok)} failed; {len(seconds) / wall_s:.1f} pages/s")
    if ok:
        print(
            f"| seconds | p50 {percentile(ok, 50):.2f} | p95 {percentile(ok, 95):.2f} "
            f"| max {max(ok):.2f} |"
        )
    if cpu_s is not None:
        print(f"site CPU per page: {1000 * cpu_s / len(seconds):.1f} ms (every process)")


@dataclass
class Backlog:
    """A backlog's peak (depth, when) and the moment it was empty again (epoch seconds)."""

    peak: int
    peak_at: float
    drained_at: float | None


def backlog_from_records(since: float, queue: str) -> Backlog | None:
    """The backlog as the run records tell it: a run needing a worker waits on its queue
    from `created_at` until a worker takes it (`started_at`; a run never started, until it
    ends). The depth is a step function of those moments: its first maximum is the peak,
    the last start after it the drain."""
    from datetime import datetime as dt

    from labs.runs.models import Run

    rows = Run.objects.filter(
        owner__username__startswith="bench-", queue=queue,
        created_at__gte=dt.fromtimestamp(since, UTC),
    ).values_list("created_at", "started_at", "finished_at", "attempts", "same_as_id")  # fmt: skip
    steps: list[tuple[float, int]] = []
    for created, started, finished, attempts, same_as in rows:
        if attempts == 0 and same_as is not None:
            continue  # waited on an identical run: it never needed a worker
        left = started or finished
        steps.append((created.timestamp(), +1))
        if left is not None:
            steps.append((left.timestamp(), -1))
    if not steps:
        return None
    depth = peak = 0
    peak_at = drained_at = 0.0
    for at, change in sorted(steps, key=lambda s: (s[0], s[1])):
        depth += change
        if depth > peak:
            peak, peak_at = depth, at
        if depth == 0 and peak:
            drained_at = at
    return Backlog(peak, peak_at, drained_at or None)


def backlog_from_samples(since: float, queue: str) -> Backlog | None:
    """The same from the telemetry samples the operations page draws (`labs.runs.
    telemetry_store.samples`): the first sample of the greatest depth, then the first
    sample after it with nothing waiting."""
    from labs.runs import telemetry_store

    points = [
        (s["t"], s["q"][queue][0])
        for s in telemetry_store.samples()
        if s["t"] >= since - 1 and queue in s["q"]
    ]
    if not points or not max(d for _t, d in points):
        return None
    peak = max(d for _t, d in points)
    peak_at = next(t for t, d in points if d == peak)
    drained_at = next((t for t, d in points if t > peak_at and d == 0), None)
    return Backlog(peak, peak_at, drained_at)


def ops_check(lab: str, since: float) -> tuple[float, float] | None:
    """Print the operations page's backlog against the run records'; (Δ peak, Δ drain) s."""
    from datetime import datetime as dt

    from django.db.models import Count

    from labs.runs.models import Run

    # The sampler writes once a second: let it write the sample after the drain.
    time.sleep(2.5)
    # The queue the burst's runs went to (the site's own names, set in its environment).
    busiest = (
        Run.objects.filter(
            owner__username__startswith="bench-", created_at__gte=dt.fromtimestamp(since, UTC)
        )
        .exclude(queue="")
        .values("queue")
        .annotate(n=Count("pk"))
        .order_by("-n")
        .first()
    )
    queue = busiest["queue"] if busiest else ""
    records, samples = backlog_from_records(since, queue), backlog_from_samples(since, queue)
    print(f"\noperations page vs run records ({queue}):")
    if records is None or samples is None:
        print(f"  no backlog to compare (records {records}, samples {samples})")
        return None

    def at(t: float | None) -> str:
        return "never" if t is None else f"+{t - since:.2f} s"

    print("| | peak depth | peak at | drained at |")
    print("| --- | ---: | ---: | ---: |")
    for label, b in (("run records", records), ("operations page", samples)):
        print(f"| {label} | {b.peak} | {at(b.peak_at)} | {at(b.drained_at)} |")
    d_peak = samples.peak_at - records.peak_at
    d_drain = (
        samples.drained_at - records.drained_at
        if samples.drained_at is not None and records.drained_at is not None
        else float("nan")
    )
    met = abs(d_peak) <= 1 and abs(d_drain) <= 1
    print(f"| difference | {samples.peak - records.peak:+d} | {d_peak:+.2f} s | {d_drain:+.2f} s |")
    print(f"within ±1 s: {'yes' if met else '**no**'}")
    return d_peak, d_drain


WARM_UP_STUDENTS = 20

# Issue 13's goals on a 2-core machine: (lab, students, p95 submit → chart under, seconds).
GOALS = (("trapped-service", 30, 3.0), ("trapped-service", 100, 8.0), ("phase-map", 30, 10.0))


# Issue 29's goals, each student with a seed of their own (`--goals29`; a lesson page too).
GOALS_29 = (("trapped-service", 100, 4.0), ("phase-map", 30, 5.0), ("trapped-service", 30, 1.5))
LESSON_PAGE = "/units/lesson-12/"


def goals_table(rows: list[tuple[str, str, int, float, list[Timing]]]) -> None:
    print("\n## The goals: submit → chart, seconds\n")
    print("| site | lab | students | p50 | p95 | max | goal p95 | met | failed |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    for label, lab, n, goal, timings in rows:
        ok = [t.total_s for t in timings if not t.error]
        failed = len(timings) - len(ok)
        if not ok:
            print(f"| {label} | {lab} | {n} | | | | < {goal:g} | no | {failed} |")
            continue
        p95 = percentile(ok, 95)
        met = "yes" if p95 < goal and not failed else "**no**"
        print(
            f"| {label} | {lab} | {n} | {percentile(ok, 50):.2f} | {p95:.2f} | {max(ok):.2f} "
            f"| < {goal:g} | {met} | {failed} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--lab", action="append", help="repeat for several labs (default drain)")
    parser.add_argument("--goals", action="store_true", help="issue 13's three goals, a table")
    parser.add_argument(
        "--ab", action="store_true", help="also on the site as configured before (see above)"
    )
    parser.add_argument("--url", help="a site already running (else one is started)")
    parser.add_argument("--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench.sqlite3'}")
    parser.add_argument("--web-workers", type=int, default=5)
    parser.add_argument("--vary-seed", action="store_true", help="a seed of each student's own")
    parser.add_argument(
        "--goals29", action="store_true", help="issue 29's goals (own seeds) and a lesson page"
    )
    parser.add_argument("--page", help="also: --page-students open this path at once")
    parser.add_argument("--page-students", type=int, default=50)
    parser.add_argument("--py-spy", metavar="DIR", help="profile the site's processes (py-spy)")
    parser.add_argument("--py-spy-bin", default="py-spy", help="the py-spy binary")
    parser.add_argument(
        "--sequential",
        type=int,
        default=0,
        help="first: one student presses Run this many times in a row on trapped-service "
        "(own seeds), for the site's CPU per computed press with nothing else going on",
    )
    args = parser.parse_args()

    def profiled(site: Site | None, name: str):
        """py-spy on the site's processes for the body, its top functions printed after."""
        if not args.py_spy or site is None:
            return contextlib.nullcontext()
        out = Path(args.py_spy)

        @contextlib.contextmanager
        def recorded():
            with pyspy.recording(site.sessions(), out, name, args.py_spy_bin):
                yield
            print(f"\n[{site.label}] where the site's CPU went ({name}, py-spy):\n")
            print(pyspy.top(out, name))

        return recorded()

    if args.py_spy and not pyspy.available(args.py_spy_bin):
        parser.error(f"--py-spy: {args.py_spy_bin} does not run, or may not attach (ptrace)")
    if args.goals29:
        args.vary_seed = True
        args.page = args.page or LESSON_PAGE
        plan = list(GOALS_29)
    elif args.goals:
        plan = list(GOALS)
    else:
        plan = [(lab, args.students, 0.0) for lab in args.lab or ["drain"]]

    os.environ["DATABASE_URL"] = args.database_url
    if not args.url:
        # One telemetry prefix for the sites this bench starts and its own reading of it
        # (each site's sampler leads under it in turn, as the bench runs one at a time).
        os.environ["TELEMETRY_PREFIX"] = f"bench-telemetry-{uuid.uuid4().hex[:6]}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    sys.path.insert(0, str(ROOT))
    import django

    if not args.url:
        # ./dev serve builds the compiled loop as it starts; build it first so this line
        # reports what the workers will really run.
        subprocess.run([sys.executable, "-m", "labs.sim.capstone.build"], cwd=ROOT, check=False)
    django.setup()
    from labs.sim.capstone.fast import COMPILED

    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()}: {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}, database {args.database_url.split(':')[0]}, "
        f"capstone loop {'compiled' if COMPILED else 'PURE PYTHON (not built: ./dev builds it)'}"
    )
    if not COMPILED:
        print("warning: the workers will run the pure-Python capstone loop, several times slower")

    configs = [False, True] if args.ab else [False]
    sites = (
        [] if args.url else [Site(args.database_url, args.web_workers, baseline=b) for b in configs]
    )
    rows = []
    try:
        for site in sites:
            site.__enter__()
        bases = [(site.label, site.url) for site in sites] or [("given site", args.url)]
        names = make_students(max([n for _lab, n, _goal in plan] + [args.page_students]))
        classes = {label: [Student(base, name) for name in names] for label, base in bases}
        for students in classes.values():
            for student in students:
                student.log_in()
            # A site that has served a class before: every web thread has its database
            # connection and its templates, the workers have run a lab (not measured).
            burst(students[:WARM_UP_STUDENTS], "drain", vary_seed=False)
        for bench_site in sites:
            idle_before = bench_site.cpu_s()
            time.sleep(10)
            idle_s = (bench_site.cpu_s() - idle_before) / 10
            print(f"\n[{bench_site.label}] site CPU while idle: {1000 * idle_s:.0f} ms/s")
            if args.sequential:
                one = classes[bench_site.label][0]
                with profiled(bench_site, "sequential"):
                    cpu_before, started = bench_site.cpu_s(), time.perf_counter()
                    for i in range(args.sequential):
                        seed = 50_000 + i + int(started) % 10_000 * 100
                        form = lab_form("trapped-service", seed)
                        press_run(one, "trapped-service", form, threading.Barrier(1), record=False)
                    wall = time.perf_counter() - started
                cpu = bench_site.cpu_s() - cpu_before - idle_s * wall
                print(
                    f"one student, {args.sequential} computed presses in a row: "
                    f"{1000 * cpu / args.sequential:.0f} ms of site CPU per press "
                    f"(idle CPU taken off), {wall / args.sequential:.2f} s each"
                )
        for i, (lab, n, goal) in enumerate(plan):
            # The same burst on each site, one after the other, the first going first
            # every other time (so neither always meets a cold worker).
            for label, _base in bases if i % 2 == 0 else bases[::-1]:
                since = time.time()
                running = next((s for s in sites if s.label == label), None)
                cpu_before = running.cpu_s() if running else 0.0
                with profiled(running, f"{lab}-{n}"):
                    timings = burst(classes[label][:n], lab, args.vary_seed)
                print(f"\n[{label}]", end="")
                report(lab, n, timings)
                if running:
                    computed = sum(1 for t in timings if not t.error and not t.from_store)
                    cpu = running.cpu_s() - cpu_before
                    print(
                        f"site CPU: {cpu:.2f} s over the burst, {1000 * cpu / max(1, computed):.0f}"
                        f" ms per computed press ({computed} computed; every process)"
                    )
                if not args.url:
                    ops_check(lab, since)
                rows.append((label, lab, n, goal, timings))
        if args.goals or args.goals29:
            goals_table(rows)
        if args.page:
            for label, _base in bases:
                running = next((s for s in sites if s.label == label), None)
                students = classes[label][: args.page_students]
                page_burst(students, args.page)  # warm: templates, connections, the cache
                cpu_before, started = (running.cpu_s() if running else 0.0), time.perf_counter()
                seconds = page_burst(students, args.page)
                wall = time.perf_counter() - started
                print(f"\n[{label}]", end="")
                page_cpu = running.cpu_s() - cpu_before if running else None
                page_report(args.page, seconds, wall, page_cpu)
    finally:
        for site in sites:
            site.__exit__(None, None, None)


if __name__ == "__main__":
    main()
