"""Lesson 12's printed figures, reproduced by `labs.sim.drain`."""

from __future__ import annotations

import math

import pytest

from labs.sim import drain, drain_summary, fixed, per_backlog

LESSON_ARRIVALS = [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]


def lesson_rule(b: int) -> int:
    return min(10, max(1, -(-b // 100)))


@pytest.mark.parametrize(
    ("rule", "peak", "most", "left"),
    [
        (fixed(3), 1500, 3, 150),
        (fixed(8), 0, 8, 0),
        (per_backlog(100, 1, 10), 800, 8, 0),
        (per_backlog(100, 1, 20), 800, 8, 0),
        (per_backlog(50, 1, 20), 700, 14, 0),
    ],
    ids=["fixed 3", "fixed 8", "1/100 max 10", "1/100 max 20", "1/50 max 20"],
)
def test_it_prints_the_lessons_summary_lines(rule, peak, most, left):
    summary = drain_summary(drain(LESSON_ARRIVALS, 100, rule))
    assert summary == {"peak_backlog": peak, "most_workers": most, "left_at_end": left}


def test_it_prints_the_lessons_per_second_table():
    assert drain(LESSON_ARRIVALS, 100, lesson_rule) == [
        (0, 50, 1, 50, 0),
        (1, 800, 1, 100, 700),
        (2, 800, 7, 700, 800),
        (3, 800, 8, 800, 800),
        (4, 200, 8, 800, 200),
        (5, 50, 2, 200, 50),
        (6, 50, 1, 100, 0),
        (7, 50, 1, 50, 0),
        (8, 50, 1, 50, 0),
        (9, 50, 1, 50, 0),
    ]


def test_it_accepts_any_plain_function_as_the_rule():
    def one_per_fifty_up_to_twenty(waiting: int) -> int:
        return min(20, max(1, math.ceil(waiting / 50)))

    rows = drain(LESSON_ARRIVALS, 100, one_per_fifty_up_to_twenty)
    assert max(r[2] for r in rows) == 14


def test_it_sizes_workers_from_the_backlog_before_this_seconds_arrivals():
    seen: list[int] = []
    drain([300, 0], 100, lambda b: seen.append(b) or 1)
    assert seen == [0, 200]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: drain([1], -1, fixed(1)), "per_worker"),
        (lambda: drain([-5], 1, fixed(1)), "arrivals"),
        (lambda: drain([1], 1, lambda b: -1), "workers_for"),
        (lambda: per_backlog(0, 1, 2), "per_waiting"),
        (lambda: per_backlog(10, 3, 2), "low <= high"),
    ],
)
def test_it_refuses_bad_arguments_with_the_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
