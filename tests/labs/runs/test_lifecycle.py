"""Every run ends, and a repeated run is answered at once: queues, expiry, sweeps, store."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.runs import result_store
from labs.runs.admission import queue_for
from labs.runs.models import Run
from labs.runs.sweeps import prune, sweep_once
from labs.runs.tasks import execute_run
from tests.labs.runs.test_run_caps import defaults_form

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def press(client, django_capture_on_commit_callbacks):
    """`press(slug, **changes)`: the logged-in user presses Run; after-commit work runs."""

    def go(slug: str, **changes) -> Run:
        data = defaults_form(slug) | {k: str(v) for k, v in changes.items()}
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("lab-detail", args=[slug]), data)
        assert response.status_code == 302, response.content.decode()[:2000]
        return Run.objects.get(pk=response["Location"].rstrip("/").split("/")[-1])

    return go


# Queues -------------------------------------------------------------------------------


def test_quick_labs_and_heavy_work_go_to_different_queues(settings):
    settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE = "q-quick", "q-heavy"
    assert queue_for(get_lab("drain"), get_lab("drain").defaults()) == "q-quick"
    trapped = get_lab("trapped-service")
    assert queue_for(trapped, trapped.defaults()) == "q-quick"
    phase = get_lab("phase-map")
    assert queue_for(phase, phase.defaults()) == "q-quick"  # one lean map: under a second
    assert queue_for(phase, phase.defaults() | {"ten_seeds": True}) == "q-heavy"
    poison = get_lab("poison-live")
    assert queue_for(poison, poison.defaults()) == "q-heavy"


def test_a_run_is_published_to_its_queue_and_remembers_it(
    client, press, people, published, settings
):
    settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE = "q-quick", "q-heavy"
    client.force_login(people.alice)
    run = press("phase-map", seed=3, ten_seeds="on")
    assert run.queue == "q-heavy"


# Cost budget --------------------------------------------------------------------------


def test_a_run_over_the_budget_is_refused_at_the_form_in_words(client, people, published):
    client.force_login(people.alice)
    data = defaults_form("trapped-service") | {
        "horizon_s": "3600",
        "workers": "1",
        "service_ms": "10000",
        "client_timeout_ms": "10",
        "max_attempts": "4",
        "retry_layers": "3",
    }
    response = client.post(reverse("lab-detail", args=["trapped-service"]), data, **HX)
    assert response.status_code == 422
    html = response.content.decode()
    assert "of a worker&#x27;s time" in html and "may use at most 10 s" in html
    assert not Run.objects.exists()
    assert published == []


# Expiry and sweeps ----------------------------------------------------------------------


def test_a_run_nobody_picks_up_ends_failed_saying_the_runners_are_busy_or_down(people, settings):
    settings.LAB_QUEUE_TIMEOUT_S = 60
    old = Run.objects.create(
        owner=people.alice,
        lab="drain",
        params={},
        seed=0,
        created_at=timezone.now() - timedelta(seconds=61),
    )
    fresh = Run.objects.create(owner=people.alice, lab="drain", params={}, seed=0)

    report = sweep_once()

    old.refresh_from_db(), fresh.refresh_from_db()
    assert report.expired == 1
    assert old.status == "failed" and "runners are all busy, or none is running" in old.error
    assert fresh.status == "queued"


def test_a_poll_only_reads_the_sweeper_sends_a_dead_workers_run_again(client, people, published):
    client.force_login(people.alice)
    run = Run.objects.create(
        owner=people.alice,
        lab="drain",
        params={},
        seed=0,
        status="running",
        started_at=timezone.now(),
        attempts=1,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    assert client.get(run.get_absolute_url(), **HX).status_code == 200
    run.refresh_from_db()
    assert run.status == "running"  # the page did not write

    report = sweep_once()
    assert (report.requeued, report.stale) == (1, 0)
    run.refresh_from_db()
    assert run.status == "queued" and run.resent_at is not None
    assert [m["args"] for m in published] == [(str(run.pk),)]


def test_a_run_sent_again_keeps_its_place_in_its_classs_share(people, published):
    """Sent again (its worker died), a run goes out at the priority it was pressed at
    (`labs.runs.fair_share`): not ahead of other classes' runs, nor behind its own."""
    Run.objects.create(
        owner=people.alice, lab="drain", params={}, seed=0, status="running", priority=4,
        started_at=timezone.now(), attempts=1,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )  # fmt: skip
    assert sweep_once().requeued == 1
    assert [m["priority"] for m in published] == [4]


