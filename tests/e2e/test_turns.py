"""Turns on the heavy pool, on a real worker: a student's experiments run one at a time.

Alice presses Run on two experiments, then Bob on one, with a heavy worker of two
processes. Without turns Alice's two took both processes and Bob's waited for one of
them to finish (issue 21: 3.0 s became 75.5 s with two trapped-live runs). With turns
Bob's starts before Alice's second, and Alice's second starts only once her first has
finished. An ordering, not a timing.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from labs.catalogue.entries import get_lab
from labs.management.commands.lab import _as_form_value
from labs.runs.models import Run
from tests.base import make_user
from tests.e2e.test_run import wait_for
from tests.worker_helpers import forget_queue, new_queue_name, spawn_worker, stop_worker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]
HX = {"HTTP_HX_REQUEST": "true"}


def fanout_live(seed: int) -> dict[str, str]:
    """The fanout-live form at its defaults: a real experiment of about 3.5 s."""
    lab = get_lab("fanout-live")
    assert lab is not None
    return {p.name: _as_form_value(p.default) for p in lab.params} | {"seed": str(seed)}


def test_a_students_second_experiment_waits_for_another_students_first(client, tmp_path, settings):
    queue = new_queue_name()
    settings.LAB_QUEUE = settings.LAB_HEAVY_QUEUE = queue
    log = tmp_path / "worker.log"
    proc = spawn_worker(queue, log, concurrency=2)  # two processes, as on a 2-core machine
    try:
        alice, bob = make_user("alice"), make_user("bob")
        url = reverse("lab-detail", args=["fanout-live"])
        client.force_login(alice)
        for seed in (1, 2):
            answer = client.post(url, fanout_live(seed), **HX)
            assert answer.status_code == 200, answer.content.decode()[:500]
        client.force_login(bob)
        # Bob presses from a computer of his own: turns go by person, owner or address
        # (tests/labs/runs/test_turns.py), and the test client's address is one for all.
        assert client.post(url, fanout_live(3), REMOTE_ADDR="127.0.0.2", **HX).status_code == 200

        alices = list(Run.objects.filter(owner=alice))
        bobs = Run.objects.get(owner=bob)
        for run in [*alices, bobs]:
            run = wait_for(run, {"succeeded", "failed"}, log, timeout_s=90)
            assert run.status == "succeeded", run.error
        # Whichever of Alice's a process took first, the other waited for it, and Bob's
        # did not wait for her second.
        first, later = sorted(Run.objects.filter(owner=alice), key=lambda r: r.started_at)
        bobs.refresh_from_db()
        assert later.started_at >= first.finished_at, "Alice held two processes at once"
        assert bobs.started_at < later.started_at, "Bob's run waited behind Alice's second"
        assert "waiting its turn" in log.read_text()
    finally:
        stop_worker(proc)
        forget_queue(queue)
