"""A draft the student acts on is kept: named, compared, downloaded or handed in.

Each action leaves a link, a file or a submission naming the run, so the sweeper must not
delete it an hour later (`labs.web.keeping.keep_shown`). Only the owner's action keeps it;
a teacher opening a student's draft leaves it a draft.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from labs.runs.models import Run
from labs.runs.tasks import execute_run
from labs.web.keeping import keep_shown
from teaching.challenge_runs import statuses_for
from teaching.gradebook.hand_in import hand_in
from teaching.unit_challenges import get_challenge
from tests.base import DUE, finished_run

HX = {"HTTP_HX_REQUEST": "true"}
DRAFT_NOTE = "A draft: it ran as you moved the controls"


def draft_of(owner, lab: str = "drain", **params) -> Run:
    """A finished draft with a real result (as a worker leaves it)."""
    run = finished_run(owner, lab=lab, **params)
    Run.objects.filter(pk=run.pk).update(draft=True)
    run.refresh_from_db()
    return run


def is_draft(run: Run) -> bool:
    return Run.objects.get(pk=run.pk).draft


@pytest.mark.parametrize("export", ["run-json", "run-csv"])
def test_a_download_keeps_the_owners_draft(client, people, export):
    draft = draft_of(people.alice)
    client.force_login(people.alice)
    assert client.get(reverse(export, args=[draft.pk])).status_code == 200
    assert not is_draft(draft)
    history = client.get(reverse("my-runs")).content.decode()
    assert str(draft.pk) in history
    # Again: nothing more happens (and nothing fails).
    assert client.get(reverse(export, args=[draft.pk])).status_code == 200
    assert not is_draft(draft)


def test_only_the_owner_keeps_a_draft_and_only_once(people):
    """A teacher sees only handed-in runs (kept already); the rule holds on its own too."""
    draft = draft_of(people.alice)
    assert not keep_shown(draft, people.teacher) and is_draft(draft)
    assert not keep_shown(draft, AnonymousUser()) and is_draft(draft)
    assert keep_shown(draft, people.alice) and not is_draft(draft)
    again = Run.objects.get(pk=draft.pk)
    assert not keep_shown(again, people.alice)
    # Two requests holding the row read as a draft: one keeps it, the other says nothing.
    stale = Run.objects.get(pk=draft.pk)
    stale.draft = True
    assert not keep_shown(stale, people.alice)


def test_another_students_download_or_compare_opens_nothing_and_keeps_nothing(client, people):
    a, b = draft_of(people.alice), draft_of(people.alice, per_worker=150)
    client.force_login(people.bob)
    assert client.get(reverse("run-json", args=[a.pk])).status_code == 404
    assert client.get(compare_url(a, b)).status_code == 404
    assert is_draft(a) and is_draft(b)


def compare_url(a: Run, b: Run) -> str:
    return f"{reverse('run-compare')}?{urlencode([('run', a.pk), ('run', b.pk)])}"


def test_comparing_keeps_both_drafts_of_the_owner(client, people):
    a, b = draft_of(people.alice), draft_of(people.alice, per_worker=150)
    client.force_login(people.alice)
    assert client.get(compare_url(a, b)).status_code == 200
    assert not is_draft(a) and not is_draft(b)


def test_a_before_after_report_keeps_its_drafts(client, people):
    before = draft_of(people.alice, lab="trapped-service")
    after = draft_of(people.alice, lab="trapped-service", limit_retries=True)
    client.force_login(people.alice)
    url = reverse("report-json", args=[before.pk, after.pk])
    assert client.get(url).status_code == 200
    assert not is_draft(before) and not is_draft(after)


def test_naming_keeps_a_draft_and_its_body_stops_saying_draft(client, people):
    draft = draft_of(people.alice)
    client.force_login(people.alice)
    poll = reverse("run-detail", args=[draft.pk])
    assert DRAFT_NOTE in client.get(poll, **HX).content.decode()  # now in the cache
    label = {"name": "fast workers", "note": "kept for Friday"}
    assert client.post(reverse("run-label", args=[draft.pk]), label).status_code == 302
    assert not is_draft(draft)
    assert DRAFT_NOTE not in client.get(poll, **HX).content.decode()


def test_handing_in_keeps_a_draft_and_its_body_stops_saying_draft(client, school):
    draft = draft_of(school.alice)
    client.force_login(school.alice)
    poll = reverse("run-detail", args=[draft.pk])
    assert DRAFT_NOTE in client.get(poll, **HX).content.decode()  # now in the cache
    hand_in(school.assignment_a, school.alice, draft, None, DUE)
    assert not is_draft(draft)
    assert DRAFT_NOTE not in client.get(poll, **HX).content.decode()


def test_a_downloaded_draft_stops_saying_draft(client, people):
    draft = draft_of(people.alice)
    client.force_login(people.alice)
    poll = reverse("run-detail", args=[draft.pk])
    body = client.get(poll, **HX).content.decode()
    assert DRAFT_NOTE in body and "data-keep-url" in body
    client.get(reverse("run-csv", args=[draft.pk]))
    body = client.get(poll, **HX).content.decode()
    assert DRAFT_NOTE not in body and "data-keep-url" not in body


def test_a_charts_png_keeps_through_the_keep_url_without_a_page(client, people):
    """keep.js posts the keep URL when a draft's chart is saved as a PNG (made in the browser)."""
    draft = draft_of(people.alice)
    client.force_login(people.alice)
    response = client.post(reverse("run-keep", args=[draft.pk]), **HX)
    assert response.status_code == 204 and not is_draft(draft)
    assert client.post(reverse("run-keep", args=[draft.pk]), **HX).status_code == 204


def test_a_draft_being_worked_on_keeps_its_result_when_kept(client, people, published):
    """Kept while queued (its JSON downloaded), the worker still finishes it, kept."""
    from tests.labs.runs.test_run_caps import defaults_form

    client.force_login(people.alice)
    data = defaults_form("drain") | {"per_worker": "150"}
    client.post(reverse("lab-draft", args=["drain"]), data, **HX)
    draft = Run.objects.get()
    assert draft.draft and draft.status == Run.Status.QUEUED
    client.get(reverse("run-json", args=[draft.pk]))
    execute_run.apply(args=(str(draft.pk),))
    done = Run.objects.get(pk=draft.pk)
    assert done.status == Run.Status.SUCCEEDED and not done.draft


def test_a_challenge_counts_a_kept_draft_but_not_a_passing_one(client, people):
    """A draft is a value passed on the way; kept, it is a run like any other."""
    challenge = get_challenge("drain-by-five")
    params = challenge.start_params() | {"per_waiting": 50}
    draft = draft_of(people.alice, **params)
    assert not statuses_for(people.alice, [challenge])[0].met
    client.force_login(people.alice)
    client.get(reverse("run-json", args=[draft.pk]))
    assert statuses_for(people.alice, [challenge])[0].met
