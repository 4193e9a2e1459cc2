"""The layered-retries lab: 27 calls for one click, against 3 and a budget's 1.331."""

from __future__ import annotations

from tests.lab_helpers import headline, refusal, run


def test_it_reproduces_the_lessons_27_calls():
    s = run("layered-retries")["summary"]
    assert s["every_layer_calls"] == 27
    assert s["every_layer_load_per_s"] == 2_700
    assert s["one_layer_calls"] == 3
    assert s["budget_calls"] == 1.331
    assert s["every_layer_answered_pct"] == 0


def test_the_headline_says_the_figures():
    text = headline("layered-retries", run("layered-retries"))
    assert "27 times (2,700 calls a second)" in text
    assert "3 calls per click (300 a second)" in text


def test_the_sweep_starts_at_one_call_and_ends_at_the_chosen_figures():
    series = run("layered-retries", layers=2)["series"]
    assert series["every_layer_calls"][0] == 1
    assert series["every_layer_calls"][-1] == 9


def test_it_refuses_too_many_layers():
    assert "layers" in refusal("layered-retries", layers=7)
