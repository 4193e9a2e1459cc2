"""Lesson 13's circuit breaker over a dependency that is down, as the `breaker` lab."""

from __future__ import annotations

from labs.charts.base import FAILED, FAST_FAIL, OK
from tests.lab_helpers import headline, lab, refusal, run

LESSON_TABLE = [
    # failures to open, open time, reached the sick service, failed fast, first success at
    [5, "10 s", 7, 27, "34 s"],
    [3, "10 s", 5, 27, "32 s"],
    [5, "2 s", 17, 13, "30 s"],
    [10, "30 s", 10, 29, "39 s"],
]


def test_it_plays_the_lessons_outage_with_the_defaults():
    s = run("breaker")["summary"]
    assert (s["failed"], s["fast_fail"], s["first_ok_s"]) == (7, 27, 34)
    assert (s["fast_fail_while_down"], s["fast_fail_after_recovery"], s["late_by_s"]) == (23, 4, 4)
    assert (s["ok"], s["final_state"]) == (6, "closed")


def test_it_compares_the_lessons_four_settings():
    assert run("breaker")["tables"]["compare"]["rows"] == LESSON_TABLE


def test_it_says_the_lessons_figures_in_words():
    text = headline("breaker", run("breaker"))
    assert "7 calls reached the sick service; 27 failed fast (23 of them while it was down)" in text
    assert "First success at 34 s: 4 s after the service came back." in text
    assert "Compare 3 fails, open 10 s: 5 reached the sick service · 27 failed fast" in text
    assert "Compare 5 fails, open 2 s: 17 reached the sick service · 13 failed fast" in text
    assert "Compare 10 fails, open 30 s: 10 reached the sick service · 29 failed fast" in text
    assert "first success at 39 s" in text


def test_it_records_the_state_each_call_met_for_the_band():
    series = run("breaker")["series"]
    assert series["breaker"][:6] == ["closed"] * 5 + ["open"]
    trials = [
        t
        for t, state in zip(series["second"], series["breaker"], strict=True)
        if state == "half-open"
    ]
    assert trials == [14, 24, 34]
    assert series["outcome"][34] == "ok" and series["dependency_ok"][30]


def test_it_colours_each_call_by_its_outcome_on_the_timeline():
    timeline = lab("breaker").charts(run("breaker"))[0]
    colours = {t["name"]: (t["marker"]["color"], len(t["x"])) for t in timeline["data"]}
    assert colours == {"ok": (OK, 6), "failed": (FAILED, 7), "fast-fail": (FAST_FAIL, 27)}
    bands = [s for s in timeline["layout"]["shapes"] if s["y0"] == 0.7]
    assert [b["fillcolor"] for b in bands[:3]] == ["#d0d7de", FAST_FAIL, "#1f6feb"]


def test_it_measures_recovery_from_an_outage_in_the_middle():
    s = run("breaker", down_from_s=10, down_until_s=20, duration_s=40)["summary"]
    # Calls before the outage succeed; the first success that counts comes after it.
    assert s["first_ok_s"] == 24
    assert s["late_by_s"] == 4


def test_it_says_when_no_call_succeeds_after_the_outage_began():
    result = run("breaker", down_until_s=100)
    assert result["summary"]["first_ok_s"] is None
    assert "No call succeeded" in headline("breaker", result)


def test_it_refuses_an_outage_that_ends_before_it_starts():
    assert refusal("breaker", down_from_s=20, down_until_s=10) == {
        "down_until_s": [
            "The outage must end after it starts: it starts at second 20, "
            "so it must end at second 21 or later."
        ]
    }


def test_it_refuses_an_outage_after_the_watching_ends():
    assert refusal("breaker", down_from_s=40, down_until_s=50) == {
        "down_from_s": ["The outage must start before the watching ends (second 40)."]
    }


def test_it_refuses_a_failure_count_without_its_open_time():
    assert refusal("breaker", other_open_s=[10, 2]) == {
        "other_open_s": ["Give one open time for each failure count: 3 counts but 2 open times."]
    }
