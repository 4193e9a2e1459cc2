"""The class a fault meets: students pressing Run, writers saving, a monitor, a canary.

`Lab` holds the site's handles (its URL, its programs' process ids, the bench's Redis and
PostgreSQL); `Load` the people and what they do while a fault runs: five writers who each
press Run with a prediction, name their last run and hand it in, over and over; a student
signing in every 2 s; a monitor asking /healthz/deep every second; pressers the fault
itself directs; a canary that measures when a new run works again. Every acknowledged
write goes into the fault's ledger (`bench/fault_ledger.py`).
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from burst import lab_form
from fault_clients import Client, Record, deep_status
from fault_ledger import Ledger
from fault_services import OwnPostgres, OwnRedis

PASSWORD = "fault-bench-password-9"  # noqa: S105 - throwaway accounts in a throwaway database
PREDICTION = ("predict-peak_backlog", "peak_backlog", "1000")  # trapped-service's prompt
_seeds = itertools.count(int(time.time()) % 100_000 * 1000)


def form(kind: str) -> tuple[str, dict[str, str]]:
    """(lab, POST) of one kind of run; each with a seed (or a value) never used before, so
    every press is computed, not answered from the result store."""
    seed = next(_seeds)
    if kind == "quick":  # trapped-service: a quick simulation, about 0.2 s
        data = lab_form("trapped-service", seed % 900_000)
        data[PREDICTION[0]] = PREDICTION[2]
        return "trapped-service", data
    if kind == "long":  # trapped-live's lesson values: a real experiment of about 80 s
        return "trapped-live", lab_form("trapped-live", seed % 900_000)
    if kind == "mid":  # trapped-live over 150 model seconds: about 40 s
        data = lab_form("trapped-live", seed % 900_000)
        data |= {"horizon_s": "150", "recover_at_s": "120"}
        return "trapped-live", data
    if kind == "fanout":  # a few seconds on the heavy pool
        return "fanout-live", lab_form("fanout-live", seed % 900_000)
    if kind == "poison":  # keeps its dead-letter queue in Redis (4 h)
        data = lab_form("poison-live", None)
        data["messages"] = str(8 + seed % 5)
        return "poison-live", data
    if kind == "draft":  # a slider moved on drain
        data = lab_form("drain", None)
        data["per_worker"] = str(50 + seed % 150)
        return "drain", data
    raise ValueError(f"no kind of run {kind!r}")


@dataclass
class Lab:
    """The site under test and the services the bench owns."""

    base: str
    log: Path  # ./dev run's output: the supervisor says each program's pid there
    redis: OwnRedis
    postgres: OwnPostgres
    token: str  # HEALTH_TOKEN: /healthz/deep's detail

    def pid(self, program: str) -> int:
        """The running main process of one of ./dev run's programs (web, quick-1, heavy...)."""
        found = re.findall(rf"started {re.escape(program)} \(pid (\d+)\)", self.log.read_text())
        if not found:
            raise SystemExit(f"the supervisor never started {program}")
        return int(found[-1])


