"""Whoever listens hears of every run that succeeds, however it came to succeed: the
worker's own run, the runs that followed it, and a run answered at once from the store."""

from __future__ import annotations

import pytest
from django.urls import reverse

from labs.catalogue.entries import get_lab
from labs.runs import succeeded
from labs.runs.models import Run
from labs.runs.tasks import execute_run
from tests.labs.runs.test_run_caps import defaults_form


@pytest.fixture
def heard(monkeypatch):
    """The run ids told, in order; the site's own listeners are set aside meanwhile."""
    told: list = []
    monkeypatch.setattr(succeeded, "_listeners", [told.extend])
    return told


def press(client, capture, slug: str = "drain") -> Run:
    with capture(execute=True):
        response = client.post(reverse("lab-detail", args=[slug]), defaults_form(slug))
    return Run.objects.get(pk=response["Location"].rstrip("/").split("/")[-1])


def test_the_worker_tells_its_run_and_its_followers_and_the_store_tells_a_repeat(
    client, people, published, heard, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    leader = press(client, django_capture_on_commit_callbacks)
    client.force_login(people.bob)
    follower = press(client, django_capture_on_commit_callbacks)
    assert heard == []
    execute_run.run(str(leader.pk))
    assert Run.objects.get(pk=follower.pk).status == Run.Status.SUCCEEDED
    # The leader's id names its followers too (a listener reads `same_as`).
    assert heard == [leader.pk]
    client.force_login(people.teacher)
    repeat = press(client, django_capture_on_commit_callbacks)  # answered from the store
    # Told as the press holds it (its result loaded): a listener need not read it back.
    assert heard == [leader.pk, repeat]
    assert heard[1].result == Run.objects.get(pk=leader.pk).result


def test_a_failing_listener_never_fails_the_run(people, monkeypatch):
    def broken(_ids):
        raise RuntimeError("a listener's bug")

    monkeypatch.setattr(succeeded, "_listeners", [broken])
    params = get_lab("drain").defaults()
    run = Run.objects.create(owner=people.alice, lab="drain", params=params, seed=0)
    assert execute_run.run(str(run.pk)) == "succeeded"
    assert Run.objects.get(pk=run.pk).status == Run.Status.SUCCEEDED
