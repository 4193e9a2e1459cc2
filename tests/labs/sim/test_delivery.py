"""At-least-once delivery and the idempotent consumer (Lessons 07, 13): `labs.sim.delivery`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labs.sim import consume, deliver_at_least_once, process

PAYMENTS = ["pay-1", "pay-2", "pay-3", "pay-4"]


def test_it_charges_the_lessons_seven_deliveries_of_four_payments():
    deliveries = deliver_at_least_once(PAYMENTS, ["pay-2", "pay-4", "pay-4"])
    assert len(deliveries) == 7
    assert process(deliveries, False) == 7
    assert process(deliveries, True) == 4


def test_it_charges_the_demos_four_deliveries_of_three_payments():
    deliveries = deliver_at_least_once(PAYMENTS[:3], ["pay-2"])
    assert (len(deliveries), process(deliveries, False), process(deliveries, True)) == (4, 4, 3)


def test_it_redelivers_a_message_right_after_its_first_delivery():
    assert deliver_at_least_once(PAYMENTS, ["pay-4", "pay-2", "pay-4"]) == [
        "pay-1",
        "pay-2",
        "pay-2",
        "pay-3",
        "pay-4",
        "pay-4",
        "pay-4",
    ]


def test_it_sends_lesson_07s_twice_delivered_sms_once():
    deliveries = deliver_at_least_once(["text-a", "text-b", "text-c"], ["text-b"])
    assert consume(deliveries, idempotent=True) == ["text-a", "text-b", "text-c"]
    assert consume(deliveries, idempotent=False) == deliveries


def test_it_delivers_each_message_once_without_repeats():
    assert deliver_at_least_once(PAYMENTS, []) == PAYMENTS


def test_it_skips_a_late_repeat_too():
    assert consume(["a", "b", "a", "c", "b"], idempotent=True) == ["a", "b", "c"]


@given(
    messages=st.lists(st.text(min_size=1, max_size=4), unique=True, max_size=8),
    data=st.data(),
)
def test_it_charges_once_per_payment_whatever_is_repeated(messages, data):
    repeats = data.draw(st.lists(st.sampled_from(messages), max_size=10)) if messages else []
    deliveries = deliver_at_least_once(messages, repeats)
    assert len(deliveries) == len(messages) + len(repeats)
    assert process(deliveries, False) == len(deliveries)
    assert process(deliveries, True) == len(messages)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: deliver_at_least_once(["a", "a"], []), "messages must be distinct"),
        (lambda: deliver_at_least_once(["a"], ["b"]), r"repeats must name messages.*'b'"),
    ],
)
def test_it_refuses_bad_arguments_with_the_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
