"""Grading criteria: parsed against the lab's figures, refused with a reason, then applied."""

from __future__ import annotations

import pytest

from labs.catalogue.entries import get_lab
from labs.interface.figures import Figure
from teaching.criteria import (
    CriteriaError,
    Criterion,
    criteria_text,
    evaluate,
    parse_criteria,
)

# The capstone's figures, as the issue writes its examples.
CAPSTONE = (
    Figure("recovered", "Recovered", "bool"),
    Figure("obligations_lost", "Obligations lost", "int"),
    Figure("recovery_s", "Recovery time", "float", "s", nullable=True),
    Figure("peak_backlog", "Peak backlog", "int"),
    Figure("verdict", "Verdict", "str"),
)


def messages(text: str, figures=CAPSTONE) -> list[str]:
    with pytest.raises(CriteriaError) as caught:
        parse_criteria(text, figures)
    return caught.value.messages


def test_it_parses_the_issues_examples():
    text = "recovered == true\nobligations_lost = 0\nrecovery_s ≤ 60\npeak_backlog < 1,000\n"
    assert parse_criteria(text, CAPSTONE) == [
        Criterion("recovered", "==", True),
        Criterion("obligations_lost", "==", 0),
        Criterion("recovery_s", "<=", 60),
        Criterion("peak_backlog", "<", 1000),
    ]


def test_it_skips_blank_lines_and_notes_and_keeps_numbers_exact():
    text = (
        "\n# the queue must stay short\n  peak_backlog >= -5  \nrecovery_s != 2.5\nverdict == 'ok'"
    )
    assert parse_criteria(text, CAPSTONE) == [
        Criterion("peak_backlog", ">=", -5),
        Criterion("recovery_s", "!=", 2.5),
        Criterion("verdict", "==", "ok"),
    ]
    assert parse_criteria("  \n# nothing\n", CAPSTONE) == []


def test_it_writes_criteria_back_as_the_teacher_would_type_them():
    text = "recovered == true\npeak_backlog < 1000\nrecovery_s <= 60"
    assert criteria_text(parse_criteria(text, CAPSTONE)) == text


def test_it_names_an_unknown_figure_and_suggests_the_close_one():
    (message,) = messages("peak_backlg < 1000")
    assert message.startswith("Line 1 ('peak_backlg < 1000'): this lab has no figure called")
    assert "Did you mean peak_backlog?" in message
    assert "Its figures are: recovered, obligations_lost" in message


@pytest.mark.parametrize("op", ["=>", "<>", "===", "~", "=<", "!"])
def test_it_refuses_a_nonsense_operator(op):
    (message,) = messages(f"peak_backlog {op} 1000")
    assert f"{op!r} is not an operator: use one of == != < <= > >=." in message


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("peak_backlog", "write a check as: figure, operator, value"),
        ("peak_backlog is 3", "write a check as"),
        ("peak_backlog <", "no value after <"),
        ("peak_backlog < lots", "'lots' is not a number; peak_backlog is a number."),
        ("recovery_s <= 60 s", "'60 s' is not a number; recovery_s is a number (s)."),
        ("peak_backlog < 1e999", "is too large"),
        ("recovered < true", "recovered is yes or no: compare it with == or !=, not <."),
        ("recovered == maybe", "write true or false, not 'maybe'"),
        ("verdict > 'ok'", "verdict is a word: compare it with == or !=, not >."),
    ],
)
def test_it_explains_each_kind_of_mistake(line, reason):
    (message,) = messages(line)
    assert reason in message


def test_it_reports_every_bad_line_with_its_number():
    found = messages("recovered == true\nnope > 1\npeak_backlog => 3")
    assert [m.split(" ", 2)[:2] for m in found] == [["Line", "2"], ["Line", "3"]]


def test_it_refuses_criteria_for_a_lab_that_lists_no_figures():
    assert "does not list its summary figures" in messages("x == 1", figures=())[0]


def test_it_caps_the_number_of_checks():
    assert "At most 20 checks" in messages("peak_backlog < 1\n" * 21)[0]


def test_it_accepts_every_figure_the_drain_lab_declares():
    drain = get_lab("drain")
    text = "\n".join(f"{f.name} >= 0" for f in drain.figures)
    assert len(parse_criteria(text, drain.figures)) == len(drain.figures)


def test_it_passes_and_fails_checks_with_the_figure_behind_each():
    criteria = parse_criteria(
        "recovered == true\nobligations_lost == 0\nrecovery_s <= 60\npeak_backlog < 1000",
        CAPSTONE,
    )
    summary = {"recovered": True, "obligations_lost": 2, "recovery_s": 60.0, "peak_backlog": 1000}
    checks = evaluate(criteria, summary)
    assert [(c.criterion.figure, c.passed, c.actual) for c in checks] == [
        ("recovered", True, True),
        ("obligations_lost", False, 2),
        ("recovery_s", True, 60.0),
        ("peak_backlog", False, 1000),
    ]
    assert [c.shown_actual for c in checks] == ["true", "2", "60", "1000"]


@pytest.mark.parametrize(
    ("criterion", "summary"),
    [
        (Criterion("recovery_s", "<=", 60), {}),  # the run did not report it
        (Criterion("recovery_s", "<=", 60), {"recovery_s": None}),  # never recovered
        (Criterion("recovered", "==", True), {"recovered": 1}),  # 1 is not yes
        (Criterion("obligations_lost", "==", 0), {"obligations_lost": False}),
        (Criterion("peak_backlog", "<", 10), {"peak_backlog": "5"}),
    ],
)
def test_it_fails_a_check_whose_figure_is_missing_or_of_another_kind(criterion, summary):
    check = criterion.check(summary)
    assert not check.passed


def test_it_round_trips_a_criterion_through_json():
    criterion = Criterion("recovered", "!=", False)
    assert Criterion.from_json(criterion.to_json()) == criterion
