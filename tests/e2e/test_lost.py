"""A run never waits for a message that is gone: the sweeper sends it again once, or fails
it saying why, within seconds; a task that cannot reach the database is retried, not
acknowledged as done. Real Redis (only this test's own queue's messages are deleted, the
way a Redis restart without persistence loses them) and real worker processes."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
import redis
from django.conf import settings as django_settings
from django.urls import reverse
from django.utils import timezone

from labs.runs import lost
from labs.runs.models import Run
from labs.runs.sweeps import sweep_once
from tests.base import make_user
from tests.e2e.test_run import wait_for
from tests.labs.web.test_views import GOOD
from tests.worker_helpers import forget_queue, new_queue_name, spawn_worker, stop_worker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.django_db(transaction=True)]
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def queue(settings):
    settings.LAB_QUEUE = settings.LAB_HEAVY_QUEUE = new_queue_name("lost")
    yield settings.LAB_QUEUE
    forget_queue(settings.LAB_QUEUE)


def broker() -> redis.Redis:
    return redis.Redis.from_url(django_settings.CELERY_BROKER_URL)


def press(client, **changes) -> Run:
    response = client.post(reverse("lab-detail", args=["drain"]), {**GOOD, **changes}, **HX)
    assert response.status_code == 200, response.content.decode()[:500]
    return Run.objects.order_by("-created_at").first()


def later() -> object:
    """A moment past the grace a fresh publish gets."""
    return timezone.now() + timedelta(seconds=lost.GRACE_S + 1)


def test_a_run_whose_message_is_gone_is_sent_again_and_runs(client, queue, tmp_path):
    client.force_login(make_user("alice"))
    run = press(client)
    assert str(run.pk) in lost.ids_in_messages({queue})
    assert lost.resend_lost(later()) == (0, 0)  # its message is there: left alone

    broker().delete(queue)  # what a Redis restart without persistence does to it
    assert str(run.pk) not in lost.ids_in_messages({queue})
    assert lost.resend_lost(timezone.now()) == (0, 0)  # still in its grace
    assert lost.resend_lost(later()) == (1, 0)
    run.refresh_from_db()
    assert run.status == "queued" and run.resent_at is not None

    log = tmp_path / "worker.log"
    proc = spawn_worker(queue, log)
    try:
        run = wait_for(run, {"succeeded", "failed"}, log)
    finally:
        stop_worker(proc)
    assert run.status == "succeeded", run.error


def test_a_run_lost_twice_fails_saying_so_and_frees_its_slot(client, queue):
    client.force_login(make_user("alice"))
    run = press(client)
    broker().delete(queue)
    assert lost.resend_lost(later()) == (1, 0)
    broker().delete(queue)  # lost again
    Run.objects.filter(pk=run.pk).update(resent_at=timezone.now() - timedelta(seconds=10))

    report = sweep_once()

    assert (report.resent, report.lost) == (0, 1)
    run.refresh_from_db()
    assert run.status == "failed"
    page = client.get(run.get_absolute_url(), **HX).content.decode()
    assert "was lost twice" in page


def test_a_task_that_cannot_reach_the_database_is_retried_not_acknowledged(client, queue, tmp_path):
    client.force_login(make_user("alice"))
    run = press(client)
    log = tmp_path / "worker.log"
    # A worker whose database is unreachable: every delivery raises OperationalError.
    proc = spawn_worker(queue, log, DATABASE_URL=f"sqlite:///{tmp_path}/none/db.sqlite3")
    try:
        deadline = time.monotonic() + 60
        while "Retry in" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)
        # The message is still the broker's (held for the retry), so the run is not lost.
        assert str(run.pk) in lost.ids_in_messages({queue})
        assert lost.resend_lost(later()) == (0, 0)
        run.refresh_from_db()
        assert run.status == "queued"
        assert "succeeded in" not in log.read_text()
    finally:
        stop_worker(proc)
