"""The run task: claims a run once, saves the result or the reason it failed."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.runs.models import Run
from labs.runs.result_store import result_key
from labs.runs.stale import resend_stale
from labs.runs.tasks import execute_run

DRAIN_PARAMS = {
    "arrivals": [50, 800, 800, 800, 200, 50, 50, 50, 50, 50],
    "per_worker": 100,
    "rule": "fixed",
    "fixed_workers": 3,
    "per_waiting": 100,
    "min_workers": 1,
    "max_workers": 10,
}


@pytest.fixture
def run(people) -> Run:
    return Run.objects.create(owner=people.alice, lab="drain", params=DRAIN_PARAMS, seed=0)


def test_it_runs_the_lab_and_saves_the_lessons_figures(run):
    assert execute_run.run(str(run.id)) == "succeeded"
    run.refresh_from_db()
    assert run.status == "succeeded" and run.attempts == 1
    assert run.result["summary"]["peak_backlog"] == 1500
    assert run.result["summary"]["left_at_end"] == 150
    assert run.started_at <= run.finished_at


def test_it_does_not_run_a_finished_run_twice(run):
    execute_run.run(str(run.id))
    first = Run.objects.get(pk=run.pk)
    assert execute_run.run(str(run.id)) == "skipped"
    again = Run.objects.get(pk=run.pk)
    assert (again.attempts, again.finished_at) == (1, first.finished_at)


def test_it_takes_over_a_run_whose_workers_lease_expired(run):
    Run.objects.filter(pk=run.pk).update(
        status="running", attempts=1, lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert execute_run.run(str(run.id)) == "succeeded"
    assert Run.objects.get(pk=run.pk).attempts == 2


def test_it_gives_up_after_three_attempts(run):
    Run.objects.filter(pk=run.pk).update(
        status="running", attempts=3, lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert execute_run.run(str(run.id)) == "skipped"
    assert resend_stale() == (0, 1)
    stale = Run.objects.get(pk=run.pk)
    assert stale.status == "failed" and "stopped before it finished" in stale.error


def test_it_saves_the_reason_when_the_model_refuses_parameters(people):
    bad = Run.objects.create(
        owner=people.alice,
        lab="drain",
        params={**DRAIN_PARAMS, "rule": "backlog", "per_waiting": 0},
        seed=0,
    )
    assert execute_run.run(str(bad.id)) == "failed"
    bad.refresh_from_db()
    assert bad.status == "failed" and "per_waiting" in bad.error


def test_it_refuses_parameters_before_the_runner_starts(people, monkeypatch):
    called = []
    watched = replace(get_lab("drain"), run=lambda *args: called.append(args))
    monkeypatch.setattr("labs.runs.tasks.get_lab", lambda slug: watched)
    bad = Run.objects.create(
        owner=people.alice, lab="drain", params={**DRAIN_PARAMS, "rule": "lifo"}, seed=0
    )
    assert execute_run.run(str(bad.id)) == "failed"
    bad.refresh_from_db()
    assert bad.error.startswith("The lab refused these parameters: rule: must be one of")
    assert called == []


def test_a_value_error_inside_a_runner_is_a_crash_not_refused_parameters(run, monkeypatch):
    def buggy(params, seed, progress):
        raise ValueError("math domain error")

    monkeypatch.setattr("labs.runs.tasks.get_lab", lambda slug: replace(get_lab(slug), run=buggy))
    assert execute_run.run(str(run.id)) == "failed"
    error = Run.objects.get(pk=run.pk).error
    assert error == "The lab crashed: ValueError: math domain error"


def test_it_fails_a_run_of_an_unknown_lab(people):
    ghost = Run.objects.create(owner=people.alice, lab="ghost", params={}, seed=0)
    assert execute_run.run(str(ghost.id)) == "failed"
    assert Run.objects.get(pk=ghost.pk).error_code == "unknown_lab"


def test_it_ignores_a_run_that_was_deleted(db):
    assert execute_run.run("00000000-0000-0000-0000-000000000000") == "missing"


def test_it_checks_back_later_when_another_worker_holds_a_live_lease(run):
    from celery.exceptions import Retry

    Run.objects.filter(pk=run.pk).update(
        status="running", attempts=1, lease_expires_at=timezone.now() + timedelta(seconds=15)
    )
    with pytest.raises(Retry):
        execute_run.run(str(run.id))
    assert Run.objects.get(pk=run.pk).attempts == 1


@pytest.mark.django_db(transaction=True)
def test_it_renews_the_lease_while_the_lab_runs():
    import time

    from labs.runs.lease import LeaseKeeper
    from tests.base import make_user

    held = Run.objects.create(
        owner=make_user("carol"), lab="drain", params=DRAIN_PARAMS, seed=0, status="running",
        lease_expires_at=timezone.now(),
    )  # fmt: skip
    before = held.lease_expires_at
    with LeaseKeeper(held.pk, lease_s=60, renew_every_s=0.05):
        time.sleep(0.3)
    held.refresh_from_db()
    assert held.lease_expires_at > before + timedelta(seconds=50)


def test_it_saves_the_phase_maps_progress_on_the_run(people):
    grid = {"spike_steps": 2, "duration_steps": 3, "map_horizon_s": 30}
    params = get_lab("phase-map").defaults() | grid
    run = Run.objects.create(owner=people.alice, lab="phase-map", params=params, seed=5)
    assert execute_run.run(str(run.id)) == "succeeded"
    run.refresh_from_db()
    assert run.progress is None  # saved while it ran (test_run_progress), dropped once done
    assert run.result["summary"]["runs"] == 6


# Real experiments: their keys live under the run's name, and a failed run keeps none. ------


def experiment_keys(run_pk) -> list[str]:
    from labs.experiments.namespace import Namespace, connect, kept_id, run_key_for

    r = connect(name="qlab-tests")
    try:
        key = run_key_for(run_pk)
        return Namespace(key).keys(r) + Namespace(kept_id(key)).keys(r)
    finally:
        r.close()


def leave_keys(run_pk) -> None:
    """Keys as a killed worker leaves them: the experiment's own, and a kept DLQ."""
    from labs.experiments.namespace import connect, run_key_for, run_namespace
    from tests.live_helpers import keep_parked

    r = connect(name="qlab-tests")
    r.set(run_namespace(run_key_for(run_pk)).key("q"), "x", ex=60)
    r.close()
    keep_parked(run_pk, ["pdf-1"])
    assert len(experiment_keys(run_pk)) >= 2


