"""Lesson 07's fan-out calculator and busy minute, as the `fanout` and `busy-minute` labs."""

from __future__ import annotations

import pytest

from tests.lab_helpers import headline, refusal, run

LESSON_ROWS = [
    # workers, SMS a second each, minutes for 5 million, as the lesson prints them
    (10, 50, "166.7"),
    (50, 50, "33.3"),
    (200, 50, "8.3"),
    (50, 25, "66.7"),
    (100, 50, "16.7"),
    (50, 5, "333.3"),
]


def rows(result):
    s = result["series"]
    return {
        (w, r): f"{m:.1f}"
        for w, r, m in zip(
            s["workers"], s["rate_per_s"], [t / 60 for t in s["time_s"]], strict=True
        )
    }


@pytest.mark.parametrize(("workers", "rate", "minutes"), LESSON_ROWS)
def test_it_times_every_row_the_lesson_prints_with_the_defaults(workers, rate, minutes):
    result = run("fanout")
    assert rows(result)[(workers, rate)] == minutes
    assert f"{workers} workers {minutes} min" in headline("fanout", result)


def test_it_compares_every_worker_count_with_every_rate():
    result = run("fanout")
    assert result["summary"]["combinations"] == 4 * 3
    assert result["summary"]["fastest_min"] == 8.3
    assert (result["summary"]["fastest_workers"], result["summary"]["fastest_rate_per_s"]) == (
        200,
        50,
    )


def test_it_turns_thirty_three_minutes_into_five_and_a_half_hours_with_a_slow_provider():
    result = run("fanout", workers=[50], rates=[50.0, 5.0])
    assert result["summary"]["slowest_min"] == 333.3
    assert "5 h 33 min" in headline("fanout", result)


def test_it_works_out_the_workers_a_deadline_needs():
    result = run("fanout")
    # 5,000,000 SMS in 60 min at 50 a second each: 27.8 workers, so 28.
    assert result["summary"]["workers_for_deadline"] == 28
    assert result["tables"]["deadline"]["rows"] == [["50", "28"], ["25", "56"], ["5", "278"]]
    assert "you need 28 workers" in headline("fanout", result)


def test_it_needs_exactly_the_quotient_when_it_divides():
    # 5 workers at 50 a second need exactly 20,000 s for 5 million, but in floats
    # 5,000,000 / (50 × 333.33… × 60) is 5.000000000000001: that must not become 6.
    result = run("fanout", rates=[50.0], deadline_min=20_000 / 60)
    assert result["summary"]["workers_for_deadline"] == 5


def test_it_refuses_a_worker_count_given_twice():
    assert refusal("fanout", workers=[10, 50, 10]) == {
        "workers": ["Give each worker count only once."]
    }


def test_it_refuses_zero_workers_with_the_bounds():
    errors = refusal("fanout", workers=[0, 50])
    assert "out of range" in errors["workers"][0]


def test_it_leaves_the_lessons_busy_minute_backlog_and_clears_it_in_12_s():
    result = run("busy-minute")
    s = result["summary"]
    assert (s["backlog_after_spell"], s["backlog_by_formula"], s["peak_backlog"]) == (
        30_000,
        30_000,
        30_000,
    )
    assert s["clear_after_spell_s"] == 12
    assert s["cleared_at_s"] == 59 + 12
    text = headline("busy-minute", result)
    assert "30,000 jobs are waiting" in text
    assert "clear it in 12 s" in text


def test_it_says_the_backlog_never_clears_when_arrivals_match_the_workers():
    result = run("busy-minute", arrive_after_per_s=2_500)
    assert result["summary"]["clear_after_spell_s"] is None  # not infinity: JSON has no inf
    assert result["summary"]["cleared_at_s"] is None
    assert "never clears" in headline("busy-minute", result)


def test_it_says_so_when_the_workers_keep_up():
    result = run("busy-minute", arrive_per_s=2_000)
    assert result["summary"]["peak_backlog"] == 0
    assert "no backlog builds" in headline("busy-minute", result)


def test_it_says_when_the_watch_ends_before_the_queue_is_empty():
    result = run("busy-minute", after_s=5)
    assert result["summary"]["left_at_end"] == 30_000 - 5 * 2_500
    assert "still waiting at the end" in headline("busy-minute", result)


def test_it_refuses_a_busy_spell_of_no_seconds():
    assert "busy_s" in refusal("busy-minute", busy_s=0)
