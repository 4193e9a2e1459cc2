"""Lesson 13's circuit-breaker table, reproduced by `labs.sim.breaker`."""

from __future__ import annotations

import pytest

from labs.sim import CircuitBreaker, play_breaker

LESSON_TABLE = [
    # threshold, open_s, reached the sick service, failed fast, first ok at
    (5, 10, 7, 27, 34),
    (3, 10, 5, 27, 32),
    (5, 2, 17, 13, 30),
    (10, 30, 10, 29, 39),
]


@pytest.mark.parametrize(("threshold", "open_s", "failed", "fast_fail", "first_ok"), LESSON_TABLE)
def test_it_reproduces_the_lessons_table_call_by_call(
    threshold, open_s, failed, fast_fail, first_ok
):
    breaker = CircuitBreaker(threshold, open_s)
    outcomes = [breaker.call(t, dependency_ok=t >= 30) for t in range(40)]
    assert outcomes.count("failed") == failed
    assert outcomes.count("fast-fail") == fast_fail
    assert outcomes.index("ok") == first_ok


@pytest.mark.parametrize(("threshold", "open_s", "failed", "fast_fail", "first_ok"), LESSON_TABLE)
def test_it_plays_the_lessons_outage(threshold, open_s, failed, fast_fail, first_ok):
    run = play_breaker(threshold, open_s, down_from_s=0, down_until_s=30, duration_s=40)
    assert (run.failed, run.fast_fail, run.first_ok_s) == (failed, fast_fail, first_ok)
    assert run.ok == 40 - failed - fast_fail


def test_it_is_closed_at_40_s_and_failed_fast_23_times_during_the_outage():
    run = play_breaker()
    assert run.final_state == "closed"
    # Of the 30 calls made while the service is down, 7 get through and 23 are refused.
    assert run.fast_fail_while_down == 23
    assert run.failed + run.fast_fail_while_down == 30


def test_it_logs_each_call_with_the_state_it_left():
    calls = play_breaker(5, 10).calls
    assert [(c.t, c.outcome, c.state) for c in calls[:6]] == [
        (0, "failed", "closed"),
        (1, "failed", "closed"),
        (2, "failed", "closed"),
        (3, "failed", "closed"),
        (4, "failed", "open"),
        (5, "fast-fail", "open"),
    ]
    assert [(c.t, c.outcome, c.state) for c in calls if c.trial] == [
        (14, "failed", "open"),
        (24, "failed", "open"),
        (34, "ok", "closed"),
    ]


def test_it_turns_half_open_once_the_open_time_is_over():
    breaker = CircuitBreaker(threshold=1, open_s=5)
    breaker.call(0, False)
    assert breaker.state == "open"
    assert breaker.state_at(4.9) == "open"
    assert breaker.state_at(5) == "half-open"
    assert breaker.state == "open"  # looking ahead changes nothing
    assert breaker.call(5, True) == "ok"
    assert breaker.state == breaker.state_at(5) == "closed"


def test_it_counts_failures_in_a_row_not_in_total():
    breaker = CircuitBreaker(threshold=3, open_s=10)
    for t, ok in enumerate([False, False, True, False, False, True, False, False]):
        breaker.call(t, ok)
    assert (breaker.state, breaker.failures_in_a_row) == ("closed", 2)
    breaker.call(8, False)
    assert (breaker.state, breaker.failures_in_a_row) == ("open", 0)


def test_it_reopens_after_one_failed_trial():
    breaker = CircuitBreaker(threshold=5, open_s=10)
    for t in range(5):
        breaker.call(t, False)
    assert breaker.call(14, False) == "failed"
    assert breaker.state == "open"
    assert breaker.call(23.9, True) == "fast-fail"
    assert breaker.call(24, True) == "ok"


def test_it_never_opens_for_a_healthy_dependency():
    run = play_breaker(down_from_s=0, down_until_s=0, duration_s=20)
    assert (run.ok, run.failed, run.fast_fail, run.first_ok_s) == (20, 0, 0, 0)


def test_it_reports_no_first_ok_when_the_dependency_never_recovers():
    run = play_breaker(down_until_s=100, duration_s=40)
    assert run.first_ok_s is None
    assert run.final_state == "open"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: CircuitBreaker(threshold=0), "threshold must be >= 1"),
        (lambda: CircuitBreaker(open_s=0), "open_s must be > 0"),
        (lambda: play_breaker(duration_s=-1), "duration_s must be >= 0"),
        (lambda: play_breaker(down_from_s=10, down_until_s=5), r"down_until_s must be >= "),
    ],
)
def test_it_refuses_bad_arguments_with_the_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_it_refuses_a_call_back_in_time():
    breaker = CircuitBreaker()
    breaker.call(5, True)
    with pytest.raises(ValueError, match=r"t must be >= the previous call's t \(5\)"):
        breaker.call(4, True)
