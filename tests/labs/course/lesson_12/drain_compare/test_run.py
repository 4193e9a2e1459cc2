"""Lesson 12's five scaling rules side by side, as the `drain-compare` lab."""

from __future__ import annotations

import re

from labs.web.presenters import shown_tables as shown
from tests.lab_helpers import headline, refusal, run

LESSON_TABLE = [
    # rule, peak backlog, most workers, left after 10 s
    ("fixed 3", 1500, 3, 150),
    ("fixed 8", 0, 8, 0),
    ("1 per 100 waiting, max 10", 800, 8, 0),
    ("1 per 100 waiting, max 20", 800, 8, 0),
    ("1 per 50 waiting, max 20", 700, 14, 0),
]


def test_it_compares_the_lessons_five_rules_by_default():
    s = run("drain-compare")["series"]
    table = list(
        zip(s["rule"], s["peak_backlog"], s["most_workers"], s["left_at_end"], strict=True)
    )
    assert table == LESSON_TABLE


def figures_after(label: str, line: str) -> list[int]:
    """The whole numbers a headline line gives after the rule's label, in order."""
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", line[len(label) :])]


def test_it_puts_every_rules_three_figures_in_the_headline():
    lines = headline("drain-compare", run("drain-compare")).splitlines()
    for rule, peak, most, left in LESSON_TABLE:
        (line,) = [line for line in lines if line.startswith(f"{rule}:")]
        # peak backlog, most workers, the 10 s horizon, then what was left
        assert figures_after(rule, line) == [peak, most, 10, left]


def test_it_shows_the_per_rule_table_on_the_page():
    [table] = shown(run("drain-compare"))  # as the page shows it
    assert table["columns"][:4] == ["rule", "peak backlog", "most workers", "left after 10 s"]
    assert [row[:4] for row in table["rows"]] == [
        [rule, f"{peak:,}", most, f"{left:,}"] for rule, peak, most, left in LESSON_TABLE
    ]


def test_it_plays_the_lessons_per_second_table_for_one_per_100():
    per_second = run("drain-compare")["tables"]["per_second"]
    rule = "1 per 100 waiting, max 10"
    assert per_second["backlog"][rule] == [0, 700, 800, 800, 200, 50, 0, 0, 0, 0]
    assert per_second["workers"][rule] == [1, 1, 7, 8, 8, 2, 1, 1, 1, 1]


def test_it_names_the_cheapest_rule_that_empties_the_queue():
    result = run("drain-compare")
    # Raising the ceiling to 20 changes nothing; fixed 8 empties it too but pays 80.
    assert result["summary"]["cheapest_emptying_rule"] == "1 per 100 waiting, max 10"
    assert result["summary"]["cheapest_worker_seconds"] == 31
    assert result["summary"]["rules_left_behind"] == 1


def test_it_says_when_no_rule_empties_the_queue():
    result = run("drain-compare", fixed_pools=[1], per_waiting=[100], max_workers=[2])
    assert result["summary"]["cheapest_emptying_rule"] is None
    assert "No rule emptied the queue" in headline("drain-compare", result)


def test_it_refuses_a_k_without_its_ceiling():
    assert refusal("drain-compare", max_workers=[10, 20]) == {
        "max_workers": ["Give one ceiling for each K: 3 K values but 2 ceilings."]
    }


def test_it_refuses_a_floor_above_a_ceiling():
    errors = refusal("drain-compare", min_workers=15)
    assert errors == {
        "min_workers": ["Fewest workers (15) must not be more than a rule's most workers (10)."]
    }
