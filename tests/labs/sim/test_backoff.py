"""Lesson 13's backoff waits, and the jitter kinds a lab can compare, from `labs.sim.backoff`."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labs.sim import backoff_ms, backoff_schedule


def test_it_doubles_each_wait_until_the_cap_without_jitter():
    waits = [backoff_ms(attempt) for attempt in range(7)]
    assert waits == [100, 200, 400, 800, 1600, 3200, 3200]


def test_it_gives_lesson_07s_one_two_four_seconds_with_a_one_second_base():
    assert [backoff_ms(a, base_ms=1000, cap_ms=60_000) for a in range(3)] == [1000, 2000, 4000]


def test_it_stays_at_the_cap_for_an_absurd_attempt():
    assert backoff_ms(100_000, base_ms=0.5, cap_ms=3200.0) == 3200.0


def test_it_treats_none_and_the_word_none_alike():
    assert backoff_schedule(5) == backoff_schedule(5, jitter="none") == [100, 200, 400, 800, 1600]


@given(attempt=st.integers(0, 12), seed=st.integers(0, 2**32))
def test_it_draws_full_jitter_between_zero_and_the_ceiling(attempt, seed):
    ceiling = min(3200, 100 * 2**attempt)
    assert 0 <= backoff_ms(attempt, jitter="full", rng=random.Random(seed)) <= ceiling


@given(attempt=st.integers(0, 12), seed=st.integers(0, 2**32))
def test_it_draws_equal_jitter_in_the_upper_half(attempt, seed):
    ceiling = min(3200, 100 * 2**attempt)
    assert ceiling / 2 <= backoff_ms(attempt, jitter="equal", rng=random.Random(seed)) <= ceiling


@given(seed=st.integers(0, 2**32), attempts=st.integers(1, 15))
def test_it_grows_decorrelated_jitter_from_the_previous_wait(seed, attempts):
    waits = backoff_schedule(attempts, jitter="decorrelated", rng=random.Random(seed))
    previous = 100
    for wait in waits:
        assert 100 <= wait <= min(3200, 3 * previous)
        previous = wait


def test_it_averages_full_jitter_at_half_the_ceiling():
    rng = random.Random(7)
    draws = [backoff_ms(3, jitter="full", rng=rng) for _ in range(20_000)]
    assert sum(draws) / len(draws) == pytest.approx(400, rel=0.02)


def test_it_repeats_a_schedule_under_the_same_seed_and_not_under_another():
    def schedule(kind, seed):
        return backoff_schedule(6, jitter=kind, rng=random.Random(seed))

    for kind in ("full", "equal", "decorrelated"):
        assert schedule(kind, 1) == schedule(kind, 1)
        assert schedule(kind, 1) != schedule(kind, 2)


def test_it_feeds_decorrelated_jitter_the_wait_you_pass():
    low = backoff_ms(4, jitter="decorrelated", rng=random.Random(3), previous_ms=100)
    high = backoff_ms(4, jitter="decorrelated", rng=random.Random(3), previous_ms=1000)
    assert low <= 300 < high


def test_it_starts_decorrelated_jitter_from_the_base():
    first = backoff_ms(0, jitter="decorrelated", rng=random.Random(5))
    assert 100 <= first <= 300


def test_it_returns_no_waits_for_no_retries():
    assert backoff_schedule(0, jitter="full", rng=random.Random(0)) == []


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: backoff_ms(-1), "attempt must be >= 0"),
        (lambda: backoff_ms(0, base_ms=0), "base_ms must be > 0"),
        (lambda: backoff_ms(0, base_ms=100, cap_ms=50), r"cap_ms must be >= base_ms \(100\)"),
        (lambda: backoff_ms(0, jitter="half"), "jitter must be one of"),
        (lambda: backoff_ms(0, jitter="full"), "rng is required"),
        (
            lambda: backoff_ms(2, jitter="decorrelated", rng=random.Random(0)),
            "previous_ms is required",
        ),
        (
            lambda: backoff_ms(0, jitter="decorrelated", rng=random.Random(0), previous_ms=10),
            r"previous_ms must be >= base_ms \(100\)",
        ),
        (lambda: backoff_ms(0, previous_ms=100), "previous_ms is only used"),
        (lambda: backoff_schedule(-1), "attempts must be >= 0"),
        (lambda: backoff_schedule(3, jitter="equal"), "rng is required"),
    ],
)
def test_it_refuses_bad_arguments_with_the_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
