"""A finished run's fragment is rendered once per language into the cache every web process
shares (Redis), forgotten when its run is renamed, and skipped when Redis does not answer."""

from __future__ import annotations

import re
import uuid

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from django.urls import reverse

from labs.web import fragment_cache
from tests.base import finished_run

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def fresh_render_version(monkeypatch):
    """Keys no earlier test run can have filled: the shared Redis outlives a test session."""
    version = uuid.uuid4().hex[:12]
    monkeypatch.setattr(fragment_cache, "render_version", lambda: version)
    return version


def poll(client, run, language: str = "en"):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client.get(reverse("run-detail", args=[run.pk]), **HX)


def test_the_cache_is_redis_apart_from_the_broker_and_the_experiments():
    backend = settings.CACHES["default"]
    assert backend["BACKEND"] == "school.cache.ReusingRedisCache"  # Django's Redis cache
    databases = {
        url.rsplit("/", 1)[-1]
        for url in (settings.CACHE_REDIS_URL, settings.REDIS_URL, settings.EXPERIMENT_REDIS_URL)
    }
    assert len(databases) == 3


@pytest.mark.redis
def test_it_keeps_one_fragment_per_language_in_the_shared_cache(client, people, monkeypatch):
    run = finished_run(people.alice)
    client.force_login(people.alice)
    english = poll(client, run, "en")
    marathi = poll(client, run, "mr")
    assert english.status_code == marathi.status_code == 286
    assert english.content != marathi.content
    assert cache.get(fragment_cache.key(run.pk, "en")) == english.content.decode()
    assert cache.get(fragment_cache.key(run.pk, "mr")) == marathi.content.decode()

    # A second poll (any web process) answers from the cache, without rendering.
    def no_render(*args, **kwargs):
        raise AssertionError("rendered again")

    monkeypatch.setattr("labs.web.views.runs.present_run", no_render)
    assert poll(client, run, "mr").content == marathi.content


@pytest.mark.redis
def test_it_forgets_the_fragment_in_every_language_when_the_run_is_renamed(client, people):
    run = finished_run(people.alice)
    client.force_login(people.alice)
    poll(client, run, "en")
    poll(client, run, "mr")
    response = client.post(
        reverse("run-label", args=[run.pk]), {"name": "eight workers", "note": ""}, **HX
    )
    assert response.status_code == 200
    assert cache.get(fragment_cache.key(run.pk, "en")) is None
    assert cache.get(fragment_cache.key(run.pk, "mr")) is None


def test_a_cache_that_does_not_answer_is_skipped(client, people, monkeypatch):
    def down(*args, **kwargs):
        raise redis.ConnectionError("no Redis")

    monkeypatch.setattr(fragment_cache.django_cache, "get", down)
    monkeypatch.setattr(fragment_cache.django_cache, "delete_many", down)
    run = finished_run(people.alice)
    client.force_login(people.alice)
    assert poll(client, run).status_code == 286
    renamed = client.post(reverse("run-label", args=[run.pk]), {"name": "x", "note": ""}, **HX)
    assert renamed.status_code == 200


def test_the_key_names_the_run_the_language_and_the_code_that_rendered_it():
    assert fragment_cache.key("abc", "mr") == f"run-body:{fragment_cache.render_version()}:abc:mr"
    assert fragment_cache.key("abc", "mr") != fragment_cache.key("abc", "en")


@pytest.mark.redis
def test_runs_with_one_result_key_share_one_render_of_the_charts(client, people, monkeypatch):
    from labs.runs.models import Run
    from labs.web import presenters

    key = f"test-{uuid.uuid4().hex}"
    first, second = finished_run(people.alice), finished_run(people.alice)
    Run.objects.filter(pk__in=[first.pk, second.pk]).update(result_key=key)
    calls = []

    def counted(result, lab):
        calls.append(lab.slug)
        return presenters.present_charts(result, lab)

    monkeypatch.setattr("labs.web.views.runs.present_charts", counted)
    client.force_login(people.alice)
    one, two = poll(client, first), poll(client, second)
    assert one.status_code == two.status_code == 286
    assert calls == ["drain"]
    assert f'id="run-{first.pk}"' in one.content.decode()
    assert f'id="run-{second.pk}"' in two.content.decode()
    assert (
        one.content.decode().count('class="chart"')
        == two.content.decode().count('class="chart"')
        > 0
    )


