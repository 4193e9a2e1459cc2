"""Predict, run, explain: prompts in the catalogue, a guess kept with its run and shown
against the outcome, explained from the run's own figures, and assignments that ask for one."""

from __future__ import annotations

import statistics
from datetime import timedelta

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from labs.catalogue.entries import LABS, prompts_for
from labs.catalogue.prediction import judge
from labs.runs.models import Run
from labs.runs.predictions import Prediction
from labs.text import num
from teaching.models import Submission
from tests.base import DUE, finished_run, make_user
from tests.lab_helpers import lab, run
from tests.labs.web.test_views import GOOD, HX

BEFORE = DUE - timedelta(days=1)


def _stand_in(kind: str):
    return {"int": 3, "float": 0.5, "bool": True, "str": "x"}[kind]


# The catalogue ------------------------------------------------------------------------


@pytest.mark.parametrize("entry", LABS, ids=lambda entry: entry.slug)
def test_every_lab_has_a_prompt_on_a_figure_it_reports(entry):
    prompts = prompts_for(entry.slug)
    assert 1 <= len(prompts) <= 2, f"{entry.slug} asks {len(prompts)} questions"
    summary = {f.name: _stand_in(f.kind) for f in entry.figures}
    for prompt in prompts:
        figure = entry.figure(prompt.figure)
        assert figure is not None, f"{entry.slug}: no figure {prompt.figure}"
        if prompt.choices:
            kinds = {"bool": bool, "str": str}
            assert figure.kind in kinds
            assert all(isinstance(c.value, kinds[figure.kind]) for c in prompt.choices)
        else:
            assert figure.kind in ("int", "float") and prompt.low < prompt.high
            assert not prompt.percent or figure.kind == "float"
        # Every %(name)s of the explanation is a figure, a param or worked out by `extra`.
        known = set(summary) | {p.name for p in entry.params}
        if prompt.extra is not None:
            known |= set(prompt.extra(summary, entry.defaults()))
        assert prompt.names_used() <= known, prompt.names_used() - known
        assert prompt.names_used(), f"{entry.slug}: its explanation names no figure"


def test_the_prompts_name_only_labs_that_exist():
    assert all(entry.prompts for entry in LABS)


# Judging a guess against a run --------------------------------------------------------


def test_the_explanation_is_built_from_this_runs_figures():
    # 2,800 a second against 2,500 for 40 s: 300 more a second, a peak of 12,000.
    params = lab("busy-minute").defaults() | {"arrive_per_s": 2800, "busy_s": 40}
    result = run("busy-minute", arrive_per_s=2800, busy_s=40)
    summary = result["summary"]
    assert summary["peak_backlog"] == 12000
    (prompt,) = prompts_for("busy-minute")
    verdict = judge(prompt, 30000, summary, params)
    assert not verdict.right
    assert verdict.compared == "You expected 30,000; it was 12,000, 18,000 below your guess."
    assert "For 40 s, 2,800 jobs arrived each second" in verdict.because
    assert "300 more a second" in verdict.because and "12,000 were waiting" in verdict.because
    # The same prompt on another run explains that run, not the lesson's.
    other = run("busy-minute")["summary"]
    assert (
        "30,000 were waiting" in judge(prompt, 30000, other, lab("busy-minute").defaults()).because
    )
    assert judge(prompt, 30000, other, lab("busy-minute").defaults()).right


def test_a_choice_is_right_only_when_it_matches_and_a_number_within_its_tolerance():
    (recovered, peak) = prompts_for("trapped-service")
    trapped = {
        "recovered": False,
        "capacity_rps": 100.0,
        "amplification": 2.6,
        "wasted_share": 0.8,
        "final_backlog": 2000,
    }
    assert not judge(recovered, True, trapped, {}).right
    assert judge(recovered, False, trapped, {}).right
    assert judge(recovered, False, trapped, {}).compared == (
        "You expected “No, it stays trapped”, and so it was."
    )
    summary = {"peak_backlog": 1000}
    assert judge(peak, 1090, summary, {}).right and not judge(peak, 1150, summary, {}).right


def test_a_share_is_asked_and_shown_as_a_percentage():
    (prompt,) = prompts_for("degradation")
    summary = run("degradation")["summary"]
    verdict = judge(prompt, 50, summary, lab("degradation").defaults())
    assert verdict.actual == round(100 * summary["error_share"], 2)
    assert "the cached page answered 50% of requests" in verdict.because


