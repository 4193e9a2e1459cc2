"""Lesson 13's backoff schedule with and without jitter, as the `backoff` lab."""

from __future__ import annotations

import pytest

from tests.lab_helpers import headline, lab, refusal, run


def test_it_prints_the_lessons_schedule_without_jitter():
    result = run("backoff")
    assert result["series"]["none_ms"] == [100, 200, 400, 800, 1600, 3200, 3200]
    assert result["summary"]["none_total_ms"] == 9_500
    assert result["summary"]["capped_from_retry"] == 6
    assert "100, 200, 400, 800, 1,600, 3,200, 3,200 ms" in headline("backoff", result)


@pytest.mark.parametrize("seed", [1, 7, 123])
def test_it_keeps_every_jitter_kind_inside_its_bounds(seed):
    s = run("backoff", seed=seed)["series"]
    for plain, full, equal in zip(s["none_ms"], s["full_ms"], s["equal_ms"], strict=True):
        assert 0 <= full <= plain
        assert plain / 2 <= equal <= plain
    previous = 100
    for wait in s["decorrelated_ms"]:
        assert 100 <= wait <= min(3200, 3 * previous) + 0.05  # the series is rounded to 0.1
        previous = wait


def test_it_draws_the_jitter_from_the_seed():
    assert run("backoff", seed=5) == run("backoff", seed=5)
    assert (
        run("backoff", seed=5)["series"]["full_ms"] != run("backoff", seed=6)["series"]["full_ms"]
    )
    assert "seed 5" in headline("backoff", run("backoff", seed=5))


def test_it_shows_a_seed_field():
    assert lab("backoff").uses_seed


def test_it_says_when_the_waits_never_reach_the_cap():
    result = run("backoff", attempts=3)
    assert result["summary"]["capped_from_retry"] is None
    assert "never reach the cap" in headline("backoff", result)


def test_it_refuses_a_cap_below_the_first_wait():
    assert refusal("backoff", base_ms=500.0, cap_ms=400.0) == {
        "cap_ms": ["The longest wait must be at least the first wait (500 ms)."]
    }
