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


def test_an_archived_class_starts_no_experiment(client, school):
    # Read-only at the end of term (teaching.access.require_open): its page hides the link.
    school.class_a.archived_at = school.class_a.created_at
    school.class_a.save(update_fields=["archived_at"])
    client.force_login(school.teacher)
    assert client.get(reverse("classlab-start-class", args=[school.class_a.pk])).status_code == 403
    answer = client.post(
        reverse("classlab-start", args=[school.class_a.pk]), {"scenario": "storm", "minutes": "10"}
    )
    assert answer.status_code == 403 and b"archived" in answer.content
    assert not Experiment.objects.exists()


def test_no_guests_means_a_signed_out_phone_is_refused_with_the_reason(client, school):
    client.force_login(school.teacher)
    client.post(
        reverse("classlab-start", args=[school.class_a.pk]), {"scenario": "storm", "minutes": "10"}
    )
    exp = Experiment.objects.get()
    try:
        client.logout()
        answer = client.post(reverse("classlab-join", args=[exp.code]), {"nickname": "Meera"})
        assert answer.status_code == 403 and b"Log in with your class account" in answer.content
        assert not Participant.objects.exists()
    finally:
        live.namespace(exp.run_key).cleanup(connect())


def test_a_bad_setting_is_a_422_with_its_reason(client, started):
    answer = client.post(
        reverse("classlab-control", args=[started.pk]), {"action": "admission", "value": "0"}
    )
    assert answer.status_code == 422 and b"from 1 to 5000" in answer.content
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


def test_a_teachers_reload_never_restarts_or_duplicates_the_experiment(
    client, started, school, django_capture_on_commit_callbacks, monkeypatch
):
    from classlab import tasks

    sent: list[tuple] = []
    monkeypatch.setattr(
        tasks.drive_experiment, "apply_async", lambda args, queue: sent.append(args)
    )
    projector = reverse("classlab-projector", args=[started.pk])
    go = reverse("classlab-go", args=[started.pk])
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(go).status_code == 302
    first = Experiment.objects.get()
    for _ in range(3):  # reloads, a second press of Start, the start form sent again
        assert client.get(projector).status_code == 200
        assert client.get(projector, headers={"HX-Request": "true"}).status_code == 200
        with django_capture_on_commit_callbacks(execute=True):
            client.post(go)
        again = client.post(
            reverse("classlab-start", args=[school.class_a.pk]),
            {"scenario": "storm", "minutes": "10"},
        )
        assert again["Location"] == projector
    assert sent == [(str(started.pk),)]  # the service was started once
    now = Experiment.objects.get()  # and there is still one experiment, started when it was
    assert (now.pk, now.status, now.started_at) == (first.pk, "running", first.started_at)


@pytest.mark.parametrize(
    ("action", "value", "setting"),
    [("slots", "8", "slots"), ("service", "350", "service_ms"), ("timeout", "1500", "timeout_ms")],
)
def test_the_teacher_sets_the_service_live_within_bounds(client, started, action, value, setting):
    from classlab.storm import Storm

    control = reverse("classlab-control", args=[started.pk])
    assert client.post(control, {"action": action, "value": value}).status_code == 302
    storm = Storm(connect(), live.namespace(started.run_key))
    assert storm.settings()[setting] == int(value)
    # announced at once, not at the next sample
    assert live.current(connect(), started.run_key)[setting] == int(value)
    refused = client.post(control, {"action": action, "value": "0"})
    assert refused.status_code == 422 and b"from" in refused.content
    assert storm.settings()[setting] == int(value)


def test_scenario_2s_work_delay_is_set_from_the_controls(client, school):
    from classlab.jobs import Jobs

    client.force_login(school.teacher)
    client.post(
        reverse("classlab-start", args=[school.class_a.pk]),
        {"scenario": "workers", "minutes": "5"},
    )
    exp = Experiment.objects.get()
    try:
        control = reverse("classlab-control", args=[exp.pk])
        assert client.post(control, {"action": "work", "value": "4500"}).status_code == 302
        jobs = Jobs(connect(), live.namespace(exp.run_key))
        assert jobs.settings()["work_ms"] == 4500
        assert client.post(control, {"action": "work", "value": "70000"}).status_code == 422
        assert 'id="cx-work"' in client.get(reverse("classlab-projector", args=[exp.pk])).text
    finally:
        live.namespace(exp.run_key).cleanup(connect())


def test_the_replay_steps_through_the_saved_timeline_and_stops(client, started):
    started.timeline = [{"t": t, "original": 3, "retry": t, "backlog": t} for t in range(12)]
    started.status = "ended"
    started.save()
    replay = reverse("classlab-replay", args=[started.pk])
    page = client.get(replay)
    assert page.status_code == 200 and f"{replay}?at=10" in page.text
    frames = []
    at = 5
    while True:
        frame = client.get(replay, {"at": at}, headers={"HX-Request": "true"})
        frames.append(frame.status_code)
        if frame.status_code == 286:
            break
        at += 5
    assert frames == [200, 200, 286]  # 5, 10, then 12 of 12: the last frame stops the polling
    assert "(12/12)" in frame.text
    assert client.get(replay, {"at": "x"}).status_code == 400


def test_the_stream_under_a_wsgi_server_sends_the_page_to_polling(client, started):
    # The test client is WSGI: a stream would hold a thread, so it answers 204 at once.
    assert client.get(reverse("classlab-stream", args=[started.code])).status_code == 204


def test_a_phones_call_reads_its_experiment_and_its_row_in_one_query(client, started, school):
    """A class's phones call about a hundred times a second: the phone's row comes with its
    experiment joined, for a guest and for a signed-in student alike."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    Experiment.objects.filter(pk=started.pk).update(status="running")
    client.logout()
    client.post(reverse("classlab-join", args=[started.code]), {"nickname": "Meera"})
    student = type(client)()
    student.force_login(school.alice)
    student.post(reverse("classlab-join", args=[started.code]))
    for phone in (client, student):
        with CaptureQueriesContext(connection) as queries:
            answer = phone.post(reverse("classlab-tick", args=[started.code]), {"taps": "1"})
        assert answer.status_code == 200 and answer.json()["record"]["taps"] == 1
        classlab = [q["sql"] for q in queries if "classlab_" in q["sql"]]
        assert len(classlab) == 1, classlab
        assert "timeline" not in classlab[0]  # nor the saved run's record, unread by a call


def test_a_second_call_while_the_phones_first_is_answered_is_a_429(client, started):
    Experiment.objects.filter(pk=started.pk).update(status="running")
    client.logout()
    client.post(reverse("classlab-join", args=[started.code]), {"nickname": "Meera"})
    pid = Participant.objects.get().pid
    lock = live.namespace(started.run_key).key("lock", pid)
    connect().set(lock, "1", px=2000)  # the phone's first call holds its lock
    answer = client.post(reverse("classlab-tick", args=[started.code]), {"taps": "1"})
    assert answer.status_code == 429 and "One request at a time" in answer.json()["error"]
    connect().delete(lock)
    assert client.post(reverse("classlab-tick", args=[started.code])).status_code == 200
