"""What a fault may not lose: every saved row, and every write that got a success answer.

Two checks, both read straight from the database after the fault:

* `Snapshot`: the primary keys of every table's rows before the fault; any of them missing
  after it is a saved row lost. Left out, because the site deletes them by design: draft
  runs (a newer draft replaces one still waiting; unkept ones go after the hour), the
  stored results no kept run points at (the hourly prune), the login throttle's records
  (django-axes clears them) and sessions. A run that had succeeded and no longer has is
  counted too (its result lost, the row kept).
* `Ledger`: each write a student made during the fault and was told had worked (a run
  started, with its prediction; a run's name; a hand-in) must be found afterwards. A write
  whose answer never came may or may not have landed: neither is an error.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

# Tables whose rows the site itself deletes as part of its work (see the docstring).
NOT_KEPT = frozenset(
    {
        "django_session",
        "axes_accessattempt",
        "axes_accessattemptexpiration",
        "axes_accessfailurelog",
        "axes_accesslog",
    }
)
# Rows of these tables that count as saved (the others are deleted by design).
KEPT_ROWS = {
    "labs_run": "NOT draft",
    "labs_storedresult": "id IN (SELECT stored_result_id FROM labs_run WHERE NOT draft)",
}


def _tables() -> list[tuple[str, str]]:
    """(table, primary key column) of every model's table, the many-to-many ones too."""
    from django.apps import apps

    seen: dict[str, str] = {}
    for model in apps.get_models(include_auto_created=True):
        meta = model._meta
        if meta.managed and not meta.proxy and meta.db_table not in NOT_KEPT:
            seen.setdefault(meta.db_table, meta.pk.column)
    return sorted(seen.items())


def _fresh_cursor():
    """A cursor on a new connection: one from before a database restart is dead."""
    from django.db import connection

    connection.close()
    return connection.cursor()


@dataclass
class Snapshot:
    keys: dict[str, set[str]]
    succeeded: set[str]  # runs that had succeeded

    @classmethod
    def take(cls) -> Snapshot:
        keys: dict[str, set[str]] = {}
        with _fresh_cursor() as cursor:
            for table, pk in _tables():
                where = KEPT_ROWS.get(table, "TRUE")
                cursor.execute(f'SELECT "{pk}"::text FROM "{table}" WHERE {where}')  # noqa: S608 - our names
                keys[table] = {row[0] for row in cursor.fetchall()}
            cursor.execute("SELECT id::text FROM labs_run WHERE status = 'succeeded'")
            succeeded = {row[0] for row in cursor.fetchall()}
        return cls(keys, succeeded)

    def lost_since(self, before: Snapshot) -> dict[str, int]:
        """{table: rows of `before` missing now}; "labs_run (result)": succeeded no longer."""
        lost = {t: len(k - self.keys.get(t, set())) for t, k in before.keys.items()}
        lost["labs_run (result)"] = len(before.succeeded - self.succeeded)
        return {table: n for table, n in lost.items() if n}

    def total_rows(self) -> int:
        return sum(len(k) for k in self.keys.values())


@dataclass
class Ledger:
    """The writes students were told had worked, and the ones whose answer never came."""

    runs: list[tuple[str, str]] = field(default_factory=list)  # (run id, figure or "")
    # run id -> the names sent, in order, each with whether its answer said saved
    labels: dict[str, list[tuple[str, bool]]] = field(default_factory=dict)
    hand_ins: list[tuple[int, int, str]] = field(default_factory=list)  # (assignment, user, run)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run_started(self, run_id: str, figure: str = "") -> None:
        with self.lock:
            self.runs.append((run_id, figure))

    def label_sent(self, run_id: str, name: str, saved: bool) -> None:
        with self.lock:
            self.labels.setdefault(run_id, []).append((name, saved))

    def handed_in(self, assignment_id: int, user_id: int, run_id: str) -> None:
        with self.lock:
            self.hand_ins.append((assignment_id, user_id, run_id))

    def missing(self) -> list[str]:
        """Each acknowledged write not found in the database, said in a line."""
        problems: list[str] = []
        with _fresh_cursor() as cursor:
            problems += self._missing_runs(cursor)
            problems += self._missing_labels(cursor)
            problems += self._missing_hand_ins(cursor)
        return problems

    def _missing_runs(self, cursor) -> list[str]:
        problems = []
        for run_id, figure in self.runs:
            cursor.execute("SELECT draft FROM labs_run WHERE id = %s", [run_id])
            row = cursor.fetchone()
            if row is None:
                problems.append(f"run {run_id}: started (200), gone")
                continue
            if figure:
                cursor.execute(
                    "SELECT 1 FROM labs_prediction WHERE run_id = %s AND figure = %s",
                    [run_id, figure],
                )
                if cursor.fetchone() is None:
                    problems.append(f"run {run_id}: its prediction {figure} is gone")
        return problems

    def _missing_labels(self, cursor) -> list[str]:
        problems = []
        for run_id, sent in self.labels.items():
            saved = [i for i, (_name, ok) in enumerate(sent) if ok]
            if not saved:
                continue
            # The last name the site said it saved, or one sent after it (whose answer
            # may have been lost after it was saved).
            allowed = {name for name, _ok in sent[saved[-1] :]}
            cursor.execute("SELECT name FROM labs_run WHERE id = %s", [run_id])
            row = cursor.fetchone()
            if row is None or row[0] not in allowed:
                problems.append(
                    f"run {run_id}: named {sent[saved[-1]][0]!r} (200), now {row and row[0]!r}"
                )
        return problems

    def _missing_hand_ins(self, cursor) -> list[str]:
        problems = []
        for assignment_id, user_id, run_id in self.hand_ins:
            cursor.execute(
                "SELECT 1 FROM teaching_submission s WHERE s.assignment_id = %s"
                " AND s.student_id = %s AND (s.run_id = %s OR EXISTS (SELECT 1 FROM"
                " teaching_submissionversion v WHERE v.submission_id = s.id AND v.run_id = %s))",
                [assignment_id, user_id, run_id, run_id],
            )
            if cursor.fetchone() is None:
                problems.append(f"hand-in of run {run_id} (302): not in the submission")
        return problems
