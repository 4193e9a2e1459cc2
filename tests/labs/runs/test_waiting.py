"""A waiting run's page polls at its own pace, slower when a whole class waits at once."""

from __future__ import annotations

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from labs.runs.models import Run
from labs.runs.waiting import poll_delay_ms

HX = {"HTTP_HX_REQUEST": "true"}


def test_a_young_run_polls_fast_an_old_one_slowly(settings):
    settings.LAB_POLLS_PER_S = 100
    now = timezone.now()
    new = Run(created_at=now - timedelta(seconds=0.01))
    young = Run(created_at=now - timedelta(seconds=0.5))
    older = Run(created_at=now - timedelta(seconds=3))
    old = Run(created_at=now - timedelta(seconds=120))
    assert poll_delay_ms(new, now, waiting_runs=1) == 50  # the first look, just after Run
    assert poll_delay_ms(young, now, waiting_runs=1) == 150
    assert poll_delay_ms(older, now, waiting_runs=1) == 300
    assert poll_delay_ms(old, now, waiting_runs=1) == 2000


def test_a_class_waiting_at_once_shares_the_polls_a_second(settings):
    settings.LAB_POLLS_PER_S = 100
    now = timezone.now()
    young = Run(created_at=now)
    assert poll_delay_ms(young, now, waiting_runs=30) == 300
    assert poll_delay_ms(young, now, waiting_runs=100) == 1000
    assert poll_delay_ms(young, now, waiting_runs=5000) == 2000  # never slower than 2 s
    settings.LAB_POLLS_PER_S = 1000  # more web machines
    assert poll_delay_ms(young, now, waiting_runs=100) == 100


def test_the_page_counts_the_runs_waiting_on_the_site(client, people, settings):
    settings.LAB_POLLS_PER_S = 60
    for _ in range(29):
        Run.objects.create(owner=people.bob, lab="drain", params={}, seed=0)
    mine = Run.objects.create(owner=people.alice, lab="drain", params={}, seed=0)
    Run.objects.create(owner=people.bob, lab="drain", params={}, seed=0, status="succeeded")
    client.force_login(people.alice)
    html = client.get(reverse("run-detail", args=[mine.pk]), **HX).text
    assert 'hx-trigger="load delay:500ms"' in html  # 30 waiting, 60 polls a second


def test_an_experiment_waiting_for_its_owners_other_one_says_so(client, people):
    now = timezone.now()
    Run.objects.create(
        owner=people.alice, lab="fanout-live", params={}, seed=1, status="running",
        started_at=now, lease_expires_at=now + timedelta(seconds=20),
    )  # fmt: skip
    second = Run.objects.create(owner=people.alice, lab="fanout-live", params={}, seed=2)
    bobs = Run.objects.create(owner=people.bob, lab="fanout-live", params={}, seed=3)
    client.force_login(people.alice)
    html = client.get(reverse("run-detail", args=[second.pk]), **HX).text
    assert "Your other experiment is running." in html
    client.force_login(people.bob)
    html = client.get(reverse("run-detail", args=[bobs.pk]), **HX).text
    assert "Your other experiment" not in html
