"""Lesson 13's retry storm without and with jitter, as the `retry-storm` lab."""

from __future__ import annotations

import pytest

from labs.charts.base import JITTER_COLOURS
from labs.sim import RETRY_STORM_SEED
from tests.lab_helpers import form, headline, lab, refusal, run

LESSON_FULL_JITTER = [21, 81, 292]  # for 100, 500 and 2,000 clients


def test_it_offers_the_seed_that_lands_on_the_lessons_figures():
    assert lab("retry-storm").uses_seed
    assert lab("retry-storm").default_seed == RETRY_STORM_SEED
    assert form("retry-storm")["seed"].initial == RETRY_STORM_SEED


def test_it_puts_every_client_in_one_slot_without_jitter():
    data = run("retry-storm")["tables"]["compare_data"]
    assert data["clients"] == [100, 500, 2_000]
    assert data["none"] == [100, 500, 2_000]


def test_it_lands_near_the_lessons_full_jitter_figures_under_the_default_seed():
    full = run("retry-storm")["tables"]["compare_data"]["full"]
    assert full == [21, 81, 296]  # pinned: the lesson prints 21, 81, 292
    for ours, lesson in zip(full, LESSON_FULL_JITTER, strict=True):
        assert abs(ours - lesson) <= 0.15 * lesson


def test_it_puts_the_comparison_in_the_headline():
    text = headline("retry-storm", run("retry-storm"))
    assert "100 / 500 / 2,000 without jitter, 21 / 81 / 296 with full jitter" in text
    assert "busiest 10 ms slot holds 500 retries" in text
    assert "busiest 10 ms slot holds 81 retries" in text


def test_it_finds_the_busiest_slot_of_the_charted_storm():
    result = run("retry-storm")
    s, series = result["summary"], result["series"]
    assert (s["busiest_slot"], s["busiest_slot_no_jitter"]) == (81, 500)
    at = series["slot_start_ms"].index(s["busiest_slot_at_ms"])
    assert series["full_jitter"][at] == 81 == max(series["full_jitter"])
    assert sum(series["no_jitter"]) == sum(series["full_jitter"]) == 500 * 4
    assert s["busiest_slot_no_jitter_at_ms"] == 100  # the first retry, 100 ms after


def test_it_marks_the_busiest_slot_on_the_histogram():
    result = run("retry-storm")
    histogram = lab("retry-storm").charts(result)[0]
    notes = {note["text"]: (note["x"], note["y"]) for note in histogram["layout"]["annotations"]}
    assert notes["busiest with full jitter: 81"] == (
        result["summary"]["busiest_slot_at_ms"] + 5,
        81,
    )
    assert notes["no jitter: 500 at once"] == (105, 500)
    bars = histogram["data"]
    assert [b["marker"]["color"] for b in bars] == [JITTER_COLOURS["none"], JITTER_COLOURS["full"]]
    assert {b["width"] for b in bars} == {10}


@pytest.mark.parametrize("jitter", ["full", "equal", "decorrelated"])
def test_it_spreads_the_storm_with_every_kind_of_jitter(jitter):
    s = run("retry-storm", jitter=jitter)["summary"]
    assert s["busiest_slot"] == s[f"busiest_slot_{jitter}"] < s["busiest_slot_no_jitter"] / 2


def test_it_counts_in_wider_slots_when_asked():
    s = run("retry-storm", slot_ms=100)["summary"]
    assert s["busiest_slot"] > 81
    assert "busiest 100 ms slot" in headline("retry-storm", run("retry-storm", slot_ms=100))


def test_it_refuses_a_cap_below_the_first_wait():
    assert refusal("retry-storm", base_ms=500.0, cap_ms=100.0) == {
        "cap_ms": ["The longest wait must be at least the first wait (500 ms)."]
    }


def test_it_refuses_a_client_count_given_twice():
    assert refusal("retry-storm", compare_clients=[100, 100]) == {
        "compare_clients": ["Give each client count only once."]
    }
