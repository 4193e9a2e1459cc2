"""Lesson 13's availability in parallel and in series, as the `availability` lab."""

from __future__ import annotations

import pytest

from labs.runners.availability import pct
from tests.lab_helpers import headline, refusal, run


@pytest.mark.parametrize(
    "line",
    [
        "One copy at 99.0% → 2 copies 99.9900% · 3 copies 99.999900%.",
        "One copy at 99.5% → 2 copies 99.9975% · 3 copies 99.999988%.",
        "Each link at 99.9%: a chain of 3 → 99.70% · a chain of 6 → 99.40%.",
        "The chain of 6 with 3 copies of each link → 99.999999%.",
        "Your chain 99.9% × 99.9% × 99.95% = 99.75%: lower than its weakest link.",
    ],
)
def test_it_says_every_figure_the_lesson_prints(line):
    assert line in headline("availability", run("availability")).split("\n")


def test_it_puts_the_figures_in_the_summary_as_numbers():
    s = run("availability")["summary"]
    assert s["most_copies_pct"] == 99.9999
    assert round(s["longest_chain_pct"], 2) == 99.40
    assert round(s["chain_of_copies_pct"], 6) == 99.999999
    assert round(s["my_chain_pct"], 2) == 99.75
    assert s["my_chain_below_weakest_link"] is True
    assert s["most_copies_down_h_per_year"] == pytest.approx(0.00876)


def test_it_tables_copies_with_their_downtime():
    table = run("availability")["tables"]["parallel"]
    assert table["columns"] == ["one copy", "1 copy", "2 copies", "3 copies"]
    assert table["rows"][0] == [
        "99.0%",
        "99.00% (down 87.6 h/yr)",
        "99.9900% (down 53 min/yr)",
        "99.999900% (down 31.5 s/yr)",
    ]


def test_it_never_rounds_a_service_that_is_sometimes_down_up_to_100_percent():
    assert pct(0.999999997, 3) == "99.9999997%"
    assert pct(1.0, 3) == "100.000000%"
    assert pct(0.9975, 1) == "99.75%"


def test_it_refuses_an_availability_given_twice():
    assert refusal("availability", one_copy_pct=[99.0, 99.0]) == {
        "one_copy_pct": ["Give each availability only once."]
    }


def test_it_refuses_more_than_100_percent():
    assert "out of range" in refusal("availability", my_chain_pct=[99.9, 100.5])["my_chain_pct"][0]
