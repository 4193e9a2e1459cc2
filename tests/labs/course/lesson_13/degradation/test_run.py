"""Lesson 13's graceful degradation, as the `degradation` lab."""

from __future__ import annotations

from tests.lab_helpers import headline, refusal, run


def test_it_shows_the_five_minute_old_page_instead_of_errors():
    result = run("degradation")
    s = result["summary"]
    assert (s["full_share"], s["degraded_share"], s["error_share"]) == (0.5, 0.5, 0.0)
    assert (s["error_share_without_fallback"], s["errors_without_fallback"]) == (0.5, 3_000)
    assert (s["youngest_page_shown_s"], s["oldest_page_shown_s"]) == (300, 329)
    text = headline("degradation", result)
    assert (
        "With a fallback: 50% full pages, 50% older pages marked with their age, 0% errors" in text
    )
    assert "Without a fallback: 50% errors (3,000 error pages)" in text
    assert "5 min old at first" in text


def test_it_shows_both_ways_in_one_table():
    assert run("degradation")["tables"]["shares"]["rows"] == [
        ["with a fallback", "50%", "50%", "0%"],
        ["without a fallback", "50%", "0%", "50%"],
    ]


def test_it_matches_the_models_short_outage():
    s = run("degradation", duration_s=10, down_from_s=2, down_until_s=6)["summary"]
    assert (s["full_share"], s["degraded_share"], s["error_share"]) == (0.6, 0.4, 0.0)
    assert s["error_share_without_fallback"] == 0.4


def test_it_errors_once_the_page_passes_the_age_limit():
    result = run("degradation", limit_age=True, max_stale_s=309)
    s = result["summary"]
    assert s["oldest_page_shown_s"] == 309
    assert s["errors"] == 20 * 100  # seconds 20 to 39 would show a page older than 309 s
    assert "older than the limit" in headline("degradation", result)


def test_it_ignores_the_age_limit_unless_ticked():
    assert run("degradation", max_stale_s=0)["summary"]["errors"] == 0


def test_it_refuses_an_outage_that_ends_before_it_starts():
    assert "must end after it starts" in refusal("degradation", down_until_s=5)["down_until_s"][0]


def test_it_refuses_an_outage_after_the_watching_ends():
    errors = refusal("degradation", down_from_s=60, down_until_s=70)
    assert errors == {
        "down_from_s": ["The outage must start before the watching ends (second 60)."]
    }
