"""/runs/ a page at a time, every run reachable, filtered by lab, name and hand-in."""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from labs.runs.models import Run
from teaching.gradebook.hand_in import hand_in
from teaching.models import Assignment
from tests.base import DUE


def many_runs(owner, n, **fields):
    start = timezone.now() - timedelta(days=1)
    return Run.objects.bulk_create(
        Run(
            owner=owner,
            lab="drain",
            params={},
            seed=i,
            status="succeeded",
            created_at=start + timedelta(seconds=i),
            **fields,
        )
        for i in range(n)
    )


def ids_on(html: str, runs) -> set:
    return {run.pk for run in runs if str(run.pk) in html}


def test_every_run_is_reachable_a_page_at_a_time(client, people):
    runs = many_runs(people.alice, 120)
    client.force_login(people.alice)
    seen, queries = set(), []
    for page in (1, 2, 3):
        with CaptureQueriesContext(connection) as captured:
            html = client.get(reverse("my-runs"), {"page": page}).content.decode()
        queries.append(len(captured))
        seen |= ids_on(html, runs)
        assert f"Page {page} of 3 (120 runs)" in html
    assert seen == {run.pk for run in runs}  # the oldest too, no longer cut at 200
    assert len(set(queries)) == 1  # the same queries for every page
    newest = client.get(reverse("my-runs")).content.decode()
    assert str(runs[-1].pk) in newest and str(runs[0].pk) not in newest
    assert 'rel="next"' in newest and 'rel="prev"' not in newest
    assert client.get(reverse("my-runs"), {"page": "0"}).status_code == 400


def test_it_filters_by_name_and_by_hand_in(client, school):
    alice = school.alice
    plain, named = many_runs(alice, 1), many_runs(alice, 1, name="8 workers")
    before, after = many_runs(alice, 2)
    pair = Assignment.objects.create(
        classroom=school.class_a, title="Pair", lab="drain", handin="pair", due_at=DUE
    )
    hand_in(pair, alice, after, before, DUE)
    mine = [*plain, *named, before, after]
    client.force_login(alice)

    def shown(**filters):
        return ids_on(client.get(reverse("my-runs"), filters).content.decode(), mine)

    assert shown(named="yes") == {named[0].pk}
    assert shown(named="no") == {plain[0].pk, before.pk, after.pk}
    assert shown(handed_in="yes") == {before.pk, after.pk}  # a pair's before run counts too
    assert shown(handed_in="no", named="no") == {plain[0].pk}
    assert shown(handed_in="yes", lab="retry-storm") == set()
    assert client.get(reverse("my-runs"), {"handed_in": "maybe"}).status_code == 400
