"""The unit self-checks: answers computed by the labs' models, marked on the unit page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from labs.sim import (
    busy_backlog,
    drain,
    drain_summary,
    fanout_time_min,
    fixed,
    littles_law,
    play_breaker,
)
from lessons.marking import mark, read_number
from lessons.models import KEPT_ATTEMPTS, Attempt
from lessons.questions import SELF_CHECKS, questions_for
from tests.base import make_user

BURST = [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]


def answer_sheet(unit: str, *, wrong: set[str] = frozenset()) -> dict[str, str]:
    sheet = {}
    for q in questions_for(unit):
        if q.kind == "choice":
            other = next(value for value, _label in q.choices if value != q.answer)
            sheet[q.key] = other if q.key in wrong else q.answer
        else:
            sheet[q.key] = str(q.answer + 1 if q.key in wrong else q.answer)
    return sheet


@pytest.mark.parametrize("unit", SELF_CHECKS)
def test_it_asks_five_to_eight_questions_per_unit(unit):
    assert 5 <= len(questions_for(unit)) <= 8


def test_it_takes_the_numbers_from_the_models():
    by_key = {q.key: q for q in questions_for("lesson-07") + questions_for("lesson-12")}
    assert by_key["fanout-minutes"].answer == round(fanout_time_min(3_000_000, 40, 50), 1)
    assert by_key["rush-backlog"].answer == busy_backlog(4_000, 3_000, 30)
    peak = drain_summary(drain(BURST, 100, fixed(4)))["peak_backlog"]
    assert by_key["fixed-4-peak"].answer == peak
    lesson_13 = {q.key: q for q in questions_for("lesson-13")}
    assert lesson_13["breaker-reached"].answer == play_breaker(4, 10).failed


@pytest.mark.parametrize(
    ("raw", "number"),
    [("30,000", 30000), ("३०,०००", 30000), (" 16.7 ", 16.7), ("99.99%", 99.99), ("abc", None)],
)
def test_it_reads_numbers_as_students_write_them(raw, number):
    assert read_number(raw) == number


def test_it_marks_within_the_questions_tolerance_only():
    question = {q.key: q for q in questions_for("lesson-13")}["chain-of-four"]
    assert mark(question, "99.6").right
    assert mark(question, "99.60").right
    assert not mark(question, "99.7").right
    assert not mark(question, "").right


@pytest.mark.parametrize("unit", SELF_CHECKS)
def test_it_marks_a_perfect_sheet_right_and_explains(client, db, unit):
    url = reverse("unit-selfcheck", args=[unit])
    response = client.post(url, answer_sheet(unit), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    total = len(questions_for(unit))
    assert response.status_code == 200
    assert f"You got {total} of {total} questions right." in html
    assert html.count("✓") == total
    assert "<html" not in html  # htmx gets the panel alone


def test_it_marks_each_wrong_answer_and_keeps_a_students_score(client, db):
    student = make_user("asha")
    client.force_login(student)
    sheet = answer_sheet("lesson-07", wrong={"rush-backlog", "visibility-timeout"})
    html = client.post(reverse("unit-selfcheck", args=["lesson-07"]), sheet).content.decode()
    assert html.count("✗") == 2
    assert "<html" in html  # without JavaScript: the whole page
    attempt = Attempt.objects.get(student=student)
    total = len(questions_for("lesson-07"))
    assert (attempt.unit, attempt.right, attempt.total) == ("lesson-07", total - 2, total)


def test_it_does_not_keep_a_visitors_score(client, db):
    client.post(reverse("unit-selfcheck", args=["lesson-07"]), answer_sheet("lesson-07"))
    assert Attempt.objects.count() == 0


def test_it_puts_a_word_where_a_number_belongs_back_next_to_the_field(client, db):
    sheet = answer_sheet("lesson-07") | {"rush-clear": "ten"}
    response = client.post(reverse("unit-selfcheck", args=["lesson-07"]), sheet)
    assert response.status_code == 422
    assert 'id="id_rush-clear-error"' in response.content.decode()


def test_it_keeps_only_the_recent_attempts(client, db):
    client.force_login(make_user("ravi"))
    url = reverse("unit-selfcheck", args=["lesson-12"])
    for _ in range(KEPT_ATTEMPTS + 2):
        client.post(url, answer_sheet("lesson-12"))
    assert Attempt.objects.count() == KEPT_ATTEMPTS


def test_it_has_no_self_check_for_an_unknown_unit(client, db):
    assert client.post(reverse("unit-selfcheck", args=["lesson-99"]), {}).status_code == 404


def test_it_sends_a_plain_visit_to_the_unit_page(client, db):
    response = client.get(reverse("unit-selfcheck", args=["lesson-13"]))
    assert response["Location"] == reverse("unit-detail", args=["lesson-13"]) + "#self-check"


def test_it_shows_the_self_check_on_the_unit_page(client, db):
    html = client.get(reverse("unit-detail", args=["assignment-05"])).content.decode()
    assert 'id="self-check"' in html
    assert html.count('<li class="question') == len(questions_for("assignment-05"))


@pytest.mark.parametrize("unit", SELF_CHECKS)
def test_it_asks_and_explains_every_question_in_marathi(unit):
    from django.utils import translation

    for q in questions_for(unit):
        with translation.override("en"):
            english = (q.text(), q.explanation())
        with translation.override("mr"):
            marathi = (q.text(), q.explanation())
        for en, mr in zip(english, marathi, strict=True):
            assert en != mr and re.search("[\u0900-\u097f]", mr), en


def test_the_cascade_question_counts_the_retries_among_the_calls():
    question = {q.key: q for q in questions_for("lesson-13")}["cascade-threads"]
    assert question.answer == littles_law(50 * 3, 1) == 150
    assert mark(question, "150").right
    assert not mark(question, "50").right  # the retries forgotten
    assert not mark(question, "120").right  # the pool, not what the calls want
    assert not mark(question, "").right


def test_lesson_12_asks_for_a_dlqs_days_left_and_a_fifo_groups_wait_from_the_models():
    answers = {q.key: q.answer for q in questions_for("lesson-12")}
    assert (answers["dlq-days-left"], answers["fifo-group-held"]) == (3, 1.5)
    assert {q.key: q.answer for q in questions_for("lesson-07")}["provider-down"] == "answered"
