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


def test_it_refuses_a_repeat_of_an_sms_that_was_never_sent():
    assert "There is no SMS 4" in refusal("at-least-once", repeats=[4])["repeats"][0]