def test_the_verdict_is_said_in_marathi():
    (prompt,) = prompts_for("drain-math")
    summary = run("drain-math")["summary"]
    with translation.override("mr"):
        verdict = judge(prompt, 60, summary, lab("drain-math").defaults())
    assert "You expected" not in verdict.compared and "60" in verdict.compared
    assert "The workers serve" not in verdict.because and "20" in verdict.because


# The lab page: a guess sent with Run is kept with that run and shown against it -------


def _post_and_run(client, data, django_capture_on_commit_callbacks):
    from labs.runs.tasks import execute_run

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("lab-detail", args=["drain"]), data, **HX)
    assert response.status_code == 200, response.content.decode()[:2000]
    made = Run.objects.get()
    execute_run.run(str(made.pk))
    return made


def test_a_prediction_is_kept_with_the_run_and_shown_against_the_outcome(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    page = client.get(reverse("lab-detail", args=["drain"])).content.decode()
    assert 'name="predict-peak_backlog"' in page and "Predict first" in page

    made = _post_and_run(
        client, {**GOOD, "predict-peak_backlog": "300"}, django_capture_on_commit_callbacks
    )
    assert list(Prediction.objects.values_list("run", "figure", "value")) == [
        (made.pk, "peak_backlog", 300)
    ]
    html = client.get(made.get_absolute_url()).content.decode()
    assert "Your prediction against the run" in html
    assert "You expected 300; it was 800, 500 above your guess." in html
    assert "up to 800 in one second; with at most 8 workers doing 100 a second each" in html


def test_a_run_without_a_prediction_shows_none_and_a_bad_one_makes_no_run(
    client, people, published, django_capture_on_commit_callbacks
):
    client.force_login(people.alice)
    bad = client.post(
        reverse("lab-detail", args=["drain"]), {**GOOD, "predict-peak_backlog": "lots"}, **HX
    )
    assert bad.status_code == 422
    assert "must be a number from 0 to 3,000" in bad.content.decode()
    assert not Run.objects.exists()

    made = _post_and_run(client, GOOD, django_capture_on_commit_callbacks)
    assert not Prediction.objects.exists()
    assert (
        "Your prediction against the run"
        not in client.get(made.get_absolute_url()).content.decode()
    )


def test_the_page_shows_the_prediction_in_marathi(client, people):
    made = finished_run(people.alice, lab="drain-math")
    Prediction.objects.create(run=made, figure="drain_s", value=60)
    client.force_login(people.alice)
    with override_settings(LANGUAGE_CODE="mr"):
        html = client.get(made.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="mr").content.decode()
    assert "Your prediction against the run" not in html
    with translation.override("mr"):
        verdict = judge(prompts_for("drain-math")[0], 60, made.result["summary"], made.params)
    assert verdict.compared in html.replace("&ldquo;", "“").replace("&rdquo;", "”")


# Assignments that ask for a prediction -------------------------------------------------


def test_an_assignment_that_asks_for_a_prediction_refuses_a_run_without_one(client, school, frozen):
    frozen(BEFORE)
    assignment = school.assignment_a
    assignment.require_prediction = True
    assignment.save()
    without, predicted = finished_run(school.alice), finished_run(school.alice, per_waiting=50)
    Prediction.objects.create(run=predicted, figure="peak_backlog", value=500)
    client.force_login(school.alice)
    submit = reverse("assignment-submit", args=[assignment.pk])

    refused = client.post(submit, {"run": without.pk})
    assert refused.status_code == 422
    assert "It has no prediction" in refused.content.decode()
    assert not Submission.objects.exists()

    assert client.post(submit, {"run": predicted.pk}).status_code == 302
    assert Submission.objects.get().run == predicted

    assignment.require_prediction = False
    assignment.save()
    assert client.post(submit, {"run": without.pk}).status_code == 302


def test_the_assignment_page_asks_for_a_prediction_when_it_is_required(client, school, frozen):
    frozen(BEFORE)
    school.assignment_a.require_prediction = True
    school.assignment_a.save()
    client.force_login(school.alice)
    html = client.get(school.assignment_a.get_absolute_url()).content.decode()
    assert "This assignment asks for a prediction" in html
    assert 'name="predict-peak_backlog"' in html


# The class results page: predictions against outcomes, the commonest wrong expectation ---


def test_the_class_results_page_shows_predictions_against_the_runs(client, school):
    from teaching.models import Membership

    assignment = school.assignment_a
    # Drain runs with 3, 4 and 10 workers at most: peaks worked out by the model, not typed.
    guesses = {"alice": (10, 300), "ravi": (4, 400), "mina": (3, 2000), "omar": (10, None)}
    peaks = {}
    for name, (most, guess) in guesses.items():
        student = school.alice if name == "alice" else make_user(name)
        if name != "alice":
            Membership.objects.create(classroom=school.class_a, student=student)
        made = finished_run(student, **assignment.presets, max_workers=most)
        peaks[name] = made.result["summary"]["peak_backlog"]
        Submission.objects.create(
            assignment=assignment, student=student, run=made, submitted_at=DUE
        )
        if guess is not None:
            Prediction.objects.create(run=made, figure="peak_backlog", value=guess)
    # Two guessed far too low, one (mina) too high: the class's commonest mistake is too low.
    assert peaks["alice"] > 330 and peaks["ravi"] > 440 and peaks["mina"] < 1800, peaks
    client.force_login(school.teacher)
    html = client.get(reverse("assignment-results", args=[assignment.pk])).content.decode()
    assert "Predictions against the runs" in html
    assert "3 of 4 hand-ins carry a prediction; 0 were right." in html
    median_guess = num(statistics.median([300, 400]))
    median_peak = num(statistics.median([peaks["alice"], peaks["ravi"]]))
    assert (
        "The most common wrong expectation was too low (2 of 3 predictions): a median guess "
        f"of {median_guess} where those runs gave a median of {median_peak}."
    ) in html


def test_the_commonest_wrong_choice_is_named():
    from teaching.class_results.predictions import most_common_wrong

    (recovered, _peak) = prompts_for("trapped-service")
    pairs = [(True, False, False), (True, False, False), (False, True, False), (False, False, True)]
    assert most_common_wrong(recovered, pairs) == (
        "The most common wrong expectation: “Yes, it recovers” (2 of 4 predictions), "
        "where the runs gave “No, it stays trapped”."
    )
    assert most_common_wrong(recovered, [(False, False, True)]) == ""


# The demo ------------------------------------------------------------------------------


def test_the_demo_has_predictions_some_right_some_wrong_and_the_teacher_sees_them(
    client, db, settings
):
    import io

    from django.core.management import call_command

    from labs.runs.predictions import verdicts
    from teaching.models import Assignment

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", stdout=io.StringIO(), stderr=io.StringIO())
    made = Prediction.objects.count()
    call_command("seed_demo", stdout=io.StringIO(), stderr=io.StringIO())
    assert Prediction.objects.count() == made  # safe to run again

    assignment = Assignment.objects.get()
    handed_in = Run.objects.filter(submissions__assignment=assignment, predictions__isnull=False)
    judged = [v.right for run in handed_in.distinct() for v in verdicts(run)]
    assert judged.count(True) >= 5 and judged.count(False) >= 5, judged
    asha_drain = Run.objects.get(owner__username="asha", lab="drain")
    assert [v.right for v in verdicts(asha_drain)] == [False]

    client.force_login(assignment.classroom.teacher)
    html = client.get(reverse("assignment-results", args=[assignment.pk])).content.decode()
    assert "Predictions against the runs" in html and "The most common wrong expectation" in html


def test_a_before_after_pair_keeps_the_guess_with_its_after_run(client, people, published):
    from tests.labs.capstone.test_views import form_data

    client.force_login(people.alice)
    bad = client.post(reverse("report-pair"), {**form_data(), "predict-recovered": "maybe"}, **HX)
    assert bad.status_code == 422 and not Run.objects.exists()
    assert "is not one of its answers" in bad.content.decode()

    client.post(reverse("report-pair"), {**form_data(), "predict-recovered": "yes"}, **HX)
    before, after = Run.objects.order_by("created_at")
    assert not before.predictions.exists()
    assert list(after.predictions.values_list("figure", "value")) == [("recovered", True)]


def test_a_drafts_body_asks_for_no_predictions(people, django_assert_num_queries):
    """Guesses go with the run pressed, never a draft: its body does not look for any."""
    from labs.runs.predictions import verdicts

    draft = finished_run(people.alice)
    Run.objects.filter(pk=draft.pk).update(draft=True)
    draft.refresh_from_db()
    with django_assert_num_queries(0):
        assert verdicts(draft) == []
