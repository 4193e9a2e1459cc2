"""Lesson 07's fan-out times and busy-minute backlog, reproduced by `labs.sim.fanout`."""

from __future__ import annotations

import math

import pytest

from labs.sim import busy_backlog, clear_time_s, fanout_time_min, fanout_time_s, rush

FIVE_MILLION = 5_000_000


@pytest.mark.parametrize(
    ("workers", "rate", "minutes"),
    [
        (10, 50, "166.7"),
        (50, 50, "33.3"),
        (200, 50, "8.3"),
        (50, 25, "66.7"),
        (100, 50, "16.7"),
        (50, 5, "333.3"),
    ],
)
def test_it_times_the_lessons_five_million_sms(workers, rate, minutes):
    assert f"{fanout_time_min(FIVE_MILLION, workers, rate):.1f}" == minutes


def test_it_turns_a_slow_provider_into_about_five_and_a_half_hours():
    hours = fanout_time_min(FIVE_MILLION, 50, 5) / 60
    # The lesson says "5.5 hours" for 5.56 h, rounding down; 33 minutes becomes that.
    assert 5.5 <= hours < 5.6
    assert round(fanout_time_min(FIVE_MILLION, 50, 50)) == 33


def test_it_doubles_with_half_the_rate_and_halves_with_twice_the_workers():
    base = fanout_time_s(FIVE_MILLION, 50, 50)
    assert base == 2000
    assert fanout_time_s(FIVE_MILLION, 50, 25) == 2 * base
    assert fanout_time_s(FIVE_MILLION, 100, 50) == base / 2


def test_it_leaves_the_lessons_busy_minute_backlog_and_clears_it_in_12_s():
    backlog = busy_backlog(3000, 2500, 60)
    assert f"{backlog:,}" == "30,000"
    assert clear_time_s(backlog, 2500) == 12


def test_it_plays_the_busy_minute_second_by_second():
    rows = rush(3000, 2500, busy_s=60, after_s=20)
    assert len(rows) == 80
    assert rows[0] == (0, 3000, 1, 2500, 500)
    assert max(r.backlog for r in rows) == rows[59].backlog == 30_000
    emptied = next(r.second for r in rows if r.second >= 60 and r.backlog == 0)
    assert emptied - 59 == 12  # 12 seconds after the last busy second


def test_it_leaves_no_backlog_when_the_workers_keep_up():
    assert busy_backlog(2000, 2500, 60) == 0
    assert max(r.backlog for r in rush(2000, 2500)) == 0


def test_it_clears_slower_while_jobs_still_arrive():
    assert clear_time_s(30_000, 2500, arrive_per_s=1000) == 20


def test_it_never_clears_when_arrivals_match_the_workers():
    assert clear_time_s(30_000, 2500, arrive_per_s=2500) == math.inf
    assert clear_time_s(0, 2500, arrive_per_s=3000) == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: fanout_time_s(-1, 1, 1), "jobs must be >= 0"),
        (lambda: fanout_time_s(10, 0, 1), "workers must be >= 1"),
        (lambda: fanout_time_min(10, 1, 0), "rate_per_worker_per_s must be > 0"),
        (lambda: busy_backlog(-1, 1, 1), "arrive_per_s must be >= 0"),
        (lambda: busy_backlog(1, -1, 1), "capacity_per_s must be >= 0"),
        (lambda: busy_backlog(1, 1, -1), "busy_s must be >= 0"),
        (lambda: clear_time_s(-1, 1), "backlog must be >= 0"),
        (lambda: clear_time_s(1, -1), "capacity_per_s must be >= 0"),
        (lambda: clear_time_s(1, 1, -1), "arrive_per_s must be >= 0"),
        (lambda: rush(1, 1, busy_s=-1), "busy_s must be >= 0"),
        (lambda: rush(1, 1, arrive_after_per_s=-1), "arrive_after_per_s must be >= 0"),
    ],
)
def test_it_refuses_bad_arguments_with_the_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
