"""`manage.py sweep_runs --loop`: one turn of the loop ends the runs whose worker died.

The loop is what `./dev run`, `./dev sweeper` and `./dev serve` start; the sweeps' own
tests call `sweep_once`, so this holds the loop's body to calling it: a run whose lease ran
out is sent again, one that had its three tries is failed.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from labs.management.commands import sweep_runs
from labs.runs.models import Run


class OneTurn(threading.Event):
    """The loop's stop event, set by the loop's own wait: exactly one pass, no sleeping."""

    def wait(self, timeout: float | None = None) -> bool:
        self.set()
        return True


@pytest.fixture
def one_turn(monkeypatch):
    monkeypatch.setattr(sweep_runs.threading, "Event", OneTurn)
    # The loop sets SIGINT/SIGTERM handlers: not in the test process.
    monkeypatch.setattr(sweep_runs.signal, "signal", lambda *args: None)
    # It would close the test's connection, which is inside the test's transaction (Django's
    # test client skips it for the same reason).
    monkeypatch.setattr(sweep_runs, "close_old_connections", lambda: None)


def dead_workers_run(people, attempts: int) -> Run:
    return Run.objects.create(
        owner=people.alice,
        lab="drain",
        params={},
        seed=0,
        status="running",
        started_at=timezone.now(),
        attempts=attempts,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )


def test_it_ends_a_dead_workers_runs_in_one_turn_of_the_loop(people, published, one_turn):
    again, spent = dead_workers_run(people, attempts=1), dead_workers_run(people, attempts=3)

    call_command("sweep_runs", "--loop", "--no-telemetry")

    again.refresh_from_db(), spent.refresh_from_db()
    assert again.status == "queued" and again.resent_at is not None
    assert [m["args"] for m in published] == [(str(again.pk),)]
    assert spent.status == "failed" and "worker" in spent.error
