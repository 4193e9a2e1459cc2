"""Graceful degradation (Lesson 13): full, stale but marked, or error: `labs.sim.degradation`."""

from __future__ import annotations

import pytest

from labs.sim import play_degradation, serve_with_fallback


def test_it_answers_in_full_while_the_dependency_is_healthy():
    assert serve_with_fallback(True, 300) == ("full", 0)
    assert serve_with_fallback(True, None) == ("full", 0)


def test_it_shows_the_cached_page_with_its_age_while_the_dependency_is_down():
    assert serve_with_fallback(False, 300) == ("degraded", 300)


def test_it_errors_without_a_fallback_or_with_a_page_too_old():
    assert serve_with_fallback(False, None) == ("error", None)
    assert serve_with_fallback(False, 301, max_stale_s=300) == ("error", None)
    assert serve_with_fallback(False, 300, max_stale_s=300) == ("degraded", 300)


def test_it_shows_the_lessons_five_minute_old_page_through_an_outage():
    run = play_degradation(duration_s=10, rate_per_s=100, down_from_s=2, down_until_s=6)
    assert [(s.second, s.full, s.degraded, s.error, s.page_age_s) for s in run.seconds] == [
        (0, 100, 0, 0, 0),
        (1, 100, 0, 0, 0),
        (2, 0, 100, 0, 300),
        (3, 0, 100, 0, 301),
        (4, 0, 100, 0, 302),
        (5, 0, 100, 0, 303),
        (6, 100, 0, 0, 0),
        (7, 100, 0, 0, 0),
        (8, 100, 0, 0, 0),
        (9, 100, 0, 0, 0),
    ]
    assert (run.full_share, run.degraded_share, run.error_share) == (0.6, 0.4, 0.0)


def test_it_turns_the_outage_into_errors_without_a_fallback():
    run = play_degradation(10, 100, 2, 6, fallback=False)
    assert (run.full_share, run.degraded_share, run.error_share) == (0.6, 0.0, 0.4)
    assert [s.error for s in run.seconds[2:6]] == [100] * 4


def test_it_errors_once_the_cached_page_passes_the_age_limit():
    run = play_degradation(10, 50, 2, 8, cache_age_s=0, max_stale_s=2)
    assert [s.page_age_s for s in run.seconds[2:8]] == [0, 1, 2, None, None, None]
    assert (run.degraded_share, run.error_share) == (0.3, 0.3)


def test_it_has_no_shares_without_requests():
    run = play_degradation(0, 100, 0, 0)
    assert (run.seconds, run.full_share, run.error_share) == ([], 0.0, 0.0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: serve_with_fallback(False, -1), "cache_age_s must be >= 0"),
        (lambda: serve_with_fallback(False, 1, max_stale_s=-1), "max_stale_s must be >= 0"),
        (lambda: play_degradation(-1, 1, 0, 0), "duration_s must be >= 0"),
        (lambda: play_degradation(5, -1, 0, 0), "rate_per_s must be >= 0"),
        (lambda: play_degradation(5, 1, 3, 2), r"down_until_s must be >= down_from_s \(3\)"),
        (lambda: play_degradation(5, 1, 0, 2, cache_age_s=-5), "cache_age_s must be >= 0"),
    ],
)
def test_it_refuses_bad_arguments_with_the_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