def test_the_sweeper_fails_a_dead_workers_run_that_had_its_three_tries(client, people, published):
    client.force_login(people.alice)
    run = Run.objects.create(
        owner=people.alice,
        lab="drain",
        params={},
        seed=0,
        status="running",
        started_at=timezone.now(),
        attempts=3,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    assert sweep_once().stale == 1
    run.refresh_from_db()
    assert run.status == "failed" and "worker" in run.error
    assert published == []


def test_a_waiting_run_says_how_many_runs_are_ahead_of_it(client, people, settings):
    settings.LAB_QUEUE = "q-quick"
    for _ in range(3):
        Run.objects.create(owner=people.bob, lab="drain", params={}, seed=0, queue="q-quick")
    Run.objects.create(owner=people.bob, lab="phase-map", params={}, seed=0, queue="q-heavy")
    mine = Run.objects.create(owner=people.alice, lab="drain", params={}, seed=0, queue="q-quick")
    client.force_login(people.alice)
    html = client.get(mine.get_absolute_url(), **HX).content.decode()
    assert "3 runs ahead of yours" in html


def test_runs_sent_at_a_lower_priority_are_not_ahead_and_a_higher_one_made_later_is(client, people):
    """The broker takes a higher priority first (`labs.runs.fair_share`): another class's
    flood sent lower is behind Alice's run, however early it was pressed; a run sent higher
    after hers is ahead of it."""

    def waiting(owner, priority: int) -> Run:
        return Run.objects.create(
            owner=owner, lab="drain", params={}, seed=0, queue="q-quick", priority=priority
        )

    for _ in range(5):
        waiting(people.bob, 4)  # a flood, pressed first, sent at level 4
    waiting(people.bob, 1)
    mine = waiting(people.alice, 1)
    waiting(people.bob, 0)  # pressed after hers, sent first
    waiting(people.bob, 1)  # same level, after hers: behind
    client.force_login(people.alice)
    html = client.get(mine.get_absolute_url(), **HX).content.decode()
    assert "2 runs ahead of yours" in html


def test_polling_starts_fast_and_backs_off(client, people):
    client.force_login(people.alice)
    young = Run.objects.create(owner=people.alice, lab="drain", params={}, seed=0)
    old = Run.objects.create(
        owner=people.alice,
        lab="drain",
        params={},
        seed=0,
        created_at=timezone.now() - timedelta(seconds=120),
    )
    # 50 ms in its first tenth of a second, 150 ms up to a second (a slow test machine).
    young_html = client.get(young.get_absolute_url(), **HX).text
    assert re.search(r'hx-trigger="load delay:(50|150)ms"', young_html)
    assert 'hx-trigger="load delay:2000ms"' in client.get(old.get_absolute_url(), **HX).text


def test_finished_runs_lose_their_live_samples_and_old_unnamed_ones_are_pruned(school):
    from teaching.models import Submission

    long_ago = timezone.now() - timedelta(days=400)
    fields = {"params": {}, "seed": 0, "status": "succeeded", "created_at": long_ago}
    plain = Run.objects.create(owner=school.alice, lab="drain", progress={"samples": [1]}, **fields)
    named = Run.objects.create(owner=school.alice, lab="drain", name="8 workers", **fields)
    handed_in = Run.objects.create(owner=school.alice, lab="drain", **fields)
    Submission.objects.create(assignment=school.assignment_a, student=school.alice, run=handed_in)
    recent = Run.objects.create(
        owner=school.alice, lab="drain", params={}, seed=0, status="succeeded"
    )

    assert sweep_once().compacted == 1
    plain.refresh_from_db()
    assert plain.progress is None
    assert prune() == 1
    assert not Run.objects.filter(pk=plain.pk).exists()
    assert Run.objects.filter(pk__in=[named.pk, handed_in.pk, recent.pk]).count() == 3


# Result store --------------------------------------------------------------------------


def test_a_repeated_run_is_answered_at_once_and_says_so(client, press, people, published):
    client.force_login(people.alice)
    first = press("drain")
    execute_run.run(str(first.pk))
    first.refresh_from_db()
    assert first.status == "succeeded"

    client.force_login(people.bob)
    again = press("drain")
    assert again.status == "succeeded" and again.same_as_id == first.pk
    assert again.result == first.result
    assert len(published) == 1  # no task for the repeat
    html = client.get(again.get_absolute_url()).content.decode()
    assert "Same result as an earlier run" in html


def test_a_run_identical_to_one_in_progress_waits_for_it(client, press, people, published):
    client.force_login(people.alice)
    leader = press("drain")
    client.force_login(people.bob)
    follower = press("drain")
    assert follower.status == "queued" and follower.same_as_id == leader.pk
    assert len(published) == 1

    execute_run.run(str(leader.pk))
    follower.refresh_from_db()
    assert follower.status == "succeeded"
    assert follower.result["summary"] == Run.objects.get(pk=leader.pk).result["summary"]


def test_other_params_or_another_seed_are_computed_anew(client, press, people, published):
    client.force_login(people.alice)
    a = press("trapped-service", seed=5)
    execute_run.run(str(a.pk))
    b = press("trapped-service", seed=6)
    assert b.status == "queued" and b.same_as_id is None
    assert len(published) == 2


def test_the_key_changes_with_the_model_version(monkeypatch):
    lab = get_lab("drain")
    key = result_store.result_key(lab, lab.defaults(), 0)
    assert key == result_store.result_key(lab, dict(lab.defaults()), 0)
    monkeypatch.setattr(result_store, "model_version", lambda module: "another-version")
    assert result_store.result_key(lab, lab.defaults(), 0) != key
    assert result_store.result_key(get_lab("poison-live"), {}, 0) == ""


def test_the_model_version_changes_with_the_compiled_loop_source(tmp_path, monkeypatch):
    from labs.runs import result_store

    sim = tmp_path / "sim"
    sim.mkdir()
    (sim / "model.py").write_text("x = 1\n")
    (sim / "_loop.pyx").write_text("cdef int x = 1\n")
    monkeypatch.setattr(result_store, "LABS_DIR", tmp_path)
    before = result_store.model_version.__wrapped__("no.such.module")
    (sim / "_loop.pyx").write_text("cdef int x = 2\n")
    assert result_store.model_version.__wrapped__("no.such.module") != before


def test_the_model_version_covers_every_module_a_runner_imports():
    from pathlib import Path

    from labs.runs import result_store

    runner = Path(result_store.LABS_DIR / "course" / "lesson_13" / "retry_storm" / "run.py")
    sources = {
        p.relative_to(result_store.LABS_DIR).as_posix()
        for p in result_store.imported_sources(runner)
    }
    # The shared table maker and the words saved in tables shape a result as much as the runner.
    assert {
        "course/lesson_13/retry_storm/run.py",
        "runners/common.py",
        "text.py",
        "interface/params.py",
    } <= sources
    assert not any(s.startswith(("catalogue/entries", "web/", "runs/")) for s in sources)