@pytest.fixture
def experiment(people) -> Run:
    from labs.catalogue.entries import get_lab

    lab = get_lab("fanout-live")
    params = lab.defaults() | {"jobs": 20, "crashes": 0}
    return Run.objects.create(owner=people.alice, lab=lab.slug, params=params, seed=1)


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)  # the live samples are saved from another thread
def test_it_runs_an_experiment_under_the_runs_name_and_keeps_only_its_dlq(experiment):
    from labs.experiments.dlq import open_kept
    from labs.experiments.namespace import kept_id, run_key_for
    from labs.runs.retained_queue import clean_run_keys, client

    leave_keys(experiment.pk)  # a dead first attempt's leftovers: the new one starts clean
    try:
        assert execute_run.run(str(experiment.id)) == "succeeded"
        experiment.refresh_from_db()
        assert experiment.result["summary"]["done"] == 20
        assert experiment.progress is None  # the live samples went with the run's end
        kept = open_kept(client(), kept_id(run_key_for(experiment.pk)))
        assert kept is not None and kept.dlq_depth() == 0  # the leftover DLQ went too
        assert all(":{run-" in k and "-dlq}:" in k for k in experiment_keys(experiment.pk))
    finally:
        clean_run_keys(experiment.pk)
    assert experiment_keys(experiment.pk) == []


