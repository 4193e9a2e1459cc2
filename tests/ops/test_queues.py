"""The operations page: teachers and admins watch the site's own queues; students get 404."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from labs.runs import telemetry_store
from labs.runs.models import Run
from labs.runs.telemetry import Sampler
from ops.queues import in_words

pytestmark = [pytest.mark.redis, pytest.mark.django_db]


def test_students_get_404_and_visitors_are_sent_to_log_in(client, people):
    client.force_login(people.alice)
    assert client.get(reverse("ops-queues")).status_code == 404
    client.logout()
    assert client.get(reverse("ops-queues")).status_code == 302


def test_a_teacher_sees_the_backlog_in_words_and_charts(client, people, own_queues):
    quick, heavy = own_queues
    telemetry_store.beat("w@here", [quick, heavy])
    for age in (3.1, 1.0):
        Run.objects.create(
            owner=people.alice, lab="drain", params={}, seed=1, queue=quick,
            created_at=timezone.now() - timedelta(seconds=age),
        )  # fmt: skip
    Sampler().tick()
    client.force_login(people.teacher)

    page = client.get(reverse("ops-queues")).content.decode()

    assert "2 runs waiting, the oldest 3." in page
    assert "not draining" in page
    assert "No runs waiting: the queue is empty." in page  # the heavy queue
    assert page.count('class="chart"') == 2
    fragment = client.get(reverse("ops-queues"), HTTP_HX_REQUEST="true").content.decode()
    assert "<h1>" not in fragment and 'hx-trigger="every 2s"' in fragment


def test_the_page_reads_in_marathi(client, people, own_queues, settings):
    telemetry_store.beat("w@here", list(own_queues))
    Sampler().tick()
    client.force_login(people.teacher)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    page = client.get(reverse("ops-queues")).content.decode()
    assert "साइटच्या स्वतःच्या queues" in page
    assert "एकही रन वाट पाहत नाही: queue रिकामी आहे." in page
    assert "No runs waiting" not in page


def test_the_sentence_in_the_course_terms():
    figures = {"workers": 2, "depth": 42, "oldest_s": 3.1, "net_per_s": 35.0, "drain_s": 1.2}
    assert in_words(figures) == (
        "42 runs waiting, the oldest 3.1 s: draining at 35/s, empty in about 2 s."
    )
    assert in_words({**figures, "workers": 0}).startswith("No worker is up")
    assert in_words(None).startswith("No figures")
