"""Pruning keeps every run something holds on to, and prunes the rest, after resubmissions
and pair hand-ins too (it used to stop for good at the first such run)."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from labs.capstone.analysis import Analysis
from labs.runs import references
from labs.runs.models import Run, StoredResult
from labs.runs.sweeps import prunable, prune
from teaching.gradebook.hand_in import hand_in
from teaching.models import Assignment, Submission, SubmissionVersion
from tests.base import DUE

LONG_AGO = timezone.now() - timedelta(days=400)


def old_run(owner, **fields):
    values = {"lab": "drain", "params": {}, "seed": 0, "status": "succeeded"}
    values |= {"created_at": LONG_AGO, "finished_at": LONG_AGO}
    return Run.objects.create(owner=owner, **(values | fields))


@pytest.fixture
def year(school):
    """Old runs held in every way a run can be held, and old runs nothing holds."""
    alice = school.alice
    pair = Assignment.objects.create(
        classroom=school.class_a, title="Pair", lab="drain", handin="pair", due_at=DUE
    )
    held = {
        "submission run": old_run(alice),
        "submission before run": old_run(alice),
        "version run": old_run(alice),
        "version before run": old_run(alice),
        "analysis before": old_run(alice),
        "analysis after": old_run(alice),
        "named": old_run(alice, name="8 workers"),
        "draining": old_run(alice, drain_until=timezone.now() + timedelta(minutes=5)),
        "recent": old_run(alice, created_at=timezone.now()),
    }
    # A pair handed in, then handed in again: the first pair becomes a SubmissionVersion.
    hand_in(pair, alice, held["version run"], held["version before run"], DUE)
    hand_in(pair, alice, held["submission run"], held["submission before run"], DUE)
    Analysis.objects.create(
        owner=alice, before=held["analysis before"], after=held["analysis after"], loop="Mine."
    )
    stored = StoredResult.objects.create(key="k" * 64, data={}, created_at=LONG_AGO)
    free = [old_run(alice, stored_result=stored) for _ in range(7)] + [
        old_run(school.bob, status="failed") for _ in range(5)
    ]
    assert SubmissionVersion.objects.filter(run=held["version run"]).exists()
    return held, free, stored


def test_it_keeps_every_held_run_and_prunes_the_rest(year):
    held, free, stored = year
    assert prune(batch=3) == len(free)  # several batches, none stopped by a held run
    kept = set(Run.objects.values_list("pk", flat=True))
    assert {run.pk for run in held.values()} == kept
    assert not StoredResult.objects.filter(pk=stored.pk).exists()  # no run shows it now
    assert Analysis.objects.get().loop == "Mine."
    assert prune() == 0  # and the next sweep has nothing left to do, and does not fail


def test_a_run_held_by_a_key_nobody_declared_is_skipped_and_logged_once(year, monkeypatch, caplog):
    held, free, _stored = year
    # As if teaching had forgotten to declare its before-run keys: the delete meets RESTRICT.
    declared = [h for h in references.holders() if h[1] != "before_run"]
    monkeypatch.setattr(references, "holders", lambda: tuple(declared))
    surprise = {held["submission before run"].pk, held["version before run"].pk}
    assert surprise <= set(prunable().values_list("pk", flat=True))
    with caplog.at_level(logging.WARNING, logger="labs.runs.sweeps"):
        assert prune(batch=4) == len(free)
        assert prune(batch=4) == 0
    assert set(Run.objects.values_list("pk", flat=True)) == {r.pk for r in held.values()}
    logged = [r.getMessage() for r in caplog.records if "prune skipped run" in r.getMessage()]
    assert len(logged) == len(surprise)  # once each, though two prunes met them
    assert all(any(str(pk) in line for line in logged) for pk in surprise)
    assert Submission.objects.get().before_run_id == held["submission before run"].pk