@pytest.mark.redis
def test_a_stale_experiment_run_is_sent_again_with_its_keys_deleted(experiment, published):
    Run.objects.filter(pk=experiment.pk).update(
        status="running", attempts=1, lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    leave_keys(experiment.pk)
    assert resend_stale() == (1, 0)
    again = Run.objects.get(pk=experiment.pk)
    assert (again.status, again.lease_expires_at) == ("queued", None)
    assert [m["args"] for m in published] == [(str(experiment.pk),)]
    assert experiment_keys(experiment.pk) == []
    assert resend_stale() == (0, 0)  # once: it is queued now, not stale


@pytest.mark.redis
def test_a_stale_experiment_run_that_had_its_tries_is_failed_and_its_keys_deleted(
    experiment, published
):
    Run.objects.filter(pk=experiment.pk).update(
        status="running", attempts=3, lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    leave_keys(experiment.pk)
    assert resend_stale() == (0, 1)
    assert Run.objects.get(pk=experiment.pk).status == "failed"
    assert published == []
    assert experiment_keys(experiment.pk) == []


@pytest.mark.redis
def test_an_experiment_that_fails_keeps_no_keys(experiment, monkeypatch):
    def crash(*args, **kwargs):
        leave_keys(experiment.pk)  # as if it had got going
        raise RuntimeError("boom")

    monkeypatch.setattr("labs.runs.tasks.run_lab", crash)
    assert execute_run.run(str(experiment.id)) == "failed"
    assert "RuntimeError: boom" in Run.objects.get(pk=experiment.pk).error
    assert experiment_keys(experiment.pk) == []


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_an_experiment_over_twenty_seeds_runs_each_under_the_runs_name_and_keeps_one_dlq(
    people, published
):
    from labs.catalogue.entries import get_lab
    from labs.experiments.dlq import open_kept
    from labs.experiments.namespace import connect, kept_id, run_key_for, run_namespace
    from labs.runs.dispatch import publish
    from labs.runs.retained_queue import clean_run_keys, client

    lab = get_lab("retries-live")
    small = {"messages": 10, "workers": 2, "max_receives": 1, "base_s": 0.0, "cap_s": 0.0}
    params = lab.defaults() | small | {"over_seeds": True}
    lessons = lab.defaults() | {"over_seeds": True}
    publish(Run.objects.create(owner=people.alice, lab=lab.slug, params=lessons, seed=3), lab)
    # The lesson's 20 seeds are bounded at 96 s: their limit is that and the margin.
    assert published[0]["soft_time_limit"] == 96 + 15 > lab.time_limit_s
    run = Run.objects.create(owner=people.alice, lab=lab.slug, params=params, seed=3)
    # A seed's keys as a killed first attempt leaves them: under the run's name, so cleaned.
    r = connect(name="qlab-tests")
    r.set(run_namespace(run_key_for(run.pk)).child("seed-7").key("q"), "x", ex=60)
    r.close()
    try:
        assert execute_run.run(str(run.id)) == "succeeded"
        run.refresh_from_db()
        data = run.result["tables"]["seed_spread_data"]
        assert data["seeds"] == list(range(3, 23))
        kept = open_kept(client(), kept_id(run_key_for(run.pk)))
        assert kept is not None and kept.dlq_depth() == run.result["summary"]["dlq"]
        assert all("-dlq}:" in k for k in experiment_keys(run.pk))  # nothing but that DLQ
    finally:
        clean_run_keys(run.pk)
    assert experiment_keys(run.pk) == []


def test_an_experiment_given_back_for_its_turn_is_sent_again_with_its_time_limits(
    experiment, monkeypatch, settings
):
    """Its owner has another experiment running: the message sent for later carries the
    same limits as the first one (without them a stuck run would hold its worker)."""
    from labs.runs.tasks import hard_limit_for

    settings.LAB_EXPERIMENT_TURNS = True
    Run.objects.create(
        owner=experiment.owner, lab=experiment.lab, params=experiment.params, seed=2,
        status=Run.Status.RUNNING, lease_expires_at=timezone.now() + timedelta(seconds=20),
    )  # fmt: skip
    sent = []
    monkeypatch.setattr(execute_run, "apply_async", lambda **kw: sent.append(kw))
    assert execute_run.run(str(experiment.pk)) == "waiting its turn"
    limit_s = get_lab(experiment.lab).time_limit_for(experiment.params)
    assert len(sent) == 1
    assert sent[0]["soft_time_limit"] == limit_s
    assert sent[0]["time_limit"] == hard_limit_for(limit_s)


@pytest.mark.parametrize(
    ("raised", "code", "words"),
    [
        (
            "ConnectionError('Error 111 connecting to 127.0.0.1:6401. Connection refused.')",
            "redis_lost",
            "restarted",
        ),
        (
            "OutOfMemoryError(\"command not allowed when used memory > 'maxmemory'.\")",
            "redis_full",
            "short of memory",
        ),
    ],
)
def test_a_redis_that_restarts_or_fills_up_is_said_in_words(run, monkeypatch, raised, code, words):
    """The attack's D7: "The lab crashed: ConnectionError: Error 111 connecting to
    127.0.0.1:PORT" and "OutOfMemoryError" were shown to students."""
    import redis

    def broken(params, seed, progress):
        raise eval(raised, {"ConnectionError": redis.ConnectionError, **vars(redis.exceptions)})

    monkeypatch.setattr("labs.runs.tasks.get_lab", lambda slug: replace(get_lab(slug), run=broken))
    assert execute_run.run(str(run.id)) == "failed"
    failed = Run.objects.get(pk=run.pk)
    assert failed.error_code == code
    assert words in failed.error
    assert "127.0.0.1" not in failed.error and "Error" not in failed.error


def test_a_computed_draft_costs_its_task_five_queries(people, django_assert_num_queries):
    """The claim, the run read back with the store's look for an identical run finished
    meanwhile, the result kept (one statement), the run ended and its followers settled:
    each once. The challenges judge the run as the task holds it (none followed it), and
    read nothing (it was seven: the store's look and the challenges' read each a query)."""
    lab = get_lab("drain")
    draft = Run.objects.create(
        owner=people.alice,
        lab="drain",
        params=DRAIN_PARAMS,
        seed=0,
        draft=True,
        result_key=result_key(lab, DRAIN_PARAMS, 0),
    )
    with django_assert_num_queries(5):
        assert execute_run.run(str(draft.pk)) == "succeeded"


def test_a_run_whose_values_another_leader_computed_first_takes_its_stored_result(people):
    """Two drafts of the same values both computing (a queued draft is no twin to follow):
    the one a worker takes second finds the first's result at its claim, and computes
    nothing."""
    lab = get_lab("drain")
    key = result_key(lab, DRAIN_PARAMS, 0)
    first, second = (
        Run.objects.create(
            owner=owner, lab="drain", params=DRAIN_PARAMS, seed=0, draft=True, result_key=key
        )
        for owner in (people.alice, people.bob)
    )
    assert execute_run.run(str(first.pk)) == "succeeded"
    assert execute_run.run(str(second.pk)) == "stored"
    first.refresh_from_db()
    second.refresh_from_db()
    assert second.same_as_id == first.pk
    assert second.stored_result_id == first.stored_result_id is not None
