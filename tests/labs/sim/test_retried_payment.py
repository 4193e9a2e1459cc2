"""A payment retried after a timeout: charged again without a key, answered once with one."""

from __future__ import annotations

import pytest

from labs.sim import deliver_at_least_once, process
from labs.sim.retried_payment import play_payments


def test_the_lessons_payments_make_seven_calls_and_seven_charges_without_a_key():
    played = play_payments()  # 4 payments; pay-2's answer late once, pay-4's twice
    # The same count as Lesson 13's at-least-once queue, 7 deliveries of 4 payments.
    ids = [f"pay-{n}" for n in range(1, 5)]
    lesson = deliver_at_least_once(ids, [f"pay-{n}" for n in (2, 4, 4)])
    assert len(played.calls) == len(lesson) == 7
    assert played.charges_without_key == process(lesson, idempotent=False) == 7
    assert played.charges_with_key == process(lesson, idempotent=True) == 4


def test_each_call_without_a_key_is_a_new_charge_and_with_a_key_the_first_one_again():
    calls = [c for c in play_payments().calls if c.payment == 4]
    assert [c.late for c in calls] == [True, True, False]
    assert [c.charge_without_key for c in calls] == ["ch-4-1", "ch-4-2", "ch-4-3"]
    assert [c.charge_with_key for c in calls] == ["ch-4-1"] * 3
    assert [c.charged_with_key for c in calls] == [True, False, False]


def test_the_parent_waits_a_timeout_and_a_pause_for_each_late_answer():
    by_number = {p.number: p for p in play_payments().payments}
    assert by_number[1].waited_ms == 200
    assert by_number[4].waited_ms == 2 * (1_000 + 200) + 200
    assert all(p.told_ok for p in by_number.values())


def test_a_client_out_of_retries_is_told_failed_though_the_money_has_gone():
    played = play_payments(late=[3, 3, 3], retries=1)
    third = played.payments[2]
    assert (third.calls, third.told_ok, third.waited_ms) == (2, False, 1_000 + 200 + 1_000)
    assert (third.charges_without_key, third.charges_with_key) == (2, 1)
    assert played.answered_from_key == 0


def test_retries_answered_in_time_by_the_key_are_counted():
    assert play_payments().answered_from_key == 2  # pay-2's second call, pay-4's third


@pytest.mark.parametrize(
    ("changes", "name"),
    [
        ({"payments": 0}, "payments"),
        ({"retries": 11}, "retries"),
        ({"late": [5]}, "late"),
        ({"provider_ms": 1_000}, "provider_ms"),
        ({"timeout_ms": 50}, "timeout_ms"),
    ],
)
def test_it_refuses_settings_out_of_bounds_naming_them(changes, name):
    with pytest.raises(ValueError, match=name):
        play_payments(**changes)
