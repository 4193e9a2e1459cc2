"""A class's identical runs keep one result between them: runs point at it, exports, the
comparison and the gradebook read it, pruning drops it with its last run, and the
migration moves copies saved before into one stored result (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from django.utils import timezone

from labs.runs.models import Run, StoredResult
from labs.runs.sweeps import prune
from labs.runs.tasks import execute_run
from tests.base import make_people
from tests.labs.runs.test_run_caps import defaults_form

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def press(client, django_capture_on_commit_callbacks):
    """`press(slug)`: the logged-in user presses Run on the defaults; after-commit work runs."""

    def go(slug: str) -> Run:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("lab-detail", args=[slug]), defaults_form(slug))
        assert response.status_code == 302
        return Run.objects.get(pk=response["Location"].rstrip("/").split("/")[-1])

    return go


def test_a_leader_its_followers_and_later_repeats_share_one_stored_result(
    client,
    press,
    people,
    published,
):
    client.force_login(people.alice)
    leader = press("drain")
    client.force_login(people.bob)
    follower = press("drain")
    execute_run.run(str(leader.pk))
    client.force_login(people.teacher)
    repeat = press("drain")  # answered from the store at once

    runs = Run.objects.filter(pk__in=[leader.pk, follower.pk, repeat.pk])
    assert {run.status for run in runs} == {"succeeded"}
    assert StoredResult.objects.count() == 1
    stored = StoredResult.objects.get()
    assert stored.key == leader.result_key
    for run in runs:
        assert run.stored_result_id == stored.pk and run.own_result is None
        assert run.result == stored.data
    assert len(published) == 1


def test_a_follower_exports_and_compares_from_the_stored_result(
    client,
    press,
    people,
    published,
):
    client.force_login(people.alice)
    leader = press("drain")
    follower = press("drain")
    execute_run.run(str(leader.pk))
    leader.refresh_from_db()
    follower.refresh_from_db()
    assert follower.own_result is None and leader.result

    saved = json.loads(client.get(reverse("run-json", args=[follower.pk])).content)
    assert saved["result"] == leader.result and saved["same_as"] is True
    csv = client.get(reverse("run-csv", args=[follower.pk]))
    assert csv.status_code == 200 and csv.content.count(b"\n") > 2
    numbers = client.get(reverse("run-numbers", args=[follower.pk]), **HX)
    assert numbers.status_code == 200
    compare = client.get(reverse("run-compare"), {"run": [leader.pk, follower.pk]})
    assert compare.status_code == 200
    chart = client.get(reverse("run-detail", args=[follower.pk]), **HX)
    assert chart.status_code == 286 and 'class="chart"' in chart.content.decode()


def test_an_experiment_keeps_its_result_on_the_run(db):
    people = make_people()
    run = Run.objects.create(
        owner=people.alice, lab="poison-live", params={}, seed=1, status="running"
    )
    run.mark_succeeded({"summary": {"done": 20}})
    assert run.own_result == {"summary": {"done": 20}} and run.stored_result_id is None
    assert StoredResult.objects.count() == 0


def test_pruning_drops_a_stored_result_with_the_last_run_that_shows_it(db):
    people = make_people()
    old = timezone.now() - timedelta(days=400)
    stored = StoredResult.objects.create(key="k" * 64, data={"summary": {}}, created_at=old)
    kept = StoredResult.objects.create(key="j" * 64, data={"summary": {}}, created_at=old)
    # Saved a moment ago, its run not yet pointing at it: kept.
    fresh = StoredResult.objects.create(key="f" * 64, data={"summary": {}})
    fields = {"lab": "drain", "params": {}, "seed": 0, "status": "succeeded"}
    Run.objects.create(owner=people.alice, stored_result=stored, created_at=old, **fields)
    Run.objects.create(owner=people.bob, stored_result=stored, created_at=old, **fields)
    Run.objects.create(owner=people.alice, stored_result=kept, created_at=old, **fields)
    Run.objects.create(owner=people.bob, stored_result=kept, name="mine", created_at=old, **fields)

    assert prune() == 3
    assert set(StoredResult.objects.values_list("pk", flat=True)) == {kept.pk, fresh.pk}
    assert Run.objects.get().result == kept.data


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_copies_into_one_stored_result_and_back():
    executor = MigrationExecutor(connection)
    executor.migrate([("labs", "0006_run_error_code")])
    apps = executor.loader.project_state([("labs", "0006_run_error_code")]).apps
    OldRun = apps.get_model("labs", "Run")
    User = apps.get_model("auth", "User")
    owner = User.objects.create(username="migrated")
    result = {"summary": {"peak_backlog": 800}, "series": {"t": [0, 1]}}
    fields = {"owner": owner, "lab": "drain", "params": {}, "seed": 0, "status": "succeeded"}
    copies = [OldRun.objects.create(result_key="a" * 64, result=result, **fields) for _ in range(3)]
    other = OldRun.objects.create(result_key="b" * 64, result={"summary": {}}, **fields)
    experiment = OldRun.objects.create(result_key="", result={"summary": {"done": 1}}, **fields)
    failed = OldRun.objects.create(result_key="a" * 64, **(fields | {"status": "failed"}))

    executor = MigrationExecutor(connection)
    executor.migrate([("labs", "0007_stored_results")])
    apps = executor.loader.project_state([("labs", "0007_stored_results")]).apps
    NewRun, Stored = apps.get_model("labs", "Run"), apps.get_model("labs", "StoredResult")
    assert Stored.objects.count() == 2
    shared = Stored.objects.get(key="a" * 64)
    assert shared.data == result
    for run in NewRun.objects.filter(pk__in=[c.pk for c in copies]):
        assert run.stored_result_id == shared.pk and run.own_result is None
    assert NewRun.objects.get(pk=other.pk).stored_result.data == {"summary": {}}
    kept = NewRun.objects.get(pk=experiment.pk)
    assert kept.own_result == {"summary": {"done": 1}} and kept.stored_result_id is None
    assert NewRun.objects.get(pk=failed.pk).stored_result_id is None

    executor = MigrationExecutor(connection)
    executor.migrate([("labs", "0006_run_error_code")])
    apps = executor.loader.project_state([("labs", "0006_run_error_code")]).apps
    Back = apps.get_model("labs", "Run")
    assert all(Back.objects.get(pk=c.pk).result == result for c in copies)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_the_gradebook_reads_a_summary_from_the_store(school):
    from teaching.gradebook.book import build_gradebook, summary_of
    from teaching.models import Submission
    from tests.base import DUE, finished_run

    run = finished_run(school.alice)
    summary = run.result["summary"]
    stored = StoredResult.objects.create(key="s" * 64, data=run.result)
    Run.objects.filter(pk=run.pk).update(stored_result=stored, own_result=None)
    handed = Submission.objects.create(
        assignment=school.assignment_a,
        student=school.alice,
        run=run,
        submitted_at=DUE - timedelta(hours=1),
    )
    book = build_gradebook(school.class_a, DUE)
    cells = [cell for row in book.rows for cell in row.cells if cell.submission]
    assert [cell.submission.summary for cell in cells] == [summary]
    assert summary_of(Submission.objects.get(pk=handed.pk)) == summary


def test_a_result_is_kept_in_one_statement_and_a_key_keeps_its_first_data(
    db, django_assert_num_queries
):
    with django_assert_num_queries(1):
        first = StoredResult.keep("k" * 64, {"summary": {"peak": 1}})
    with django_assert_num_queries(1):
        again = StoredResult.keep("k" * 64, {"summary": {"peak": 2}})
    assert first.pk is not None and again.pk == first.pk
    assert StoredResult.objects.get().data == {"summary": {"peak": 1}}


def test_one_look_finds_the_earliest_stored_result_else_the_earliest_computing_twin(people):
    from labs.runs.result_store import stored_or_twin

    key, now = "t" * 64, timezone.now()

    def run(status, minutes_ago, **fields):
        when = now - timedelta(minutes=minutes_ago)
        return Run.objects.create(
            owner=people.alice, lab="drain", params={}, seed=0, result_key=key,
            status=status, created_at=when, **fields,
        )  # fmt: skip

    assert stored_or_twin(key) == (None, None)
    run("queued", 9, draft=True)  # a queued draft leads nobody: its owner may replace it
    assert stored_or_twin(key) == (None, None)
    running_draft = run("running", 8, draft=True)
    run("queued", 1)  # a later twin
    assert stored_or_twin(key) == (None, running_draft)  # the earliest computing
    run("failed", 7, finished_at=now)
    assert stored_or_twin(key) == (None, running_draft)
    later = run("succeeded", 6, finished_at=now - timedelta(minutes=1))
    first = run("succeeded", 5, finished_at=now - timedelta(minutes=2))
    run("succeeded", 4, finished_at=now - timedelta(minutes=3), same_as=later)  # a copy
    assert stored_or_twin(key) == (first, None)  # a stored result before any twin
