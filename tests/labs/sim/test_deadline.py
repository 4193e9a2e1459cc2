"""Lesson 13: timeouts inside one deadline; a callee that outlives its caller."""

from __future__ import annotations

import pytest

from labs.sim.deadline import call_within_deadline

LESSON = {
    "deadline_s": 5.0,
    "connect_s": 1.0,
    "read_s": 2.0,
    "attempts": 4,
    "base_s": 0.1,
    "cap_s": 3.2,
}


def test_the_last_try_gets_only_what_is_left_of_the_deadline():
    o = call_within_deadline(**LESSON, service_s=10, callee_timeout_s=30)
    assert [t.start_s for t in o.tries] == pytest.approx([0, 2.1, 4.3])
    assert [t.end_s for t in o.tries] == pytest.approx([2, 4.1, 5.0])
    assert o.caller_waited_s == pytest.approx(5.0)
    assert not o.answered


def test_a_callee_that_outlives_its_caller_works_for_nobody():
    o = call_within_deadline(**LESSON, service_s=10, callee_timeout_s=30)
    assert o.wasted_s == pytest.approx(8 + 8 + 9.3)
    shorter = call_within_deadline(**LESSON, service_s=10, callee_timeout_s=1.5)
    assert shorter.wasted_s == pytest.approx(0.8)  # only the cut last try


def test_a_quick_service_answers_the_first_try():
    o = call_within_deadline(**LESSON, service_s=0.5, callee_timeout_s=30)
    assert o.answered and len(o.tries) == 1 and o.wasted_s == 0


def test_an_unreachable_service_costs_connect_timeouts_only():
    o = call_within_deadline(**LESSON, service_s=10, callee_timeout_s=30, connect_fails=True)
    assert len(o.tries) == 4
    assert o.caller_waited_s == pytest.approx(4.7)
    assert o.wasted_s == 0


def test_it_refuses_a_zero_deadline():
    with pytest.raises(ValueError):
        call_within_deadline(**(LESSON | {"deadline_s": 0}), service_s=1, callee_timeout_s=1)
