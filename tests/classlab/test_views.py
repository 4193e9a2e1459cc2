"""The class experiment's pages: who may start and steer it, joining, a phone's calls, the run."""

from __future__ import annotations

import pytest
from django.urls import reverse

from classlab import live
from classlab.models import Experiment, Participant
from classlab.tasks import finish
from labs.experiments.namespace import connect


@pytest.fixture
def started(client, school):
    client.force_login(school.teacher)
    answer = client.post(
        reverse("classlab-start", args=[school.class_a.pk]),
        {"scenario": "storm", "minutes": "10", "allow_guests": "on"},
    )
    exp = Experiment.objects.get()
    assert answer.status_code == 302 and answer["Location"] == reverse(
        "classlab-projector", args=[exp.pk]
    )
    yield exp
    live.namespace(exp.run_key).cleanup(connect())


def test_the_projector_shows_the_code_a_qr_code_and_no_names(client, started, school):
    page = client.get(reverse("classlab-projector", args=[started.pk]))
    text = page.content.decode()
    assert page.status_code == 200 and started.code in text and "<svg" in text
    assert "alice" not in text


def test_one_experiment_at_a_time_per_class(client, started, school):
    again = client.post(
        reverse("classlab-start", args=[school.class_a.pk]), {"scenario": "workers", "minutes": "5"}
    )
    assert again["Location"] == reverse("classlab-projector", args=[started.pk])
    assert Experiment.objects.count() == 1


def test_a_student_of_another_class_cannot_start_one(client, school):
    client.force_login(school.bob)
    answer = client.post(
        reverse("classlab-start", args=[school.class_a.pk]), {"scenario": "storm", "minutes": "10"}
    )
    assert answer.status_code == 404


def test_a_bad_setting_is_a_422_with_its_reason(client, started):
    answer = client.post(
        reverse("classlab-control", args=[started.pk]), {"action": "admission", "value": "0"}
    )
    assert answer.status_code == 422 and b"admission must be between" in answer.content
    answer = client.post(reverse("classlab-control", args=[started.pk]), {"action": "warp"})
    assert answer.status_code == 422


def test_a_guest_joins_predicts_and_the_phone_calls_are_refused_before_the_start(
    client, started, django_user_model
):
    client.logout()
    join = reverse("classlab-join", args=[started.code])
    assert client.post(join, {"nickname": "!"}).status_code == 422
    answer = client.post(join, {"nickname": "Meera"})
    assert answer["Location"] == reverse("classlab-phone", args=[started.code])
    phone = client.get(answer["Location"])
    assert phone.status_code == 200 and "Meera" in phone.content.decode()
    client.post(reverse("classlab-predict", args=[started.code]), {"prediction": "trapped"})
    assert Participant.objects.get().prediction == "trapped"
    tick = client.post(reverse("classlab-tick", args=[started.code]), {"taps": "1"})
    assert tick.json()["status"] == "waiting"


def test_a_phone_that_never_joined_is_refused(client, started):
    client.logout()
    assert client.post(reverse("classlab-tick", args=[started.code])).status_code == 403


def test_an_ended_run_is_saved_listed_with_the_class_and_exports(client, started, school):
    finish(started.pk)
    run = client.get(reverse("classlab-run", args=[started.pk]))
    assert run.status_code == 200
    assert (
        reverse("classlab-run", args=[started.pk])
        in client.get(reverse("class-detail", args=[school.class_a.pk])).content.decode()
    )
    assert client.get(reverse("classlab-export", args=[started.pk, "json"])).json()["code"] == (
        started.code
    )
    assert client.get(reverse("classlab-export", args=[started.pk, "xls"])).status_code == 404
