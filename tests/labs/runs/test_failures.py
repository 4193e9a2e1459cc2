"""Why a run failed, and why none was started, read in the reader's language (labs.runs.failures).

A worker or a sweeper saves a code and values; the page says them in English or Marathi.
Runs saved before codes existed still show their stored English.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from labs.runs import failures, result_store
from labs.runs.models import Run
from tests.labs.web.test_views import FANOUT_LIVE, GOOD, HX
from tests.test_translations import DEVANAGARI, visible_text

PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def in_marathi(client, user) -> None:
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"


def failed_run(owner, **fields) -> Run:
    return Run.objects.create(
        owner=owner, lab="drain", params=GOOD, seed=0, status="failed", **fields
    )


@pytest.mark.parametrize("code", sorted(failures.MESSAGES))
def test_every_failure_reads_in_marathi_with_its_values(code):
    values = {name: f"V{i}x" for i, name in enumerate(PLACEHOLDER.findall(failures.MESSAGES[code]))}
    saved = failures.failure(code, **values)
    assert saved["error"] == failures.MESSAGES[code] % values  # the English, for the admin
    with translation.override("mr"):
        text = failures.said(saved["error_code"], saved["error_args"], saved["error"])
    assert DEVANAGARI.search(text) and text != saved["error"]
    assert all(v in text for v in values.values())


def test_the_run_page_says_a_saved_failure_in_the_readers_language(client, people):
    run = failed_run(people.alice, **failures.failure("time_limit", limit_s=90))
    client.force_login(people.alice)
    english = visible_text(client.get(run.get_absolute_url()).content.decode())
    assert "The run took longer than its limit of 90 s." in english
    in_marathi(client, people.alice)
    marathi = visible_text(client.get(run.get_absolute_url()).content.decode())
    assert "took longer than its limit" not in marathi
    assert "90 s" in marathi and DEVANAGARI.search(marathi.split("90 s")[0][-80:])


def test_a_run_saved_before_codes_shows_its_stored_english(client, people):
    run = failed_run(people.alice, error="The lab crashed: boom")
    in_marathi(client, people.alice)
    assert "The lab crashed: boom" in client.get(run.get_absolute_url()).content.decode()


def test_a_fixed_message_saved_as_text_before_codes_is_still_translated(client, people):
    run = failed_run(people.alice, error=failures.MESSAGES["worker_gone"])
    in_marathi(client, people.alice)
    html = client.get(run.get_absolute_url()).content.decode()
    assert "stopped before it finished" not in html
    with translation.override("mr"):
        assert translation.gettext(failures.MESSAGES["worker_gone"]) in html


def test_a_follower_fails_with_its_leaders_code_and_values(people):
    leader = failed_run(people.alice, **failures.failure("crashed", error="KeyError: 'x'"))
    follower = Run.objects.create(owner=people.bob, lab="drain", params=GOOD, seed=0)
    Run.objects.filter(pk=follower.pk).update(same_as=leader)
    assert result_store.settle_followers([leader.pk]) == 1
    follower.refresh_from_db()
    assert (follower.error_code, follower.error_args) == ("crashed", {"error": "KeyError: 'x'"})
    with translation.override("mr"):
        assert "KeyError: 'x'" in follower.error_text
        assert not follower.error_text.startswith("The lab crashed")


def test_a_claimed_run_starts_with_no_error(people):
    run = Run.objects.create(
        owner=people.alice, lab="drain", params=GOOD, seed=0, **failures.failure("worker_gone")
    )
    claimed = Run.objects.claim(run.pk, lease_s=30)
    assert claimed is not None
    assert (claimed.error, claimed.error_code, claimed.error_args, claimed.error_text) == (
        "",
        "",
        {},
        "",
    )


# Refused before a run exists: said while the request is read, in its language. ----------


def marathi_refusal(client, url, data) -> tuple[int, str]:
    response = client.post(url, data, **HX)
    return response.status_code, visible_text(response.content.decode())


def test_the_runner_offline_refusal_reads_in_marathi(client, people, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    in_marathi(client, people.alice)
    status, text = marathi_refusal(client, reverse("lab-detail", args=["drain"]), GOOD)
    assert status == 503
    # In Marathi, and without the broker's address (it may hold a password: issue 21).
    assert "runner is offline" not in text and "127.0.0.1:1/0" not in text


def test_the_caps_read_in_marathi(client, people, published, settings):
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 1
    settings.LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER = 1
    in_marathi(client, people.alice)
    experiment = reverse("lab-detail", args=["fanout-live"])
    assert client.post(experiment, FANOUT_LIVE, **HX).status_code == 200
    status, text = marathi_refusal(client, reverse("lab-detail", args=["drain"]), GOOD)
    assert status == 429 and "already have" not in text and "Wait for one" not in text
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 5
    status, text = marathi_refusal(client, experiment, FANOUT_LIVE)
    assert status == 429 and "real-queue experiments" not in text


def test_the_budget_refusal_reads_in_marathi(client, people, published):
    from tests.labs.runs.test_run_caps import defaults_form

    in_marathi(client, people.alice)
    data = defaults_form("trapped-service") | {
        "horizon_s": "3600",
        "workers": "1",
        "service_ms": "10000",
        "client_timeout_ms": "10",
        "max_attempts": "4",
        "retry_layers": "3",
    }
    status, text = marathi_refusal(client, reverse("lab-detail", args=["trapped-service"]), data)
    assert status == 422
    assert "of a worker's time" not in text and "10 s" in text


def test_an_expired_retained_queue_is_explained_in_the_readers_language():
    from labs.runs.retained_queue import QueueGone

    with translation.override("mr"):
        gone = str(QueueGone())
    assert DEVANAGARI.search(gone) and "1" in gone and "queue is gone" not in gone
    assert "queue is gone" in str(QueueGone())
    assert str(QueueGone("a reason of its own")) == "a reason of its own"


def test_refused_parameters_are_explained_again_in_the_readers_language(people):
    from labs.catalogue.entries import get_lab

    params = {**get_lab("drain").defaults(), "rule": "lifo"}
    saved = failures.failure("refused", reasons="rule: must be one of fixed, backlog")
    run = Run.objects.create(
        owner=people.alice, lab="drain", params=params, seed=0, status="failed", **saved
    )
    assert run.error_text == "The lab refused these parameters: rule: must be one of fixed, backlog"
    with translation.override("mr"):
        text = run.error_text
    assert "rule:" in text and "fixed, backlog" in text and "must be" not in text
    assert DEVANAGARI.search(text.split("rule:")[1])
    # A lab that no longer refuses them (its bounds changed): the saved English, framed.
    Run.objects.filter(pk=run.pk).update(params=get_lab("drain").defaults())
    run.refresh_from_db()
    assert run.error_text.endswith("rule: must be one of fixed, backlog")
