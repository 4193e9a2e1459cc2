"""The attack review's faults, again: what each loses, what it serves, how soon the site is back.

The review of 7 Dec 2026 (`../shared/reviews/attack-review.md`, "Fault detail") ran 8 kinds
of fault against the site in production mode; its scripts were not kept. This one runs them
again, each against `./dev run --no-demo` on a Redis and a PostgreSQL of the bench's own
(`bench/fault_services.py`: the machine's shared 6379 and 5432 are never stopped or filled),
with a class at work (`bench/fault_load.py`: pressers, five writers, a monitor on
/healthz/deep, a canary). For each fault it prints:

* runs lost: runs the site said it had started (200 with a run) that ended failed;
* stuck waiting: such runs still queued or running 7 minutes after the repair;
* saved rows lost: rows of any table there before the fault and gone after it, and writes
  acknowledged during it (a run and its prediction, a run's name, a hand-in) not found
  (`bench/fault_ledger.py`);
* 5xx served: every 5xx any of the bench's clients got, by status and kind of request, and
  how many were not intended (`bench/fault_kinds.py`: a 503 saying Redis is down while it
  is, a 500 while the database is stopped are; anything else, or after the site is back,
  is not); requests that got no answer at all apart;
* recovery: from the repair (the service started again; a kill: the kill) to the last 5xx
  or unanswered request of any student ("last error"), a student's page answered 200,
  /healthz/deep "ok", and a new run pressed and finished.

    .venv/bin/python bench/faults.py                     # all nine runs, about 25 minutes
    .venv/bin/python bench/faults.py --only redis-stop --only postgres-stop
    .venv/bin/python bench/faults.py --list

Needs redis-server, PostgreSQL's binaries (/usr/lib/postgresql/*/bin) and nginx; as root it
runs PostgreSQL as the `postgres` user.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fault_clients import Record  # noqa: E402 - bench/, beside this file
from fault_kinds import FAULTS, Fault  # noqa: E402
from fault_ledger import Snapshot  # noqa: E402
from fault_load import Lab, Load, describe_runs, failures, make_class, wait_for_runs  # noqa: E402
from fault_services import OwnPostgres, OwnRedis  # noqa: E402
from machine import describe  # noqa: E402
from site_run import ROOT, dev_run, free_port  # noqa: E402

RUNS_END_WITHIN_S = 420  # past the queue timeout (300 s): a run still waiting then is stuck
SETTLED_S = 3.0  # after the site is back, a 5xx is no longer the fault's own
BAD = frozenset({0, *range(500, 600)})  # no answer, or a 5xx


@dataclass
class Outcome:
    fault: Fault
    runs: int = 0
    lost: list[str] = field(default_factory=list)
    stuck: int = 0
    rows: int = 0
    rows_lost: dict[str, int] = field(default_factory=dict)
    writes_missing: list[str] = field(default_factory=list)
    served: Counter = field(default_factory=Counter)  # (status, kind, intended) -> count
    texts: dict[tuple[int, str, bool], str] = field(default_factory=dict)
    said: Counter = field(default_factory=Counter)  # (status, kind, gist of its words) -> count
    stray: list[str] = field(default_factory=list)  # when each unintended 5xx came
    no_answer: Counter = field(default_factory=Counter)  # kind -> count
    recovery: dict[str, float | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def unintended(self) -> int:
        return sum(n for (_s, _k, ok), n in self.served.items() if not ok)

    def row(self) -> str:
        def seconds(key: str) -> str:
            value = self.recovery.get(key)
            return "never" if value is None else f"{value:.1f} s"

        lost = f"{len(self.lost)} of {self.runs}"
        if self.lost:
            lost += ": " + "; ".join(f"{n} × {e}" for e, n in Counter(self.lost).items())
        rows = sum(self.rows_lost.values()) + len(self.writes_missing)
        served = sum(self.served.values())
        detail = ", ".join(
            f"{n} × {s} {k}{'' if ok else ' (not intended)'}"
            for (s, k, ok), n in sorted(self.served.items())
        )
        unanswered = sum(self.no_answer.values())
        return (
            f"| {self.fault.title} | {lost} | {self.stuck} | {rows} of {self.rows} "
            f"| {served}{': ' + detail if detail else ''}"
            f"{f'; {unanswered} no answer' if unanswered else ''} "
            f"| last error {seconds('served')}, first page {seconds('page')}, deep ok "
            f"{seconds('deep')}, new run {seconds('run')} |"
        )


def quiet(load: Load) -> None:
    """Start each fault from a healthy site with no run of ours still going."""
    from django.db import connection

    connection.close()  # one from before a database restart is dead
    load.wait_until_healthy()
    deadline = time.monotonic() + RUNS_END_WITHIN_S
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM labs_run WHERE status IN ('queued', 'running')")
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(1)


def recover(load: Load, fault: Fault, since: float) -> dict[str, float | None]:
    """Page, deep check and a new run, timed from `since` side by side."""
    from django.db import connections

    def closing(measure, *args):
        try:
            return measure(*args)
        finally:
            connections.close_all()  # this thread's own connection: not left open

    with ThreadPoolExecutor(3) as pool:
        page = pool.submit(closing, load.first_page, since)
        deep = pool.submit(closing, load.first_deep_ok, since)
        run = pool.submit(closing, load.first_new_run, since, fault.canary)
        return {"page": page.result(), "deep": deep.result(), "run": run.result()}


def run_fault(load: Load, fault: Fault) -> Outcome:
    quiet(load)
    before = Snapshot.take()
    start = time.monotonic()
    load.start_background()
    window = fault.act(load)
    outcome = Outcome(fault, notes=window.notes)
    outcome.recovery = recover(load, fault, window.repaired)
    back = max((v for v in outcome.recovery.values() if v is not None), default=0.0)
    load.stop_background()
    end = time.monotonic()
    bad = [a.at for a in load.record.between(window.applied, end) if a.status in BAD]
    outcome.recovery["served"] = max(0.0, max(bad) - window.repaired) if bad else 0.0
    run_ids = [run_id for run_id, _figure in load.ledger.runs]
    ended = wait_for_runs(run_ids, RUNS_END_WITHIN_S)
    after = Snapshot.take()
    outcome.runs = len(run_ids)
    outcome.lost = [e.split(" (")[0] for e in failures(run_ids)]
    outcome.notes += [f"failed: {e}" for e in sorted(set(failures(run_ids)))]
    outcome.notes += describe_runs(window.watched)
    outcome.stuck = sum(ended.get(r) not in ("succeeded", "failed") for r in run_ids)
    outcome.rows = before.total_rows()
    outcome.rows_lost = after.lost_since(before)
    outcome.writes_missing = load.ledger.missing()
    settled = window.repaired + back + SETTLED_S
    for answer in load.record.between(start, end):
        if answer.status == 0:
            outcome.no_answer[answer.kind] += 1
        elif answer.status >= 500:
            intended = (answer.kind, answer.status) in fault.expected and (
                window.applied <= answer.at <= settled
            )
            outcome.served[(answer.status, answer.kind, intended)] += 1
            outcome.texts.setdefault((answer.status, answer.kind, intended), answer.text)
            outcome.said[(answer.status, answer.kind, gist(answer.text))] += 1
            if not intended:
                at = answer.at - window.applied
                outcome.stray.append(f"{answer.status} {answer.kind} at {at:+.1f} s")
    return outcome


# What a 5xx said, told apart by a phrase of it (the first that is in its words).
GISTS = (
    "short of memory",
    "No lab runner is up",
    '"down": ["redis"',  # deep (its detail, "full" or not, is past the words kept)
    "does not answer",
    "Something went wrong",
    "The site is restarting",
    "Bad Gateway",
)


def gist(text: str) -> str:
    return next((phrase for phrase in GISTS if phrase in text), "other")


def report(outcome: Outcome) -> None:
    print(f"\n### {outcome.fault.title} ({outcome.fault.key})")
    for note in outcome.notes:
        print(f"- {note}")
    for table, n in outcome.rows_lost.items():
        print(f"- **saved rows lost**: {n} of {table}")
    for problem in outcome.writes_missing:
        print(f"- **acknowledged write missing**: {problem}")
    for (status, kind, intended), text in sorted(outcome.texts.items()):
        print(f"- {status} on {kind}{'' if intended else ' (not intended)'}: “{text}”")
    if outcome.said:
        said = ", ".join(f"{n} × {s} {k} “{g}”" for (s, k, g), n in sorted(outcome.said.items()))
        print(f"- every 5xx by what it said: {said}")
    if outcome.stray:
        print(f"- not intended, from the fault's start: {', '.join(outcome.stray[:12])}")
    if outcome.no_answer:
        print(f"- no answer: {dict(outcome.no_answer)}")
    print(outcome.row(), flush=True)


def site_env(redis: OwnRedis, postgres: OwnPostgres, token: str) -> dict[str, str]:
    return {
        "REDIS_URL": redis.url,
        "DATABASE_URL": postgres.url("faults"),
        "HEALTH_TOKEN": token,
        # Every student here comes from 127.0.0.1: no per-address limit, turns by account.
        "PROXY_CONN_PER_ADDRESS": "0",
        "LAB_TURNS_BY_ADDRESS": "false",
        "LAB_QUEUE": "faults-quick",
        "LAB_HEAVY_QUEUE": "faults-heavy",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=[f.key for f in FAULTS])
    parser.add_argument("--list", action="store_true", help="the faults, then exit")
    parser.add_argument("--maxmemory", default="256mb", help="the bench Redis's (./dev's too)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    if args.list:
        for fault in FAULTS:
            print(f"{fault.key:<18} {fault.title}")
        return
    chosen = [f for f in FAULTS if not args.only or f.key in args.only]
    print(f"# {describe()}")
    tmp = Path(tempfile.mkdtemp(prefix="faults-"))
    tmp.chmod(0o755)  # PostgreSQL runs as its own user below it
    redis = OwnRedis(free_port(), tmp / "redis", args.maxmemory)
    postgres = OwnPostgres(free_port(), tmp / "postgres")
    token = secrets.token_urlsafe(24)
    outcomes: list[Outcome] = []
    try:
        redis.start()
        postgres.init()
        postgres.start()
        postgres.create_database("faults")
        env = site_env(redis, postgres, token)
        with dev_run(tmp / "var", "--no-demo", **env) as (base, _process):
            os.environ.update(
                env, DEBUG="false", VAR_DIR=str(tmp / "var"),
                SECRET_KEY_FILE=str(tmp / "var" / "secret_key"),
                DJANGO_SETTINGS_MODULE="school.settings",
            )  # fmt: skip
            sys.path.insert(0, str(ROOT))
            import django

            django.setup()
            lab = Lab(base, tmp / "var" / "run.log", redis, postgres, token)
            load = make_class(base, Record(), lab)
            for fault in chosen:
                outcomes.append(run_fault(load, fault))
                report(outcomes[-1])
    finally:
        redis.stop()
        postgres.stop()
        if args.keep:
            print(f"# kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n# {describe()}")
    print("\n| Fault | Runs lost | Stuck waiting | Saved rows lost | 5xx served | Recovery |")
    print("|---|---|---|---|---|---|")
    for outcome in outcomes:
        print(outcome.row())


if __name__ == "__main__":
    main()
