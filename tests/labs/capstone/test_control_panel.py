"""The operator panel of a live trapped-service run: owner only, CSRF, plain-words refusals.

A command goes on the run's control channel in Redis; here the channel is opened by hand
(as the experiment does when it starts), so the view is checked without a 75 s run. The
experiment reading the channel is tested in tests/labs/experiments/test_trapped.py.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from labs.experiments.namespace import connect, run_key_for, run_namespace
from labs.experiments.trapped.controls import channel_key, open_channel, read_commands
from labs.runs.models import Run

pytestmark = pytest.mark.redis
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def r():
    client = connect(name="tests-controls")
    yield client
    client.close()


@pytest.fixture
def live_run(people, r):
    """Alice's running trapped-live run whose experiment has opened its channel."""
    run = Run.objects.create(
        owner=people.alice, lab="trapped-live", params={}, seed=5, status="running"
    )
    ns = run_namespace(run_key_for(run.pk))
    first = open_channel(r, ns)
    yield run, ns, first
    ns.cleanup(r)


def post(client, run, **data):
    return client.post(reverse("run-control", args=[run.pk]), data, **HX)


def test_the_owner_switches_a_control_and_it_lands_on_the_runs_channel(client, live_run, r):
    run, ns, first = live_run
    client.force_login(run.owner)
    page = client.get(run.get_absolute_url()).content.decode()
    assert "Operator panel" in page and "Retry budget" in page
    response = post(client, run, control="retry_budget", state="on", value="0.1")
    assert response.status_code == 200
    assert "Sent: Retry budget switched on at 0.1." in response.content.decode()
    [(_, fields)] = read_commands(r, ns, first, 10)
    assert fields == {"control": "retry_budget", "on": "1", "value": "0.1", "source": "operator"}


def test_someone_else_gets_404_and_sends_nothing(client, people, live_run, r):
    run, ns, first = live_run
    client.force_login(people.bob)
    assert post(client, run, control="drop_expired", state="on").status_code == 404
    assert "Operator panel" not in client.get(run.get_absolute_url()).content.decode()
    assert read_commands(r, ns, first, 10) == []


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"control": "admission_limit", "state": "on", "value": "0"}, "between 1 and 10000"),
        ({"control": "admission_limit", "state": "on", "value": "lots"}, "must be a number"),
        ({"control": "drop_expired", "state": "on", "value": "2"}, "takes no value"),
        ({"control": "no_such", "state": "on"}, "Select a valid choice"),
        ({"control": "drop_expired", "state": "maybe"}, "Select a valid choice"),
    ],
)
def test_bad_values_are_refused_with_a_reason_and_nothing_is_sent(client, live_run, r, data, words):
    run, ns, first = live_run
    client.force_login(run.owner)
    response = post(client, run, **data)
    assert response.status_code == 400
    assert words in response.content.decode()
    assert read_commands(r, ns, first, 10) == []


def test_a_finished_or_not_yet_started_run_refuses_commands(client, people, r):
    finished = Run.objects.create(
        owner=people.alice, lab="trapped-live", params={}, seed=5, status="succeeded"
    )
    queued = Run.objects.create(
        owner=people.alice, lab="trapped-live", params={}, seed=5, status="queued"
    )
    client.force_login(people.alice)
    response = post(client, finished, control="drop_expired", state="on")
    assert response.status_code == 409 and "has finished" in response.content.decode()
    response = post(client, queued, control="drop_expired", state="on")
    assert response.status_code == 409 and "not started yet" in response.content.decode()
    # The refused command left no channel behind.
    assert r.exists(channel_key(run_namespace(run_key_for(queued.pk)))) == 0


def test_it_needs_the_csrf_token(people, live_run, r):
    run, ns, first = live_run
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(run.owner)
    response = strict.post(
        reverse("run-control", args=[run.pk]), {"control": "drop_expired", "state": "on"}
    )
    assert response.status_code == 403
    assert read_commands(r, ns, first, 10) == []


def test_without_htmx_it_answers_with_the_run_page(client, live_run):
    run, _, _ = live_run
    client.force_login(run.owner)
    response = client.post(
        reverse("run-control", args=[run.pk]), {"control": "drop_expired", "state": "on"}
    )
    assert response.status_code == 200
    assert "Sent: Drop expired work switched on." in response.content.decode()