@dataclass
class Load:
    lab: Lab
    record: Record
    pressers: list[Client]
    writers: list[Client]
    drafters: list[Client]
    canary: Client
    visitor: str  # a student who signs in afresh every 2 s (a new browser each time)
    monitor: Client
    assignment_id: int
    user_ids: dict[str, int]
    ledger: Ledger = field(default_factory=Ledger)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    # Pressing Run ------------------------------------------------------------------------

    def press(self, client: Client, kind: str) -> tuple[int, str | None]:
        lab, data = form(kind)
        status, run_id, _ = client.press(lab, data)
        if run_id:
            self.ledger.run_started(run_id, PREDICTION[1] if kind == "quick" else "")
        return status, run_id

    def press_together(self, plan: list[tuple[Client, str]]) -> list[str | None]:
        """Every (student, kind) of `plan` pressed at the same instant; the run ids."""
        barrier = threading.Barrier(len(plan))
        ids: list[str | None] = [None] * len(plan)

        def one(i: int, client: Client, kind: str) -> None:
            barrier.wait()
            ids[i] = self.press(client, kind)[1]

        threads = [threading.Thread(target=one, args=(i, c, k)) for i, (c, k) in enumerate(plan)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return ids

    # What goes on all through a fault ------------------------------------------------------

    def start_background(self, *, writers: bool = True) -> None:
        self.ledger, self._stop = Ledger(), threading.Event()
        self._threads = [
            threading.Thread(target=self._monitor, daemon=True),
            threading.Thread(target=self._sign_in, daemon=True),
        ]
        if writers:
            self._threads += [
                threading.Thread(target=self._write, args=(w,), daemon=True) for w in self.writers
            ]
        for thread in self._threads:
            thread.start()

    def stop_background(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)

    def in_background(self, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, daemon=True)
        self._threads.append(thread)
        thread.start()

    @property
    def stopping(self) -> threading.Event:
        return self._stop

    def _monitor(self) -> None:
        while not self._stop.wait(1.0):
            deep_status(self.monitor, self.lab.token)

    def _sign_in(self) -> None:
        """A student signing in: a new session row, and their last login saved."""
        while not self._stop.wait(2.0):
            browser = Client(self.lab.base, self.visitor, self.record, timeout_s=20)
            browser.request("page", "/accounts/login/")
            browser.request(
                "login", "/accounts/login/", {"username": self.visitor, "password": PASSWORD}
            )

    def _write(self, writer: Client) -> None:
        """Press Run with a prediction, name the run, hand it in; again, every half second."""
        last: str | None = None
        for step in itertools.count():
            if self._stop.wait(0.5):
                return
            if step % 3 == 0 or last is None:
                last = self.press(writer, "quick")[1] or last
            elif step % 3 == 1:
                name = f"{writer.username}-{step}"
                status = writer.label(last, name)
                self.ledger.label_sent(last, name, status == 200)
            elif writer.hand_in(self.assignment_id, last) == 302:
                self.ledger.handed_in(self.assignment_id, self.user_ids[writer.username], last)

    # After a fault ----------------------------------------------------------------------

    def wait_until_healthy(self, give_up_s: float = 300) -> float:
        """Seconds until /healthz/deep says ok (both workers beating)."""
        start = time.monotonic()
        while time.monotonic() - start < give_up_s:
            if deep_status(self.monitor, self.lab.token) == (200, "ok"):
                return time.monotonic() - start
            time.sleep(0.25)
        raise SystemExit(f"/healthz/deep never said ok within {give_up_s:.0f} s")

    def first_page(self, since: float, give_up_s: float = 300) -> float | None:
        """Seconds from `since` to a student's page answered 200."""
        while time.monotonic() - since < give_up_s:
            if self.canary.request("page", "/runs/")[0] == 200:
                return time.monotonic() - since
            time.sleep(0.1)
        return None

    def first_deep_ok(self, since: float, give_up_s: float = 300) -> float | None:
        while time.monotonic() - since < give_up_s:
            if deep_status(self.monitor, self.lab.token) == (200, "ok"):
                return time.monotonic() - since
            time.sleep(0.1)
        return None

    def first_new_run(self, since: float, kind: str, give_up_s: float = 300) -> float | None:
        """Seconds from `since` to the end of the first new run that succeeded (pressed again
        while refused or failed)."""
        while time.monotonic() - since < give_up_s:
            status, run_id = self.press(self.canary, kind)
            if run_id is None:
                time.sleep(0.5)
                continue
            if run_status(run_id, wait_s=give_up_s) == "succeeded":
                return time.monotonic() - since
        return None


def run_status(run_id: str, wait_s: float) -> str:
    """The run's status once it has ended, or the last one seen after `wait_s`."""
    status = ""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        status = statuses([run_id]).get(run_id, "gone")
        if status in ("succeeded", "failed", "gone"):
            return status
        time.sleep(0.1)
    return status


def statuses(run_ids: list[str]) -> dict[str, str]:
    """{run id: status}; {} while the database does not answer."""
    from django.db import DatabaseError, connection

    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT id::text, status FROM labs_run WHERE id::text = ANY(%s)",
                           [run_ids])  # fmt: skip
            return dict(cursor.fetchall())
    except DatabaseError:
        connection.close()
        return {}


def wait_for_runs(run_ids: list[str], give_up_s: float) -> dict[str, str]:
    """{run id: status} once none is queued or running, or at `give_up_s`."""
    deadline = time.monotonic() + give_up_s
    found: dict[str, str] = {}
    while time.monotonic() < deadline:
        found = statuses(run_ids)
        if found and all(s in ("succeeded", "failed") for s in found.values()):
            break
        time.sleep(1.0)
    return found


def failures(run_ids: list[str]) -> list[str]:
    """'lab: error' of each failed run among `run_ids`."""
    from labs.runs.models import Run

    return [
        f"{run.lab}: {run.error_code or '-'} ({run.error[:90]})"
        for run in Run.objects.filter(pk__in=run_ids, status="failed")
    ]


def describe_runs(run_ids: list[str]) -> list[str]:
    """'lab: status after N attempts, S s from press to end' of each run."""
    from labs.runs.models import Run

    lines = []
    for run in Run.objects.filter(pk__in=run_ids).order_by("created_at"):
        took = (run.finished_at - run.created_at).total_seconds() if run.finished_at else None
        lines.append(
            f"{run.lab} {str(run.pk)[:8]}: {run.status} after {run.attempts} attempt(s)"
            + (f", {took:.1f} s from press to end" if took is not None else "")
            + (", sent again by the sweeper" if run.resent_at else "")
        )
    return lines


def make_class(base: str, record: Record, lab: Lab) -> Load:
    """A teacher, a class with an assignment on trapped-service, and its students, logged in."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.utils import timezone

    from teaching.models import Assignment, Classroom, Membership

    users = get_user_model().objects
    hashed = make_password(PASSWORD)
    teacher = users.create(username="fault-teacher", password=hashed)
    classroom = Classroom.objects.create(name="Faults", teacher=teacher)
    assignment = Assignment.objects.create(
        classroom=classroom, title="Trapped", lab="trapped-service",
        due_at=timezone.now() + timedelta(days=30),
    )  # fmt: skip
    groups = {"presser": 5, "writer": 5, "drafter": 4, "canary": 1, "visitor": 1}
    clients: dict[str, list[Client]] = {}
    ids: dict[str, int] = {}
    for group, count in groups.items():
        clients[group] = []
        for i in range(count):
            user = users.create(username=f"fault-{group}-{i}", password=hashed)
            Membership.objects.create(classroom=classroom, student=user)
            ids[user.username] = user.pk
            client = Client(base, user.username, record)
            client.log_in(PASSWORD)
            clients[group].append(client)
    return Load(
        lab=lab, record=record, pressers=clients["presser"], writers=clients["writer"],
        drafters=clients["drafter"], canary=clients["canary"][0],
        visitor=clients["visitor"][0].username,
        monitor=Client(base, "monitor", record, timeout_s=10),
        assignment_id=assignment.pk, user_ids=ids,
    )  # fmt: skip
