"""Lesson 13's timeout figures, reproduced by `labs.sim.timeouts`."""

from __future__ import annotations

import pytest

from labs.sim import call_with_timeout, littles_law


@pytest.mark.parametrize(
    ("latency_ms", "expected"),
    [
        (120, ("ok", 120)),
        (900, ("ok", 900)),
        (1500, ("timeout", 1000)),
        (30000, ("timeout", 1000)),
    ],
)
def test_it_answers_the_lessons_calls_against_a_one_second_timeout(latency_ms, expected):
    assert call_with_timeout(latency_ms, 1000) == expected


def test_it_holds_the_caller_no_longer_than_the_timeout():
    outcome, held_ms = call_with_timeout(10**9, 250)
    assert (outcome, held_ms) == ("timeout", 250)


def test_it_counts_an_answer_on_the_deadline_as_in_time():
    assert call_with_timeout(1000, 1000) == ("ok", 1000)
    assert call_with_timeout(1000.5, 1000) == ("timeout", 1000)


@pytest.mark.parametrize(
    ("wait_s", "stuck"),
    [(30, 60_000), (1, 2_000), (0.2, 400)],
)
def test_it_counts_the_lessons_stuck_requests_by_littles_law(wait_s, stuck):
    assert littles_law(2000, wait_s) == pytest.approx(stuck)


def test_it_holds_nobody_when_nothing_waits():
    assert littles_law(2000, 0) == 0
    assert littles_law(0, 30) == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: littles_law(-1, 1), "rate must be >= 0"),
        (lambda: littles_law(1, -1), "wait_s must be >= 0"),
        (lambda: call_with_timeout(-1, 1000), "latency_ms must be >= 0"),
        (lambda: call_with_timeout(100, 0), "timeout_ms must be > 0"),
    ],
)
def test_it_refuses_bad_arguments_with_the_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
