"""At-least-once delivery: Lesson 07's SMS and Lesson 13's fees, one runner with two stories."""

from __future__ import annotations

from tests.lab_helpers import headline, lab, run


def test_it_sends_lesson_07s_twice_delivered_sms_once():
    result = run("at-least-once")
    s = result["summary"]
    assert (s["messages"], s["deliveries"], s["plain_sent"], s["idempotent_sent"]) == (3, 4, 4, 3)
    assert result["series"]["message"] == ["sms-1", "sms-2", "sms-2", "sms-3"]
    text = headline("at-least-once", result)
    assert "4 deliveries of 3 SMS" in text
    assert "4 SMS sent, 1 too many" in text
    assert "3 SMS sent, one for each SMS" in text


def test_it_charges_lesson_13s_seven_deliveries_of_four_payments():
    result = run("idempotent-charges")
    s = result["summary"]
    assert (s["deliveries"], s["plain_charges"], s["idempotent_charges"]) == (7, 7, 4)
    assert (s["duplicates_plain"], s["duplicates_idempotent"]) == (3, 0)
    text = headline("idempotent-charges", result)
    assert "7 deliveries of 4 payments" in text
    assert "7 fees charged, 3 too many" in text
    assert "4 fees charged, one for each payment" in text


def test_it_shows_what_each_consumer_did_with_each_payment():
    table = run("idempotent-charges")["tables"]["per_message"]
    assert table["columns"] == ["payment", "delivered", "plain consumer", "idempotent consumer"]
    assert table["rows"] == [
        ["pay-1", 1, 1, 1],
        ["pay-2", 2, 2, 1],
        ["pay-3", 1, 1, 1],
        ["pay-4", 3, 3, 1],
    ]


def test_it_counts_the_idempotent_consumers_work_delivery_by_delivery():
    series = run("idempotent-charges")["series"]
    assert series["idempotent_acted"] == [1, 1, 0, 1, 1, 0, 0]
    assert series["idempotent_total"] == [1, 2, 2, 3, 4, 4, 4]
    assert series["plain_total"] == [1, 2, 3, 4, 5, 6, 7]


def test_it_takes_the_students_own_repeats():
    s = run("idempotent-charges", messages=10, repeats=[1, 1, 1, 10])["summary"]
    assert (s["deliveries"], s["plain_charges"], s["idempotent_charges"]) == (14, 14, 10)


def test_a_repeat_past_the_last_payment_is_left_out_and_said_not_refused():
    # The lesson's list (2, 4, 4) with one payment fewer: the first step of its slider.
    result = run("idempotent-charges", messages=3)
    s = result["summary"]
    assert (s["messages"], s["deliveries"], s["plain_charges"], s["idempotent_charges"]) == (
        3,
        4,
        4,
        3,
    )
    assert result["params"]["repeats"] == [2, 4, 4]  # kept as the student typed it
    lines = lab("idempotent-charges").headline(result)
    assert lines[0] == (
        "Payment 4 is not put on the queue: this run stops at payment 3, so its entries "
        "under 'Delivered again' are left out."
    )
    assert "4 deliveries of 3 payments" in lines[1]


def test_several_numbers_past_the_last_are_named_together():
    text = headline("idempotent-charges", run("idempotent-charges", repeats=[2, 9, 12, 9]))
    assert "Payments 9 and 12 are not put on the queue: this run stops at payment 4" in text
    assert "5 deliveries of 4 payments" in text


def test_a_run_that_names_only_its_own_payments_says_nothing_left_out():
    assert "left out" not in headline("idempotent-charges", run("idempotent-charges"))


def test_an_sms_past_the_last_is_left_out_with_the_sms_words():
    result = run("at-least-once", repeats=[4])
    assert result["summary"]["deliveries"] == 3
    assert headline("at-least-once", result).startswith(
        "SMS 4 is not put on the queue: this run stops at SMS 3, so its entries under "
        "'Delivered again' are left out."
    )
