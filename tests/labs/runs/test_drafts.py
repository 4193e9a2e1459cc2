"""Drafts: the runs a quick lab starts by itself as its controls move (`labs.runs.drafts`).

They go the way Run goes (form, caps, queue, result store), stay out of the history, are
replaced while they wait, and are deleted by the sweeper unless the student keeps them.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.runs import drafts
from labs.runs.models import Run
from labs.runs.sweeps import sweep_once
from labs.runs.tasks import execute_run
from teaching.gradebook.hand_in import hand_in
from tests.base import DUE
from tests.labs.runs.test_run_caps import defaults_form

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def move(client, django_capture_on_commit_callbacks):
    """`move(slug, **changes)`: the lab's form with `changes`, posted as a draft."""

    def go(slug: str = "drain", expect: int = 200, **changes):
        data = defaults_form(slug) | {k: str(v) for k, v in changes.items()}
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("lab-draft", args=[slug]), data, **HX)
        assert response.status_code == expect, response.content.decode()[:2000]
        return response

    return go


def made(response) -> Run:
    run_id = re.search(r'id="run-([0-9a-f-]{36})"', response.content.decode()).group(1)
    return Run.objects.get(pk=run_id)


def test_a_move_starts_a_draft_on_the_quick_queue_that_the_history_does_not_list(
    client, people, published, move, settings
):
    client.force_login(people.alice)
    draft = made(move(per_worker=150))
    assert draft.draft and draft.status == Run.Status.QUEUED
    assert draft.queue == settings.LAB_QUEUE
    assert [m["args"] for m in published] == [(str(draft.pk),)]
    run = client.post(reverse("lab-detail", args=["drain"]), defaults_form("drain"))
    kept = Run.objects.get(draft=False)
    assert run.status_code == 302 and not kept.draft
    history = client.get(reverse("my-runs")).content.decode()
    assert str(kept.pk) in history and str(draft.pk) not in history


def test_a_newer_draft_replaces_the_one_still_waiting_and_its_task_then_does_nothing(
    client, people, published, move
):
    client.force_login(people.alice)
    first = made(move(per_worker=150))
    second = made(move(per_worker=160))
    assert list(Run.objects.values_list("pk", flat=True)) == [second.pk]
    assert len(published) == 2
    assert execute_run.apply(args=(str(first.pk),)).get() == "missing"


def test_nothing_waits_on_a_queued_draft_so_replacing_it_loses_nothing(
    client, people, published, move
):
    client.force_login(people.alice)
    first = made(move(per_worker=150))
    data = defaults_form("drain") | {"per_worker": "150"}
    client.post(reverse("lab-detail", args=["drain"]), data)  # Run, on the same values
    computes = Run.objects.get(draft=False)
    assert computes.same_as_id is None  # its own leader, not the draft's follower
    made(move(per_worker=160))
    assert not Run.objects.filter(pk=first.pk).exists()
    # A draft a worker has taken may lead: it is never deleted while it runs.
    running = made(move(per_worker=170))
    Run.objects.filter(pk=running.pk).update(status=Run.Status.RUNNING)
    client.post(reverse("lab-detail", args=["drain"]), data | {"per_worker": "170"})
    assert Run.objects.get(draft=False, params__per_worker=170).same_as_id == running.pk
    made(move(per_worker=180))
    assert Run.objects.filter(pk=running.pk).exists()


def test_drafts_count_against_the_caps(client, people, published, move, settings):
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 2
    client.force_login(people.alice)
    Run.objects.create(owner=people.alice, lab="drain", params={}, seed=1, status="running")
    running = made(move(per_worker=150))
    Run.objects.filter(pk=running.pk).update(status=Run.Status.RUNNING)  # a worker took it
    html = move(expect=429, per_worker=160).content.decode()
    assert "You already have 2 runs going" in html
    assert 'id="form-errors-drain"' in html and 'hx-swap-oob="true"' in html
    assert Run.objects.count() == 2
    # A running draft holds its place for Run too.
    press = client.post(reverse("lab-detail", args=["drain"]), defaults_form("drain"), **HX)
    assert press.status_code == 429


def test_a_refused_value_says_why_beside_its_field_and_runs_nothing(
    client, people, published, move
):
    client.force_login(people.alice)
    html = move(expect=422, per_worker="0").content.decode()
    slot = re.search(r'<div class="error" id="id_per_worker_error"[^>]*>([^<]*)</div>', html)
    assert slot and slot.group(1).strip(), html
    assert 'hx-swap-oob="true"' in slot.group(0) and "hidden" not in slot.group(0)
    # The other fields' slots come back empty (a message from before is cleared).
    assert re.search(r'<div class="error" id="id_fixed_workers_error"[^>]*hidden', html)
    assert not Run.objects.exists() and published == []