@pytest.mark.redis
def test_a_class_pressing_run_on_the_same_values_gets_one_render_of_the_form(
    client, people, published, monkeypatch, fresh_render_version
):
    from labs.web.views import pages
    from tests.labs.runs.test_run_caps import defaults_form

    data = defaults_form("drain") | {"per_worker": "120"}
    rendered = []
    real = pages.render_to_string

    def counted(name, context=None, **kwargs):
        rendered.append(name)
        return real(name, context, **kwargs)

    monkeypatch.setattr(pages, "render_to_string", counted)
    answers = []
    for person in (people.alice, people.bob):
        client.force_login(person)
        answer = client.post(reverse("lab-detail", args=["drain"]), data, **HX)
        assert answer.status_code == 200
        answers.append(answer.content.decode())
    assert rendered == ["labs/lab.html#lab-fields"]
    fields = [html[html.index("<fieldset>") : html.rindex("</fieldset>")] for html in answers]
    assert fields[0] == fields[1] and "<input" in fields[0]
    assert f'value="{data["per_worker"]}"' in answers[1]


def test_a_form_with_errors_is_rendered_for_its_sender(client, people, published, monkeypatch):
    from labs.web.views import pages
    from tests.labs.runs.test_run_caps import defaults_form

    monkeypatch.setattr(pages, "valid_fields_html", lambda *a: pytest.fail("cached"))
    client.force_login(people.alice)
    bad = defaults_form("drain") | {"per_worker": "-5"}
    answer = client.post(reverse("lab-detail", args=["drain"]), bad, **HX)
    assert answer.status_code == 422 and 'class="error"' in answer.content.decode()


@pytest.mark.redis
def test_students_who_each_pick_a_seed_share_one_render_of_the_form(
    client, people, published, monkeypatch, fresh_render_version
):
    from labs.web.views import pages
    from tests.labs.runs.test_run_caps import defaults_form

    data = defaults_form("trapped-service") | {"base_rps": "70"}
    rendered = []
    real = pages.render_to_string

    def counted(name, context=None, **kwargs):
        rendered.append(name)
        return real(name, context, **kwargs)

    monkeypatch.setattr(pages, "render_to_string", counted)
    answers = []
    for person, seed in ((people.alice, "40417"), (people.bob, "90533")):
        client.force_login(person)
        answer = client.post(
            reverse("lab-detail", args=["trapped-service"]), data | {"seed": seed}, **HX
        )
        assert answer.status_code == 200
        answers.append(answer.content.decode())
    assert rendered == ["labs/lab.html#lab-fields"]
    for html, seed, other in zip(answers, ("40417", "90533"), ("90533", "40417"), strict=True):
        assert re.search(rf'name="seed"[^>]*value="{seed}"|value="{seed}"[^>]*name="seed"', html)
        assert other not in html and pages.SEED_SLOT not in html


def live_draft_pages(runs) -> int:
    """How many of these runs' pages (whole fragment or charts) the cache holds now."""
    names = [fragment_cache.key(run.pk, "en") for run in runs]
    names += [fragment_cache.charts_key(run, "en") for run in runs]
    return sum(cache.get(name) is not None for name in names)


def drafts_of(owner, n: int):
    from labs.runs.models import Run

    runs = [finished_run(owner, seed=seed) for seed in range(n)]
    Run.objects.filter(pk__in=[r.pk for r in runs]).update(draft=True)
    return list(Run.objects.filter(pk__in=[r.pk for r in runs]).order_by("created_at"))


