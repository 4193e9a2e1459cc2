"""Lesson 13's timeouts and Little's law, as the `timeouts` lab."""

from __future__ import annotations

from labs.web.presenters import shown_tables as shown
from tests.lab_helpers import headline, lab, refusal, run


def test_it_counts_the_lessons_stuck_requests_for_each_wait():
    result = run("timeouts")
    assert result["series"] == {"wait_s": [30.0, 1.0, 0.2], "stuck_requests": [60_000, 2_000, 400]}
    assert (result["summary"]["most_stuck"], result["summary"]["fewest_stuck"]) == (60_000, 400)
    text = headline("timeouts", result)
    for wait, stuck in (("30", "60,000"), ("1", "2,000"), ("0.2", "400")):
        assert f"each waiting up to {wait} s: {stuck} requests stuck at once" in text


def test_it_plays_the_lessons_four_calls_against_a_one_second_timeout():
    result = run("timeouts")
    assert result["tables"]["held"] == {
        "latency_ms": [120, 900, 1500, 30000],
        "outcome": ["ok", "ok", "timeout", "timeout"],
        "held_ms": [120, 900, 1000, 1000],
    }
    assert shown(result)[0]["rows"][3] == ["30,000 ms", "timed out", "1,000 ms"]
    s = result["summary"]
    assert (s["calls_ok"], s["calls_timed_out"], s["longest_hold_ms"]) == (2, 2, 1000)
    text = headline("timeouts", result)
    assert "120 ms → ok · 900 ms → ok · 1,500 ms → timeout · 30,000 ms → timeout" in text


def test_it_ties_the_timeout_to_the_stuck_count():
    assert run("timeouts")["summary"]["stuck_at_timeout"] == 2_000
    assert run("timeouts", timeout_ms=200.0)["summary"]["stuck_at_timeout"] == 400


def test_it_counts_an_answer_on_the_deadline_as_in_time():
    held = run("timeouts", latencies_ms=[1000.0])["tables"]["held"]
    assert held["outcome"] == ["ok"]


def test_it_refuses_a_wait_given_twice():
    assert refusal("timeouts", waits_s=[1.0, 1.0]) == {"waits_s": ["Give each wait only once."]}


def test_it_refuses_a_zero_timeout():
    assert "timeout_ms" in refusal("timeouts", timeout_ms=0)


def test_each_callers_bar_says_its_outcome_in_words_not_only_in_colour():
    _, held = lab("timeouts").charts(run("timeouts"))
    caller = next(t for t in held["data"] if t["name"] == "caller held")
    assert caller["text"] == ["ok", "ok", "timed out", "timed out"]