def test_a_value_already_computed_is_answered_at_once(client, people, published, move):
    client.force_login(people.alice)
    first = made(move(per_worker=150))
    execute_run.apply(args=(str(first.pk),))
    again = move(per_worker=150)
    shown = made(again)
    assert shown.status == Run.Status.SUCCEEDED and shown.same_as_id == first.pk
    assert len(published) == 1  # no second task
    body = again.content.decode()
    assert "status-succeeded" in body and "A draft: it ran as you moved the controls" in body
    facts = json.loads(re.search(r'data-facts="([^"]*)"', body).group(1).replace("&quot;", '"'))
    assert ["per_worker", "Jobs one worker finishes per second", "150"] in facts["params"]
    assert facts["figures"][0][0] == "peak_backlog"


def test_only_quick_simulations_on_their_own_page_move_by_themselves(client, people, published):
    client.force_login(people.alice)
    assert "data-auto-run" in client.get(reverse("lab-detail", args=["drain"])).content.decode()
    page = client.get(reverse("lab-detail", args=["poison-live"])).content.decode()
    assert "data-auto-run" not in page and "lab-draft" not in page
    refused = client.post(
        reverse("lab-draft", args=["poison-live"]), defaults_form("poison-live"), **HX
    )
    assert refused.status_code == 409
    # One lean phase map is quick (its bound 0.97 s) and moves by itself; ten seeds of it
    # are heavy and wait for Run.
    page = client.get(reverse("lab-detail", args=["phase-map"])).content.decode()
    assert "data-auto-run" in page
    ten = defaults_form("phase-map") | {"ten_seeds": "on"}
    assert client.post(reverse("lab-draft", args=["phase-map"]), ten, **HX).status_code == 409
    assert not Run.objects.exists()
    client.logout()
    assert "data-auto-run" not in client.get(reverse("lab-detail", args=["drain"])).content.decode()


def test_a_draft_made_heavy_by_its_values_waits_for_run(client, people, published, move):
    client.force_login(people.alice)
    response = move("trapped-service", expect=409, base_rps=1000)
    assert "press Run to start it" in response.content.decode()
    assert not Run.objects.exists()


def test_the_phase_maps_heavy_first_moves_say_press_run_and_its_light_ones_run(
    client, people, published, move, settings
):
    # The site's own lines (.env.example), not this machine's: the map's bound is 0.97 s.
    settings.LAB_RUN_BUDGET_S, settings.LAB_HEAVY_FROM_S = 10, 1
    client.force_login(people.alice)
    for heavy in ({"spike_steps": 11}, {"base_min_rps": 89}, {"max_attempts": 4}):
        response = move("phase-map", expect=409, **heavy)
        assert "These values make a longer run: press Run to start it." in (
            response.content.decode()
        )
    assert not Run.objects.exists()
    # One more normal load between equal ends is the same map, so it runs as a draft.
    assert made(move("phase-map", base_steps=2)).draft


def old_draft(owner, **fields) -> Run:
    long_ago = timezone.now() - timedelta(hours=3)
    values = {"lab": "drain", "params": {}, "seed": 0, "status": "succeeded", "draft": True}
    return Run.objects.create(owner=owner, **(values | {"created_at": long_ago} | fields))


def test_the_sweeper_deletes_old_drafts_unless_kept(client, school, published, settings):
    settings.LAB_QUEUE_TIMEOUT_S = 86400  # the waiting one is not failed as overdue
    alice = school.alice
    client.force_login(alice)
    gone = [old_draft(alice) for _ in range(3)]
    waiting = old_draft(alice, status="queued")
    fresh = old_draft(alice, created_at=timezone.now())
    named, handed, kept, rerun = (old_draft(alice) for _ in range(4))
    client.post(reverse("run-label", args=[named.pk]), {"name": "fast workers", "note": ""})
    hand_in(school.assignment_a, alice, handed, None, DUE)
    client.post(reverse("run-keep", args=[kept.pk]))
    Run.objects.filter(pk=rerun.pk).update(lab="drain", params=defaults_form_values())
    assert client.post(reverse("run-rerun", args=[rerun.pk])).status_code == 302
    assert sweep_once().drafts == 3
    left = set(Run.objects.values_list("pk", flat=True))
    assert not left & {r.pk for r in gone}
    assert {waiting.pk, fresh.pk, named.pk, handed.pk, kept.pk, rerun.pk} <= left
    held = [named.pk, handed.pk, kept.pk, rerun.pk]
    assert not Run.objects.filter(pk__in=held, draft=True).exists()
    history = client.get(reverse("my-runs")).content.decode()
    assert str(kept.pk) in history and str(fresh.pk) not in history


def defaults_form_values():
    return get_lab("drain").defaults()


def test_only_its_owner_keeps_a_draft(client, people):
    draft = old_draft(people.alice)
    client.force_login(people.bob)
    assert client.post(reverse("run-keep", args=[draft.pk])).status_code == 404
    assert Run.objects.get(pk=draft.pk).draft


