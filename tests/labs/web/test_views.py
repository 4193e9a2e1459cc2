"""Pages: lessons are public, runs need an account, bad input never makes a run."""

from __future__ import annotations

import pytest
from django.urls import reverse

from labs.catalogue.units import UNITS
from labs.runs.models import Run
from tests.base import finished_run

HX = {"HTTP_HX_REQUEST": "true"}
GOOD = {
    "arrivals": "50, 800, 800, 800, 200, 50, 50, 50, 50, 50",
    "per_worker": "100",
    "rule": "backlog",
    "fixed_workers": "3",
    "per_waiting": "100",
    "min_workers": "1",
    "max_workers": "10",
}


def test_it_lists_the_four_units_on_the_home_page(client, db):
    html = client.get(reverse("home")).content.decode()
    for unit in UNITS:
        assert reverse("unit-detail", args=[unit.slug]) in html
    assert "Assignment 05" in html and "Lesson 07" in html


@pytest.mark.parametrize("unit", [u.slug for u in UNITS])
def test_it_serves_every_unit_page_without_login(client, db, unit):
    assert client.get(reverse("unit-detail", args=[unit])).status_code == 200


def test_it_answers_404_for_an_unknown_unit_or_lab(client, db):
    assert client.get(reverse("unit-detail", args=["lesson-99"])).status_code == 404
    assert client.get(reverse("lab-detail", args=["nope"])).status_code == 404


def test_it_serves_the_vendored_assets_locally(client, db):
    html = client.get(reverse("lab-detail", args=["drain"])).content.decode()
    assert "/static/vendor/htmx-2.0.11.min.js" in html
    assert "/static/vendor/plotly-lab-4.1.1-3.min.js" in html
    assert "https://" not in html.split("<body")[0]


def test_it_sends_an_anonymous_run_to_the_login_page(client, db, published):
    response = client.post(reverse("lab-detail", args=["drain"]), GOOD)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    htmx = client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    assert htmx.status_code == 401 and htmx["HX-Redirect"].startswith(reverse("login"))
    assert Run.objects.count() == 0 and published == []


def test_it_creates_a_queued_run_and_enqueues_it_after_commit(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    assert response.status_code == 200
    run = Run.objects.get()
    assert (run.owner, run.lab, run.status) == (people.alice, "drain", "queued")
    assert run.params["arrivals"] == [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]
    assert [call["args"] for call in published] == [(str(run.id),)]
    html = response.content.decode()
    assert f'hx-get="{run.get_absolute_url()}"' in html and 'hx-trigger="load delay:' in html
    assert "HX-Request" in response["Vary"]


def test_it_redirects_a_plain_post_to_the_runs_permalink(client, people, published):
    client.force_login(people.alice)
    response = client.post(reverse("lab-detail", args=["drain"]), GOOD)
    assert response.status_code == 302
    assert response["Location"] == Run.objects.get().get_absolute_url()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("arrivals", "50, lots", "is not a number"),
        ("per_worker", "-3", "greater than or equal to 1"),
        ("arrivals", "1000000000", "out of range"),
        ("max_workers", "", "required"),
    ],
)
def test_it_shows_bad_input_on_the_form_and_makes_no_run(
    client, people, published, field, value, message
):
    client.force_login(people.alice)
    response = client.post(reverse("lab-detail", args=["drain"]), {**GOOD, field: value}, **HX)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert Run.objects.count() == 0 and published == []


