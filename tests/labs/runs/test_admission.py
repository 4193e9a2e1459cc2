"""Admission by the oldest run's age and by live workers: a Run that would only wait is
refused at once, in words; a stored result is still answered at once. The sampler and the
workers' beats are real, on the real Redis (tests/e2e/test_telemetry.py stops a real worker)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.interface.progress import SilentProgress
from labs.runs import redis_clients, telemetry_store
from labs.runs.execution import run_lab
from labs.runs.models import Run
from labs.runs.telemetry import Sampler
from tests.base import make_user
from tests.labs.web.test_views import GOOD
from tests.redis_helpers import RedisServer, fill_without_ttl

pytestmark = [pytest.mark.redis, pytest.mark.django_db]
HX = {"HTTP_HX_REQUEST": "true"}


def press(client, data=GOOD, lang="en"):
    return client.post(reverse("lab-detail", args=["drain"]), data, HTTP_ACCEPT_LANGUAGE=lang, **HX)


def test_with_no_worker_alive_a_run_is_refused_at_once_and_none_is_made(
    client, own_queues, published
):
    alice = make_user("alice")
    client.force_login(alice)
    Sampler().tick()  # no worker beats for either queue

    response = press(client)

    assert response.status_code == 503
    assert "No lab runner is up for this kind of run" in response.content.decode()
    assert not Run.objects.exists()
    assert published == []


def test_the_refusal_is_said_in_marathi(client, own_queues, published, settings):
    client.force_login(make_user("alice"))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    Sampler().tick()
    page = press(client, lang="mr").content.decode()
    assert "या प्रकारच्या रनसाठी लॅब चालवणारा एकही worker चालू नाही" in page
    assert "No lab runner" not in page


@pytest.fixture
def full_broker(tmp_path, settings):
    """The broker on a Redis of the test's own, full of keys without a TTL: it refuses
    writes (the telemetry stays on the shared Redis)."""
    server = RedisServer(
        tmp_path / "redis", "--maxmemory", "3mb", "--maxmemory-policy", "volatile-ttl"
    ).start()
    settings.CELERY_BROKER_URL = server.url(0)
    redis_clients.forget()
    try:
        fill_without_ttl(server)
        yield server
    finally:
        redis_clients.forget()
        server.kill()


@pytest.mark.parametrize(
    ("lang", "said", "not_said"),
    [
        ("en", "The site is short of memory (its Redis is full)", "No lab runner"),
        ("mr", "साइटची memory कमी पडली आहे (तिचा Redis भरला आहे)", "workers सुरू करायला हवेत"),
    ],
)
def test_with_no_worker_alive_because_redis_is_full_the_refusal_says_it_is_full(
    client, own_queues, published, settings, full_broker, lang, said, not_said
):
    """The fault bench's finding 5: a Redis full of keys without a TTL stops the workers
    (their acknowledgements and beats are refused), and students were told that the lab
    runners needed starting, which no teacher can fix."""
    client.force_login(make_user("alice"))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    Sampler().tick()  # no worker beats for either queue
    response = press(client, lang=lang)
    page = response.content.decode()
    assert response.status_code == 503
    assert said in page and not_said not in page
    assert not Run.objects.exists()


def test_when_the_quick_queues_oldest_run_is_too_old_a_run_is_refused_saying_how_long(
    client, own_queues, published, settings
):
    quick, heavy = own_queues
    telemetry_store.beat("w@here", [quick, heavy])
    bob = make_user("bob")
    Run.objects.create(
        owner=bob, lab="drain", params={}, seed=1, queue=quick,
        created_at=timezone.now() - timedelta(seconds=settings.LAB_ADMIT_OLDEST_S + 4),
    )  # fmt: skip
    Sampler().tick()
    client.force_login(make_user("alice"))

    response = press(client)

    assert response.status_code == 503
    assert "The lab runners are busy: a new run would wait about 14 s" in (
        response.content.decode()
    )
    assert published == []


def test_a_young_backlog_with_a_worker_is_admitted(client, own_queues, published, settings):
    quick, heavy = own_queues
    telemetry_store.beat("w@here", [quick, heavy])
    bob = make_user("bob")
    Run.objects.create(
        owner=bob, lab="drain", params={}, seed=1, queue=quick,
        created_at=timezone.now() - timedelta(seconds=settings.LAB_ADMIT_OLDEST_S - 3),
    )  # fmt: skip
    Sampler().tick()
    alice = make_user("alice")
    client.force_login(alice)
    assert press(client).status_code == 200
    assert Run.objects.get(owner=alice).status == "queued"


def test_a_stored_result_is_answered_at_once_even_with_no_worker(client, own_queues, published):
    alice = make_user("alice")
    client.force_login(alice)
    assert press(client).status_code == 200  # no sampler yet: admitted
    first = Run.objects.get()
    Run.objects.filter(pk=first.pk).update(status=Run.Status.RUNNING)
    lab = get_lab("drain")
    first.mark_succeeded(run_lab(lab, first.params, first.seed, SilentProgress()))
    Sampler().tick()  # now the sampler says no worker is alive

    response = press(client)

    assert response.status_code == 200
    again = Run.objects.exclude(pk=first.pk).get()
    assert (again.status, again.same_as_id) == ("succeeded", first.pk)


def test_with_no_sampler_nothing_is_known_and_the_run_is_admitted(client, own_queues, published):
    client.force_login(make_user("alice"))
    assert press(client).status_code == 200
    assert Run.objects.get().status == "queued"


def experiment_form(slug: str = "fifo-live") -> dict[str, str]:
    from labs.management.commands.lab import _as_form_value

    lab = get_lab(slug)
    data = {p.name: _as_form_value(p.default) for p in lab.params}
    if lab.uses_seed:
        data["seed"] = str(lab.default_seed)
    return data


def heavy_backlog(heavy: str, waited_s: float) -> None:
    Run.objects.create(
        owner=make_user("bob"), lab="fifo-live", params={}, seed=1, queue=heavy,
        created_at=timezone.now() - timedelta(seconds=waited_s),
    )  # fmt: skip
    Sampler().tick()


def press_experiment(client):
    url = reverse("lab-detail", args=["fifo-live"])
    return client.post(url, experiment_form(), HTTP_ACCEPT_LANGUAGE="en", **HX)


def test_when_the_heavy_queues_oldest_run_is_over_its_own_threshold_an_experiment_is_refused(
    client, own_queues, published, settings
):
    quick, heavy = own_queues
    telemetry_store.beat("w@here", [quick, heavy])
    heavy_backlog(heavy, settings.LAB_ADMIT_HEAVY_OLDEST_S + 5)
    alice = make_user("alice")
    client.force_login(alice)

    response = press_experiment(client)

    assert response.status_code == 503
    assert "The lab runners are busy: a new run would wait about 125 s" in (
        response.content.decode()
    )
    assert not Run.objects.filter(owner=alice).exists()
    # The quick queue is young: a quick lab still runs.
    assert press(client).status_code == 200
    assert Run.objects.get(owner=alice).queue == quick


def test_a_heavy_backlog_older_than_the_quick_threshold_but_under_its_own_is_admitted(
    client, own_queues, published, settings
):
    quick, heavy = own_queues
    telemetry_store.beat("w@here", [quick, heavy])
    heavy_backlog(heavy, settings.LAB_ADMIT_OLDEST_S * 3)  # 30 s: normal behind experiments
    alice = make_user("alice")
    client.force_login(alice)

    assert press_experiment(client).status_code == 200
    assert Run.objects.get(owner=alice).queue == heavy


def class_a_flood(school, maps: int, waited_s: float, *, taken: int = 0) -> None:
    """Class A's students pressed `maps` phase maps with seeds of their own, `waited_s` ago
    (four each: the cap); the workers have taken the first `taken` (sent at the highest
    priorities, they go first), the others still wait."""
    from labs.runs.dispatch import start_run
    from teaching.models import Membership

    lab = get_lab("phase-map")
    made = []
    for i in range(maps):
        if i % 4 == 0:
            student = make_user(f"a{i // 4}")
            Membership.objects.create(classroom=school.class_a, student=student)
        made.append(start_run(student, lab, lab.defaults(), 1000 + i))
    Run.objects.filter(pk__in=[run.pk for run in made]).update(
        created_at=timezone.now() - timedelta(seconds=waited_s)
    )
    Run.objects.filter(pk__in=[run.pk for run in made[:taken]]).update(
        status=Run.Status.RUNNING, started_at=timezone.now(), attempts=1
    )


def test_one_classs_many_waiting_phase_maps_do_not_refuse_another_classs_quick_run(
    client, school, own_queues, published, settings
):
    """Issue 40: a class's 100 phase maps left the quick queue's oldest run past the
    threshold, and every other class's quick lab was refused (20 of 20 presses 503). The
    sampler and the workers' beats are real; the maps are class A's, Bob is in class B."""
    quick, heavy = own_queues
    telemetry_store.beat("w@here", [quick, heavy])
    # Their first 8 (levels 0 to 3) are running; 32 wait, sent at levels 4 to 6.
    class_a_flood(school, 40, settings.LAB_ADMIT_OLDEST_S + 5, taken=8)
    snap = Sampler().tick()
    assert snap is not None
    assert snap["queues"][quick]["oldest_s"] > settings.LAB_ADMIT_OLDEST_S  # the flood's age
    client.force_login(school.bob)

    response = press(client)

    assert response.status_code == 200
    bobs = Run.objects.get(owner=school.bob)
    assert (bobs.status, bobs.queue, bobs.priority) == ("queued", quick, 0)


def test_the_flooding_class_is_refused_saying_its_own_runs_wait(
    client, school, own_queues, published, settings
):
    quick, heavy = own_queues
    telemetry_store.beat("w@here", [quick, heavy])
    class_a_flood(school, 40, settings.LAB_ADMIT_OLDEST_S + 5, taken=8)
    Sampler().tick()
    client.force_login(school.alice)  # class A

    response = press(client)

    assert response.status_code == 503
    page = response.content.decode()
    # 15 s when pressed, and a moment more on a busy machine.
    assert re.search(r"Your class already has 32 runs waiting for a lab runner, the oldest "
                     r"for 1[5-9] s", page)  # fmt: skip
    assert "each class waits its own turn" in page
    assert not Run.objects.filter(owner=school.alice).exists()
    assert published == []

    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    page = press(client, lang="mr").content.decode()
    assert "तुमच्या वर्गाचे 32 रन आधीच" in page
    assert "Your class" not in page


def test_when_the_front_of_the_queue_is_old_every_class_is_refused(
    client, school, own_queues, published, settings
):
    """The site is still protected: once the runs sent first (each lane's first, at
    priority 0) wait past the threshold, a class with nothing waiting waits as long too."""
    quick, heavy = own_queues
    telemetry_store.beat("w@here", [quick, heavy])
    class_a_flood(school, 1, settings.LAB_ADMIT_OLDEST_S + 5)  # class A's first: level 0
    Sampler().tick()
    client.force_login(school.bob)

    response = press(client)

    assert response.status_code == 503
    assert "The lab runners are busy: a new run would wait about 15 s" in (
        response.content.decode()
    )
