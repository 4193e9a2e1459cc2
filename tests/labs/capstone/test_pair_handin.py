"""A before/after pair handed in with the student's analysis, graded and given feedback."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta

import pytest
from django.urls import reverse

from labs.capstone.analysis import Analysis
from labs.sim.capstone.trapped import RECOMMENDED_CONTROLS
from teaching.criteria import CriteriaError, evaluate, pair_summary, parse_criteria
from teaching.models import Assignment, Submission, SubmissionVersion
from teaching.rubric import parse_rubric
from tests.base import DUE, finished_run

SHORT = {"horizon_s": 120, "recover_at_s": 100}
CRITERIA = [
    {"figure": "before.recovered", "op": "==", "value": False},
    {"figure": "after.obligations_lost", "op": "==", "value": 0},
]
RUBRIC = [{"item": "Names the loop", "max": 5}, {"item": "Own recovery steps", "max": 10}]
ANSWERS = {
    "trigger": "A spike of callers at second 60.",
    "loop": "Timed-out callers retry, so the queue never empties.",
    "steps": "1. Shed load at the door\n2. Drop expired work\n3) Cap the retries",
    "drain_miss": "Retries kept arriving, so net capacity was smaller than assumed.",
    "followup_cold_cache": "Slow first answers stretch the drain.",
    "followup_job_cost": "Big jobs hold a worker much longer.",
}


def url(name, *args):
    return reverse(name, args=args)


@pytest.fixture
def pair(school, frozen):
    frozen(DUE - timedelta(days=1))
    lab = get_lab_figures()
    before = finished_run(school.alice, lab="trapped-service", seed=5, **SHORT)
    after = finished_run(
        school.alice, lab="trapped-service", seed=5, **SHORT, **RECOMMENDED_CONTROLS
    )
    assignment = Assignment.objects.create(
        classroom=school.class_a,
        title="Free the trapped service",
        lab="trapped-service",
        handin="pair",
        criteria=CRITERIA,
        rubric=RUBRIC,
        due_at=DUE,
    )
    assert lab  # the capstone declares its figures
    return before, after, assignment


def get_lab_figures():
    from labs.catalogue.entries import get_lab

    return get_lab("trapped-service").figures


def test_criteria_name_a_run_of_the_pair():
    figures = get_lab_figures()
    text = "before.recovered == false\nafter.obligations_lost == 0\nafter.recovered_at_s < 200"
    criteria = parse_criteria(text, figures, pair=True)
    assert [c.figure for c in criteria] == [
        "before.recovered",
        "after.obligations_lost",
        "after.recovered_at_s",
    ]
    summary = pair_summary({"recovered": False}, {"obligations_lost": 0, "recovered_at_s": 150.0})
    assert [c.passed for c in evaluate(criteria, summary)] == [True, True, True]
    summary = pair_summary({"recovered": True}, {"obligations_lost": 3, "recovered_at_s": None})
    assert [c.passed for c in evaluate(criteria, summary)] == [False, False, False]


@pytest.mark.parametrize(
    ("text", "pair", "says"),
    [
        ("recovered == false", True, "before.recovered or after.recovered"),
        ("during.recovered == false", True, "'during' is not a run of the pair"),
        ("before.recoverd == false", True, "Did you mean recovered?"),
        ("before.recovered < 3", True, "compare it with == or !="),
        ("before.recovered == false", False, "without 'before.'"),
    ],
)
def test_pair_criteria_are_checked_against_the_declared_figures(text, pair, says):
    with pytest.raises(CriteriaError) as caught:
        parse_criteria(text, get_lab_figures(), pair=pair)
    assert says in caught.value.messages[0]


def test_a_rubric_is_items_with_points():
    assert parse_rubric("Names the loop: 5\n\nOwn steps: 10") == [
        {"item": "Names the loop", "max": 5},
        {"item": "Own steps", "max": 10},
    ]
    with pytest.raises(CriteriaError) as caught:
        parse_rubric("Names the loop\nToo many: 500\nToo many: 5\nToo many: 5")
    assert len(caught.value.messages) == 3  # line 4 repeats line 3
    assert "Line 1" in caught.value.messages[0] and "between 1 and 100" in caught.value.messages[1]
    assert "Line 4" in caught.value.messages[2]


def test_the_teacher_sets_a_pair_assignment_with_a_rubric(client, school):
    client.force_login(school.teacher)
    data = {
        "title": "Pair",
        "instructions": "",
        "handin": "pair",
        "due_at": "2031-03-14T10:00",
        "criteria_text": "before.recovered == false\nafter.obligations_lost == 0",
        "rubric_text": "Names the loop: 5",
    }
    response = client.post(url("assignment-new", school.class_a.pk) + "?lab=trapped-service", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    made = Assignment.objects.get(title="Pair")
    assert made.is_pair and made.rubric == [{"item": "Names the loop", "max": 5}]
    assert [c["figure"] for c in made.criteria] == ["before.recovered", "after.obligations_lost"]
    # The drain lab has no before/after report, so it cannot ask for a pair.
    data["title"] = "No pair"
    response = client.post(url("assignment-new", school.class_a.pk) + "?lab=drain", data)
    assert response.status_code == 422
    assert not Assignment.objects.filter(title="No pair").exists()


def test_the_analysis_saves_as_a_draft_and_is_exported(client, school, pair):
    before, after, _assignment = pair
    client.force_login(school.alice)
    page = client.get(url("report", before.pk, after.pk)).content.decode()
    assert 'name="trigger"' in page and "Nothing saved yet." in page
    saved = client.post(
        url("report-analysis", before.pk, after.pk),
        {"trigger": "first words"},
        HTTP_HX_REQUEST="true",
    )
    assert saved.status_code == 200 and "Draft saved at" in saved.content.decode()
    assert 'name="trigger"' not in saved.content.decode()  # only the status line is swapped
    assert Analysis.objects.get(before=before, after=after).trigger == "first words"
    response = client.post(url("report-analysis", before.pk, after.pk), ANSWERS)
    assert response.status_code == 302
    analysis = Analysis.objects.get(before=before, after=after)
    assert analysis.step_list == ["Shed load at the door", "Drop expired work", "Cap the retries"]
    markdown = client.get(url("report-markdown", before.pk, after.pk)).content.decode()
    assert "1. Shed load at the door\n2. Drop expired work\n3. Cap the retries" in markdown
    assert ANSWERS["loop"] in markdown
    data = json.loads(client.get(url("report-json", before.pk, after.pk)).content)
    assert data["analysis"]["steps"][2] == "Cap the retries"
    assert data["analysis"]["followup_job_cost"] == ANSWERS["followup_job_cost"]
    too_long = client.post(url("report-analysis", before.pk, after.pk), {"loop": "x" * 4001})
    assert too_long.status_code == 422
    assert Analysis.objects.get(pk=analysis.pk).loop == ANSWERS["loop"]
    # Raw HTML a student typed is shown in the Markdown, never passed to its renderer.
    html = {"trigger": "<script>alert(1)</script> & co", "steps": "<img src=x onerror=alert(2)>"}
    client.post(url("report-analysis", before.pk, after.pk), html)
    markdown = client.get(url("report-markdown", before.pk, after.pk)).text
    assert "<script" not in markdown and "<img" not in markdown
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in markdown
    assert "1. &lt;img src=x onerror=alert(2)&gt;" in markdown


def hand_in(client, school, before, after, assignment):
    client.force_login(school.alice)
    return client.post(
        url("assignment-submit", assignment.pk), {"before": before.pk, "run": after.pk}
    )


def test_a_pair_needs_its_analysis_and_one_seed(client, school, pair):
    before, after, assignment = pair
    response = hand_in(client, school, before, after, assignment)
    assert response.status_code == 422 and "analysis" in response.content.decode()
    Analysis.objects.create(owner=school.alice, before=before, after=after, **ANSWERS)
    other_seed = finished_run(school.alice, lab="trapped-service", seed=6, **SHORT)
    response = hand_in(client, school, other_seed, after, assignment)
    assert response.status_code == 422 and "different seeds" in response.content.decode()
    response = hand_in(client, school, after, after, assignment)
    assert response.status_code == 422 and "two different runs" in response.content.decode()
    assert not Submission.objects.exists()


def test_teacher_grades_the_pair_and_the_student_reads_it(client, school, pair):
    before, after, assignment = pair
    Analysis.objects.create(owner=school.alice, before=before, after=after, **ANSWERS)
    assert hand_in(client, school, before, after, assignment).status_code == 302
    submission = Submission.objects.get()
    assert submission.before_run == before and submission.run == after

    client.force_login(school.teacher)
    book = client.get(url("gradebook", school.class_a.pk)).content.decode()
    assert url("report", before.pk, after.pk) in book and "no feedback yet" in book
    report = client.get(url("report", before.pk, after.pk))
    assert report.status_code == 200
    text = report.content.decode()
    assert ANSWERS["loop"] in text and 'name="trigger"' not in text  # read, not edited
    assert client.post(url("report-analysis", before.pk, after.pk), ANSWERS).status_code == 403

    page = client.get(url("submission-detail", submission.pk)).content.decode()
    summaries = pair_summary(before.result["summary"], after.result["summary"])
    assert ANSWERS["drain_miss"] in page
    assert f"{summaries['before.recovered']}".lower() in page  # the figure behind the check
    refused = client.post(url("submission-feedback", submission.pk), {"score_0": "6"})
    assert refused.status_code == 422 and "Ensure this value is less than or equal to 5" in (
        refused.content.decode()
    )
    empty = client.post(url("submission-feedback", submission.pk), {"feedback": " "})
    assert empty.status_code == 422
    given = client.post(
        url("submission-feedback", submission.pk),
        {"feedback": "Clear loop; say which figure proves step 2.", "score_0": "4", "score_1": "7"},
    )
    assert given.status_code == 302
    submission.refresh_from_db()
    assert submission.scores == {"Names the loop": 4, "Own recovery steps": 7}
    assert submission.score == 11

    rows = list(
        csv.reader(
            io.StringIO(client.get(url("gradebook-csv", school.class_a.pk)).content.decode())
        )
    )
    header, alice = rows[0], next(r for r in rows if r[0] == "alice")
    at = header.index(f"{assignment.title}: score")
    assert alice[at : at + 3] == ["11", "15", "feedback given"]
    passed = header.index(f"{assignment.title}: criteria passed")
    checks = evaluate(assignment.checks(), summaries)
    assert alice[passed] == str(sum(c.passed for c in checks))

    client.force_login(school.alice)
    mine = client.get(url("submission-detail", submission.pk)).content.decode()
    assert "Clear loop; say which figure proves step 2." in mine and "11/15" in mine
    assert 'name="feedback"' not in mine
    detail = client.get(url("assignment-detail", assignment.pk)).content.decode()
    assert "Your teacher has written feedback." in detail


def test_a_handed_in_pair_is_frozen_and_a_new_version_keeps_the_old(client, school, pair):
    before, after, assignment = pair
    Analysis.objects.create(owner=school.alice, before=before, after=after, **ANSWERS)
    hand_in(client, school, before, after, assignment)
    frozen = client.post(url("report-analysis", before.pk, after.pk), {"trigger": "changed"})
    assert frozen.status_code == 409
    assert Analysis.objects.get(before=before).trigger == ANSWERS["trigger"]
    # The autosave's answer (htmx) says why, never that the draft was saved.
    autosaved = client.post(
        url("report-analysis", before.pk, after.pk), {"trigger": "changed"}, HTTP_HX_REQUEST="true"
    )
    assert autosaved.status_code == 409
    assert "Draft saved" not in autosaved.text
    assert "This pair is handed in" in autosaved.text
    for run in (before, after):
        renamed = client.post(url("run-label", run.pk), {"name": "new", "note": ""})
        assert renamed.status_code == 409
        run.refresh_from_db()
        assert run.name == ""

    submission = Submission.objects.get()
    submission.feedback, submission.scores = "First try", {"Names the loop": 2}
    submission.feedback_at = submission.submitted_at
    submission.save()
    before2 = finished_run(school.alice, lab="trapped-service", seed=7, **SHORT)
    after2 = finished_run(
        school.alice, lab="trapped-service", seed=7, **SHORT, **RECOMMENDED_CONTROLS
    )
    Analysis.objects.create(owner=school.alice, before=before2, after=after2, trigger="again")
    assert hand_in(client, school, before2, after2, assignment).status_code == 302
    submission.refresh_from_db()
    assert (submission.version, submission.before_run, submission.feedback) == (2, before2, "")
    old = SubmissionVersion.objects.get()
    assert (old.version, old.before_run, old.run, old.feedback) == (1, before, after, "First try")

    client.force_login(school.teacher)
    page = client.get(url("submission-detail", submission.pk)).content.decode()
    assert url("report", before.pk, after.pk) in page  # the earlier version stays open
    assert client.get(url("report", before.pk, after.pk)).status_code == 200
    client.force_login(school.other_teacher)
    assert client.get(url("report", before.pk, after.pk)).status_code == 404