def test_replacing_leaves_other_students_and_running_drafts_alone(people):
    bobs = Run.objects.create(owner=people.bob, lab="drain", params={}, seed=1, draft=True)
    running = Run.objects.create(
        owner=people.alice, lab="drain", params={}, seed=1, draft=True, status="running"
    )
    queued = Run.objects.create(owner=people.alice, lab="drain", params={}, seed=2, draft=True)
    assert drafts.replace_waiting(people.alice, "drain") == 1
    assert set(Run.objects.values_list("pk", flat=True)) == {bobs.pk, running.pk}
    assert not Run.objects.filter(pk=queued.pk).exists()


def test_a_draft_on_one_lab_leaves_the_same_students_draft_of_another_lab_waiting(
    people, published
):
    """Two labs open in two tabs: a move in one must not delete the other's queued draft
    (its page would poll a deleted run and never show the chart it asked for)."""
    other = Run.objects.create(
        owner=people.alice, lab="trapped-service", params={}, seed=1, draft=True
    )
    drain = get_lab("drain")
    drafts.start_draft(people.alice, drain, drain.defaults(), 7)
    assert Run.objects.filter(pk=other.pk, status="queued").exists()


def statements(seen) -> list[str]:
    """The SQL of the queries seen, each cut short (a failure lists them)."""
    return [q["sql"][:70] for q in seen]


def test_a_draft_is_started_under_one_lock_in_a_few_queries(people, published):
    """The student's row is locked once (it was locked twice, the second time inside a
    savepoint of its own), and the result store is asked once before the key's lock and
    once under it (each one query for the stored result and a computing twin alike)."""
    lab = get_lab("drain")
    params = lab.defaults() | {"per_worker": 150}
    with CaptureQueriesContext(connection) as seen:
        drafts.start_draft(people.alice, lab, params, 0)
    sql = statements(seen.captured_queries)
    assert sum(s.startswith('SELECT "auth_user"."id" AS "pk"') for s in sql) == 1, sql
    assert sum(s.startswith("SAVEPOINT") for s in sql) == 1, sql  # the transaction (a test's)
    advisory_lock = connection.vendor == "postgresql"
    # The savepoint and its release, the lock, the older drafts, the store twice, the caps,
    # the row; and for the quick queue's fair share, the student's class and its runs
    # waiting (labs.runs.fair_share).
    assert sum("teaching_membership" in s for s in sql) == 1, sql
    assert len(sql) == 8 + 2 + advisory_lock, sql


def test_a_drafts_polls_ask_only_what_they_show(client, people, published, move, settings):
    """A queued draft's poll: the user (the session comes from its copy in the cache:
    school/sessions.py), the run, the site's waiting runs (the poll's pace) and the runs
    ahead of it; never whose turn it waits for (only experiments take turns). The poll that
    finds it finished: its result once (not its own result first, which a stored result's
    run has none of), the result seen; never the predictions (a draft has none), nor the
    challenges' credits (it meets none: `distances`)."""
    client.force_login(people.alice)
    draft = made(move(per_worker=150))
    path = reverse("run-detail", args=[draft.pk])
    with CaptureQueriesContext(connection) as seen:
        assert client.get(path, **HX).status_code == 200
    assert len(seen.captured_queries) == 4, statements(seen.captured_queries)
    execute_run.apply(args=(str(draft.pk),))
    with CaptureQueriesContext(connection) as seen:
        assert client.get(path, **HX).status_code == 286
    assert len(seen.captured_queries) == 4, statements(seen.captured_queries)


def test_a_draft_the_store_answers_adds_nothing_so_asks_no_lane_no_caps(
    client, people, published, move
):
    """A value already computed (a classmate's drag came to it first) is the drag's usual draft:
    the user (the session from its cached copy), the student's row locked, the older drafts,
    the store's one look (the stored result's data read with it), the row; then the result
    seen. Not the student's class (the run takes no share of the queue), not the caps (it
    adds no run to them), not the stored result a second time for the body, not the run read
    back for the challenges (they judge the run the post holds: `labs.runs.succeeded`), nor
    their credits (a moved value the challenges keep fixed meets none)."""
    client.force_login(people.alice)
    first = made(move(per_worker=150))
    execute_run.apply(args=(str(first.pk),))
    with CaptureQueriesContext(connection) as seen:
        answer = move(per_worker=150)
    sql = [q["sql"] for q in seen.captured_queries]
    shown = made(answer)
    assert shown.status == Run.Status.SUCCEEDED and shown.same_as_id == first.pk
    assert shown.lane == ""  # it waits in no lane
    assert "status-succeeded" in answer.content.decode()
    assert not any("teaching_membership" in s for s in sql), sql
    assert not any(s.startswith("SELECT COUNT(*)") for s in sql), sql
    assert not any(s.startswith('SELECT "labs_storedresult"') for s in sql), sql
    assert len(sql) == 8, sql  # the session from its cached copy, not a query