def test_it_says_the_runner_is_offline_when_redis_does_not_answer(client, people, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    client.force_login(people.alice)
    response = client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    assert response.status_code == 503
    assert "runner is offline" in response.content.decode()
    assert Run.objects.count() == 0


def test_it_marks_the_run_failed_if_the_broker_refuses_the_message(
    client, people, monkeypatch, django_capture_on_commit_callbacks
):
    from kombu.exceptions import OperationalError

    def refuse(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr("labs.runs.dispatch.check_broker", lambda: None)
    monkeypatch.setattr("labs.runs.dispatch.execute_run.apply_async", refuse)
    client.force_login(people.alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    run = Run.objects.get()
    assert run.status == "failed" and "offline" in run.error


def test_it_caps_the_runs_a_user_has_going_at_once(client, people, published, settings):
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 2
    client.force_login(people.alice)
    for _ in range(2):
        client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    response = client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    assert response.status_code == 429
    assert "already have 2 runs going" in response.content.decode()
    assert Run.objects.count() == 2


def make_run(owner, **fields) -> Run:
    return Run.objects.create(owner=owner, lab="drain", params=GOOD, seed=0, **fields)


def test_it_hides_a_run_from_another_student(client, people):
    run = make_run(people.alice)
    client.force_login(people.bob)
    assert client.get(run.get_absolute_url()).status_code == 404
    assert client.get(reverse("run-json", args=[run.id])).status_code == 404


def test_a_poll_of_a_run_gone_or_not_theirs_stops_quietly_and_a_visit_is_still_404(client, people):
    """A replaced draft is deleted while its page may poll it once more: no 404 to log."""
    theirs = make_run(people.alice)
    gone = make_run(people.bob)
    gone_url = gone.get_absolute_url()
    gone.delete()
    client.force_login(people.bob)
    for url in (gone_url, theirs.get_absolute_url()):
        polled = client.get(url, HTTP_HX_REQUEST="true")
        assert (polled.status_code, polled.content) == (286, b"")
        assert polled["HX-Reswap"] == "none"
        assert client.get(url).status_code == 404


def test_it_keeps_polling_a_queued_run_and_stops_with_286_when_done(client, people):
    from labs.catalogue.entries import get_lab
    from labs.interface.progress import SilentProgress
    from labs.runs.execution import run_lab
    from labs.web.forms import LabForm

    lab = get_lab("drain")
    form = LabForm(lab, GOOD)
    assert form.is_valid()
    run = Run.objects.create(owner=people.alice, lab="drain", params=form.params(), seed=0)
    client.force_login(people.alice)
    polling = client.get(run.get_absolute_url(), **HX)
    assert polling.status_code == 200 and 'hx-trigger="load delay:' in polling.content.decode()

    result = run_lab(lab, form.params(), 0, SilentProgress())
    Run.objects.filter(pk=run.pk).update(status="succeeded", own_result=result)
    done = client.get(run.get_absolute_url(), **HX)
    html = done.content.decode()
    assert done.status_code == 286
    assert f'hx-get="{run.get_absolute_url()}"' not in html  # polling stops
    assert 'hx-trigger="toggle once"' in html  # the numbers come only when opened
    assert "The backlog peaked at 800 jobs." in html
    assert 'class="chart"' in html


def test_it_shows_a_failed_runs_error(client, people):
    run = make_run(people.alice, status="failed", error="The lab crashed: boom")
    client.force_login(people.alice)
    html = client.get(run.get_absolute_url()).content.decode()
    assert "The lab crashed: boom" in html


def test_it_lists_only_my_runs(client, people):
    mine, theirs = make_run(people.alice), make_run(people.bob)
    client.force_login(people.alice)
    html = client.get(reverse("my-runs")).content.decode()
    assert str(mine.id) in html and str(theirs.id) not in html


# History, names, exports and comparisons ---------------------------------------------------


def test_it_filters_my_history_by_lab(client, people):
    drain = finished_run(people.alice)
    other = make_run(people.alice)
    Run.objects.filter(pk=other.pk).update(lab="retry-storm")
    client.force_login(people.alice)
    everything = client.get(reverse("my-runs")).content.decode()
    assert str(drain.id) in everything and str(other.id) in everything
    only = client.get(reverse("my-runs"), {"lab": "drain"}).content.decode()
    assert str(drain.id) in only and str(other.id) not in only
    fragment = client.get(reverse("my-runs"), {"lab": "drain"}, **HX)
    assert fragment.content.decode().lstrip().startswith('<div id="run-list">')
    assert "HX-Request" in fragment["Vary"]


def test_it_answers_400_for_an_unknown_lab_filter(client, people):
    client.force_login(people.alice)
    response = client.get(reverse("my-runs"), {"lab": "nope"})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()


def test_it_leaves_teachers_access_out_of_my_history(client, school):
    from teaching.models import Submission

    run = finished_run(school.alice)
    Submission.objects.create(assignment=school.assignment_a, student=school.alice, run=run)
    client.force_login(school.teacher)
    assert str(run.id) not in client.get(reverse("my-runs")).content.decode()


def test_it_names_and_notes_my_run(client, people):
    run = finished_run(people.alice)
    client.force_login(people.alice)
    label = reverse("run-label", args=[run.id])
    response = client.post(label, {"name": "Eight workers", "note": "Peak went down."})
    assert response.status_code == 302 and response["Location"] == run.get_absolute_url()
    run.refresh_from_db()
    assert (run.name, run.note) == ("Eight workers", "Peak went down.")
    assert "Eight workers" in client.get(reverse("my-runs")).content.decode()
    htmx = client.post(label, {"name": "x" * 81, "note": ""}, **HX)
    assert htmx.status_code == 422 and "at most 80 characters" in htmx.content.decode()


def test_naming_a_run_never_writes_back_what_a_worker_saved_meanwhile(client, people, monkeypatch):
    """A worker ends the run between the view's read and its save: the name goes in, the
    worker's status stays."""
    from labs.web import forms

    run = Run.objects.create(owner=people.alice, lab="drain", params=GOOD, seed=0)
    real = forms.RunLabelForm.is_valid

    def worker_ends_it_meanwhile(self):
        Run.objects.filter(pk=run.pk).update(status=Run.Status.FAILED, error="done elsewhere")
        return real(self)

    monkeypatch.setattr(forms.RunLabelForm, "is_valid", worker_ends_it_meanwhile)
    client.force_login(people.alice)
    client.post(reverse("run-label", args=[run.id]), {"name": "Mine", "note": ""})
    run.refresh_from_db()
    assert (run.name, run.status, run.error) == ("Mine", "failed", "done elsewhere")


def test_it_lets_only_the_owner_name_a_run(client, school):
    from teaching.models import Submission

    run = finished_run(school.alice)
    Submission.objects.create(assignment=school.assignment_a, student=school.alice, run=run)
    client.force_login(school.teacher)
    response = client.post(reverse("run-label", args=[run.id]), {"name": "mine now"})
    assert response.status_code == 403
    assert "Only the person who made this run can name it." in response.content.decode()
    client.force_login(school.bob)
    assert client.post(reverse("run-label", args=[run.id]), {"name": "x"}).status_code == 404
    run.refresh_from_db()
    assert run.name == ""


def test_it_exports_a_runs_series_as_csv(client, people):
    run = finished_run(people.alice)
    client.force_login(people.alice)
    response = client.get(reverse("run-csv", args=[run.id]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert f'filename="drain-{str(run.id)[:8]}.csv"' in response["Content-Disposition"]
    lines = response.content.decode().splitlines()
    assert lines[0] == "second,arrived,workers,done,backlog"
    assert lines[1:3] == ["0,50,1,50,0", "1,800,1,100,700"]
    assert len(lines) == 11


def test_it_downloads_a_run_as_a_json_file_like_the_csv(client, people):
    run = finished_run(people.alice)
    client.force_login(people.alice)
    response = client.get(reverse("run-json", args=[run.id]))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    disposition = response["Content-Disposition"]
    assert disposition == f'attachment; filename="drain-{str(run.id)[:8]}.json"'
    saved = response.json()
    assert saved["id"] == str(run.id) and saved["result"]["summary"]["peak_backlog"] == 800


def test_it_has_no_csv_for_an_unfinished_run(client, people):
    run = make_run(people.alice)
    client.force_login(people.alice)
    response = client.get(reverse("run-csv", args=[run.id]))
    assert response.status_code == 409 and "This run is queued" in response.content.decode()


def test_it_compares_two_runs_figure_by_figure_with_overlaid_charts(client, people):
    import plotly.graph_objects as go

    a = finished_run(people.alice)
    b = finished_run(people.alice, per_waiting=50)
    client.force_login(people.alice)
    response = client.get(reverse("run-compare"), {"run": [a.id, b.id]})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Different results:" in html
    peak_row = html.split("<code>peak_backlog</code>")[1].split("</tr>")[0]
    assert "<td>800</td><td>700</td>" in peak_row
    assert [d[0] for d in response.context["cmp"].param_diffs] == ["per_waiting"]
    charts = response.context["cmp"].charts
    # Titled in the lab's own words for each series, not by its key.
    assert [c["layout"]["title"]["text"] for c in charts] == [
        "Arrived: both runs",
        "Workers: both runs",
        "Done: both runs",
        "Waiting (backlog): both runs",
    ]
    for chart in charts:
        go.Figure(chart)
        assert len(chart["data"]) == 2 and chart["data"][1]["line"]["dash"] == "dash"


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        (lambda a, b, c: [a.id], "Pick exactly two different runs"),
        (lambda a, b, c: [a.id, a.id], "Pick exactly two different runs"),
        (lambda a, b, c: [a.id, c.id], "only runs of the same lab can be compared"),
        (lambda a, b, c: [a.id, "nope"], "is not a run id"),
        (lambda a, b, c: [], "Pick two runs to compare."),
    ],
)
def test_it_refuses_a_comparison_that_makes_no_sense(client, people, runs, message):
    a, b, c = finished_run(people.alice), finished_run(people.alice), make_run(people.alice)
    Run.objects.filter(pk=c.pk).update(lab="retry-storm")
    client.force_login(people.alice)
    response = client.get(reverse("run-compare"), {"run": runs(a, b, c)})
    assert response.status_code == 400
    assert message in response.content.decode()


def test_it_will_not_compare_with_someone_elses_run(client, people):
    mine, theirs = finished_run(people.alice), finished_run(people.bob)
    client.force_login(people.alice)
    response = client.get(reverse("run-compare"), {"run": [mine.id, theirs.id]})
    assert response.status_code == 404
    assert "not yours to see" in response.content.decode()


def test_it_refuses_a_rerun_while_the_user_has_too_many_going(client, people, published, settings):
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 1
    run = finished_run(people.alice)
    make_run(people.alice)  # queued
    client.force_login(people.alice)
    response = client.post(reverse("run-rerun", args=[run.id]))
    assert response.status_code == 429
    assert "already have 1 run going" in response.content.decode()
    assert Run.objects.count() == 2


def test_it_shows_the_run_page_with_name_form_and_downloads(client, people):
    run = finished_run(people.alice)
    client.force_login(people.alice)
    html = client.get(run.get_absolute_url()).content.decode()
    assert reverse("run-csv", args=[run.id]) in html
    assert reverse("run-label", args=[run.id]) in html
    assert reverse("run-rerun", args=[run.id]) in html


# Real-queue experiments: capped per user, bad input refused before any run is made. ---------

FANOUT_LIVE = {
    "jobs": "60", "workers": "3", "rate_per_worker": "20", "crashes": "1",
    "crash_point": "after_effect", "visibility_timeout_s": "0.5", "idempotent": "on", "seed": "1",
}  # fmt: skip


def test_it_caps_the_experiments_a_user_has_going_at_once(client, people, published, settings):
    settings.LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER = 2
    client.force_login(people.alice)
    url = reverse("lab-detail", args=["fanout-live"])
    for _ in range(2):
        assert client.post(url, FANOUT_LIVE, **HX).status_code == 200
    response = client.post(url, FANOUT_LIVE, **HX)
    assert response.status_code == 429
    assert "already have 2 real-queue experiments going" in response.content.decode()
    assert Run.objects.count() == 2
    # A simulation still runs, and so does another student's experiment.
    assert client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX).status_code == 200
    client.force_login(people.bob)
    assert client.post(url, FANOUT_LIVE, **HX).status_code == 200
    # Once one ends, alice may start one more, and no more.
    finished = Run.objects.filter(owner=people.alice, lab="fanout-live").first()
    Run.objects.filter(pk=finished.pk).update(status="succeeded")
    client.force_login(people.alice)
    assert client.post(url, FANOUT_LIVE, **HX).status_code == 200
    assert client.post(url, FANOUT_LIVE, **HX).status_code == 429


def test_it_refuses_an_experiment_too_big_for_a_minute_with_the_reason(client, people, published):
    client.force_login(people.alice)
    response = client.post(
        reverse("lab-detail", args=["fanout-live"]),
        {**FANOUT_LIVE, "jobs": "2000", "workers": "1", "rate_per_worker": "5"},
        **HX,
    )
    assert response.status_code == 422
    assert "jobs ÷ (workers × rate) is 400 s; keep it at most 40 s" in response.content.decode()
    assert Run.objects.count() == 0 and published == []


@pytest.mark.parametrize(
    ("key", "words"),
    [("oldest_age_s", "oldest age (s)"), ("held_ms", "held (ms)"), ("backlog", "backlog")],
)
def test_a_series_the_lab_does_not_name_is_titled_from_its_key_in_words(key, words):
    from labs.web.compare import readable

    assert readable(key) == words


# What a publish to a full Redis raises, as redis-py and kombu word it (neither says "OOM":
# redis-py drops the reply's prefix). The fault bench found the first said as "offline".
FULL = (
    'kombu.exceptions.OperationalError("Command # 1 (LLEN labs) of pipeline caused error: '
    "command not allowed when used memory > 'maxmemory'.\")",
    "redis.exceptions.OutOfMemoryError(\"command not allowed when used memory > 'maxmemory'.\")",
)


@pytest.mark.parametrize("raised", FULL)
def test_a_full_redis_is_said_as_full_and_no_message_shows_the_broker_address(
    client, people, monkeypatch, django_capture_on_commit_callbacks, settings, raised
):
    import kombu
    import redis

    def full(**kwargs):
        raise eval(raised, {"kombu": kombu, "redis": redis})

    monkeypatch.setattr("labs.runs.dispatch.check_broker", lambda: None)
    monkeypatch.setattr("labs.runs.dispatch.execute_run.apply_async", full)
    client.force_login(people.alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("lab-detail", args=["drain"]), GOOD, **HX)
    run = Run.objects.get()
    assert run.error_code == "redis_full" and "short of memory" in run.error_text

    settings.CELERY_BROKER_URL = "redis://:s3cret@127.0.0.1:1/0"
    monkeypatch.undo()
    from labs.runs import redis_clients
    from labs.runs.dispatch import RunnerOffline, check_broker

    redis_clients.forget()
    with pytest.raises(RunnerOffline) as refused:
        check_broker(timeout_s=0.2)
    assert "127.0.0.1" not in str(refused.value) and "s3cret" not in str(refused.value)


@pytest.mark.parametrize("language", ["en", "mr"])
def test_every_lab_page_says_what_its_model_leaves_out_in_the_readers_language(
    client, db, language
):
    from django.utils import translation
    from django.utils.html import escape

    from labs.catalogue.entries import LABS

    client.cookies["django_language"] = language
    unsaid = []
    for lab in LABS:
        html = client.get(reverse("lab-detail", args=[lab.slug])).content.decode()
        with translation.override(language):
            heading = translation.gettext("What this model leaves out")
            words = translation.gettext(lab.leaves_out)
        if language == "mr" and (words == lab.leaves_out or heading.startswith("What")):
            unsaid.append(f"{lab.slug}: no Marathi")
        elif heading not in html or escape(words) not in html:
            unsaid.append(lab.slug)
    assert unsaid == []