@pytest.mark.redis
def test_a_students_drafts_keep_a_bounded_number_of_cached_pages(
    client, people, fresh_render_version, monkeypatch
):
    """The attack's D4: one student's slider drafts added ~15 MB a minute of pages."""
    monkeypatch.setattr(fragment_cache, "DRAFT_PAGES_PER_STUDENT", 4)
    drafts = drafts_of(people.alice, 9)
    client.force_login(people.alice)
    for run in drafts:
        assert poll(client, run).status_code == 286
    assert live_draft_pages(drafts) <= 4
    assert live_draft_pages(drafts[-4:]) == 4  # the newest stay: they are the ones looked at


@pytest.mark.redis
def test_a_drafts_charts_are_kept_and_its_whole_body_is_not(client, people, fresh_render_version):
    """A draft's body is shown once; its charts may be asked for again (the same values)."""
    (draft,) = drafts_of(people.alice, 1)
    client.force_login(people.alice)
    assert poll(client, draft).status_code == 286
    assert cache.get(fragment_cache.charts_key(draft, "en")) is not None
    assert cache.get(fragment_cache.key(draft.pk, "en")) is None


@pytest.mark.redis
def test_all_drafts_together_keep_a_bounded_number_of_cached_pages(
    client, people, fresh_render_version, monkeypatch
):
    monkeypatch.setattr(fragment_cache, "DRAFT_PAGES_IN_ALL", 6)
    mine, theirs = drafts_of(people.alice, 4), drafts_of(people.bob, 4)
    for person, runs in ((people.alice, mine), (people.bob, theirs)):
        client.force_login(person)
        for run in runs:
            assert poll(client, run).status_code == 286
    assert live_draft_pages(mine + theirs) <= 6


@pytest.mark.redis
def test_drafts_answered_at_once_share_one_render_of_their_body(
    client, people, published, fresh_render_version, monkeypatch, django_capture_on_commit_callbacks
):
    """A class dragging one slider: every draft of a value after the first is answered from
    the store, and its body is its result's shared one with its own id and its own stand
    against the challenges (one that met a challenge says it was kept; another, not)."""
    from labs.runs.models import Run
    from labs.runs.tasks import execute_run
    from labs.web.views import runs as run_views
    from tests.labs.runs.test_run_caps import defaults_form

    presented = []
    present = run_views.present_run
    monkeypatch.setattr(
        run_views,
        "present_run",
        lambda run, *a, **k: presented.append(run) or present(run, *a, **k),
    )
    data = defaults_form("drain") | {"per_waiting": "50"}  # meets a challenge (drain-by-five)

    def move(person):
        client.force_login(person)
        with django_capture_on_commit_callbacks(execute=True):
            answer = client.post(reverse("lab-draft", args=["drain"]), data, **HX)
        assert answer.status_code == 200
        return answer.content.decode()

    move(people.bob)
    execute_run.apply(args=(str(Run.objects.get(owner=people.bob).pk),))
    first = move(people.alice)
    second = move(people.alice)
    assert len(presented) == 1  # alice's first: rendered; her second: the shared body
    ids = re.findall(r'id="run-([0-9a-f-]{36})"', first + second)
    mine = list(Run.objects.filter(owner=people.alice).order_by("created_at"))
    assert ids == [str(mine[0].pk), str(mine[1].pk)]
    assert run_views.STAND_IN_ID not in first + second
    assert run_views.CHALLENGES_SLOT not in first + second
    for body, run in zip((first, second), mine, strict=True):
        assert body.count(str(run.pk)) >= 4  # the body, its keep link, permalink, challenges
        assert f'aria-labelledby="run-challenges-{run.pk}"' in body
    assert "Same result as an earlier run" in second and "status-succeeded" in second
    # The very body a draft rendered for itself has, byte for byte but its id.
    monkeypatch.setattr(run_views, "shared_by_result", lambda run: False)
    third = move(people.alice)
    uuid_shape = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    assert re.sub(uuid_shape, "ID", third) == re.sub(uuid_shape, "ID", second)
    # Kept for the challenge (credited as the first one's post ended): said on its poll.
    assert "Challenge met: kept in your runs." in poll(client, mine[0]).content.decode()
    assert "Challenge met: kept in your runs." not in second
