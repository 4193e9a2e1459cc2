"""A guess given at a drag's ask comes before the draft's chart (issue 34): sent with that
draft under an id (`labs.web.predict.EARLY_FIELD`), it is kept with its time, and the run
that later carries it unchanged counts it as given before any result. A guess typed once a
draft's chart was shown still counts as after a result; a skip is kept as a skip."""

from __future__ import annotations

from django.urls import reverse

from labs.runs.early_guesses import EarlyGuess
from labs.runs.models import Run
from labs.runs.predictions import Prediction, seen_before
from tests.labs.web.test_views import GOOD, HX

ASK = "mj3k2x9p-4fz81q"  # as predict.js makes it: the moment, then a random part
DRAG = {**GOOD, "per_worker": "150"}  # where the student dragged the slider to
GUESS = {"predict-peak_backlog": "400"}


def _drag(client, data, capture) -> Run:
    """A draft posted as drafts.js posts it (the whole form), run, and its chart shown."""
    from labs.runs.tasks import execute_run

    with capture(execute=True):
        response = client.post(reverse("lab-draft", args=["drain"]), data, **HX)
    assert response.status_code == 200, response.content.decode()[:2000]
    draft = Run.objects.filter(draft=True).order_by("-created_at").first()
    assert draft is not None
    execute_run.run(str(draft.pk))
    draft.refresh_from_db()
    client.get(reverse("run-detail", args=[draft.pk]), **HX)  # the body lands: shown
    assert seen_before(draft)
    return draft


def _press_run(client, data, capture) -> Run:
    with capture(execute=True):
        response = client.post(reverse("lab-detail", args=["drain"]), data, **HX)
    assert response.status_code == 200, response.content.decode()[:2000]
    run = Run.objects.filter(draft=False).order_by("-created_at").first()
    assert run is not None
    return run


def _guess(run: Run) -> Prediction:
    return Prediction.objects.get(run=run, figure="peak_backlog")


def test_a_guess_given_at_the_drag_ask_counts_as_made_before_the_drafts_result(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    capture = django_capture_on_commit_callbacks
    # Asked at the first drag, the student guesses; the held draft goes with the guess.
    _drag(client, {**DRAG, **GUESS, "prediction_early": ASK}, capture)
    # The slider moves on (each draft carries the form: the same guess, the same id)...
    _drag(client, {**DRAG, **GUESS, "per_waiting": "50", "prediction_early": ASK}, capture)
    # ...and Run, on values whose chart was shown, sends the guess it was given at the ask.
    made = _press_run(client, {**DRAG, **GUESS, "prediction_early": ASK}, capture)
    assert made.params["per_worker"] == 150
    guess = _guess(made)
    assert guess.value == 400 and not guess.after_result
    assert not made.prediction_skipped

    # Its panel came back with the prompt cleared: a guess for the next Run is a new one.
    # Given after the charts, with no new id (predict.js makes none), it counts as after.
    again = _press_run(client, {**DRAG, "per_waiting": "50", **GUESS}, capture)
    assert _guess(again).after_result


def test_a_guess_typed_after_a_drafts_chart_still_counts_as_after_a_result(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    capture = django_capture_on_commit_callbacks
    # Skipped at the ask: the draft's chart is shown, then a guess is typed and run.
    _drag(client, {**DRAG, "prediction_skipped": "1"}, capture)
    typed = _press_run(client, {**DRAG, **GUESS, "prediction_skipped": "1"}, capture)
    assert _guess(typed).after_result


def test_a_guess_changed_after_the_chart_or_sent_under_another_id_counts_as_after(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    capture = django_capture_on_commit_callbacks
    shown = _drag(client, {**DRAG, **GUESS, "prediction_early": ASK}, capture)
    peak = shown.result["summary"]["peak_backlog"]
    # Changed to the figure the chart showed, under the ask's id: it no longer matches.
    changed = {"predict-peak_backlog": str(peak), "prediction_early": ASK}
    assert _guess(_press_run(client, {**DRAG, **changed}, capture)).after_result
    # An id sent first after the chart (by hand: predict.js gives none then) counts from
    # its arrival, after the chart; and it replaces the ask's, which counts no more.
    late_id = {"predict-peak_backlog": str(peak), "prediction_early": "mj3k2xz0-later1"}
    _drag(client, {**DRAG, **late_id}, capture)
    assert EarlyGuess.objects.get().ask == "mj3k2xz0-later1"
    assert _guess(_press_run(client, {**DRAG, **late_id}, capture)).after_result
    old = _press_run(client, {**DRAG, **GUESS, "prediction_early": ASK}, capture)
    assert _guess(old).after_result


def test_a_skip_at_the_drag_ask_is_kept_as_a_skip_with_nothing_early(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    capture = django_capture_on_commit_callbacks
    _drag(client, {**DRAG, "prediction_skipped": "1"}, capture)
    run = _press_run(client, {**DRAG, "prediction_skipped": "1"}, capture)
    assert run.prediction_skipped
    assert not Prediction.objects.exists() and not EarlyGuess.objects.exists()


def test_an_early_guess_is_kept_once_per_ask_and_one_per_student_and_lab(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    capture = django_capture_on_commit_callbacks
    _drag(client, {**DRAG, **GUESS, "prediction_early": ASK}, capture)
    first = EarlyGuess.objects.get()
    assert first.guesses == {"peak_backlog": 400} and first.lab == "drain"
    # A later draft under the same id, its guess changed: the ask's guess and time stay.
    _drag(client, {**DRAG, "predict-peak_backlog": "900", "prediction_early": ASK}, capture)
    kept = EarlyGuess.objects.get()
    assert (kept.guesses, kept.given_at) == (first.guesses, first.given_at)
    # An id predict.js never makes is no early guess; nor is one with no guess.
    EarlyGuess.objects.all().delete()
    _drag(client, {**DRAG, **GUESS, "prediction_early": "<script>"}, capture)
    _drag(client, {**DRAG, "prediction_early": ASK}, capture)
    assert not EarlyGuess.objects.exists()
