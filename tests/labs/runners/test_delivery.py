"""At-least-once delivery: Lesson 07's SMS and Lesson 13's fees, one runner with two stories."""

from __future__ import annotations

from tests.lab_helpers import headline, refusal, run


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


def test_it_refuses_a_repeat_of_a_payment_that_was_never_sent():
    assert refusal("idempotent-charges", repeats=[2, 9, 12]) == {
        "repeats": ["There is no payment 9 and 12: the payments are numbered 1 to 4."]
    }


def test_it_refuses_a_repeat_of_an_sms_that_was_never_sent():
    assert "There is no SMS 4" in refusal("at-least-once", repeats=[4])["repeats"][0]
