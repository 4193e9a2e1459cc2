"""Why a drain missed its estimate: kept as keys by the model, said in the reader's language."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from labs.sim.capstone import RECOMMENDED_CONTROLS, trapped_service
from labs.sim.capstone.summary import GAP_ENGLISH, gap_english
from labs.words.drain_gaps import gap_words

DEVANAGARI = re.compile("[\u0900-\u097f]")


def result(**params: object) -> dict:
    return trapped_service(seed=5, **params)


CASES = {
    "trapped": {},
    "freed": RECOMMENDED_CONTROLS,
    "never on": {"recover_at_s": 300.0},
    "job cost": RECOMMENDED_CONTROLS | {"cost_spread": 4.0},
}


@pytest.mark.parametrize("params", CASES.values(), ids=CASES.keys())
def test_it_says_in_english_what_the_model_saved(params):
    r = result(**params)
    assert r["tables"]["drain_reasons"], "each case misses its estimate"
    assert gap_words(r) == r["summary"]["drain_gap"]


def test_it_keeps_the_reasons_as_keys_and_figures():
    r = result(**RECOMMENDED_CONTROLS)
    assert [x["why"] for x in r["tables"]["drain_reasons"]] == ["expired-discarded"]
    trapped = result()
    assert trapped["tables"]["drain_reasons"][0] == {"why": "never-drained"}


def test_it_has_english_for_every_reason_key():
    for key, text in GAP_ENGLISH.items():
        figures = {"est_s": 1, "left_s": 1, "admitted_rps": 1, "assumed_rps": 1, "ratio": 1}
        reason = {"why": key, **figures}
        assert gap_english([reason]) == text.format(**reason)
        assert gap_words({"tables": {"drain_reasons": [reason]}, "summary": {}}) != key


def test_it_shows_an_old_result_as_it_was_saved():
    old = {"summary": {"drain_gap": "noise: random arrivals and service times"}, "tables": {}}
    assert gap_words(old) == "noise: random arrivals and service times"
    assert gap_words({"summary": {"drain_gap": ""}, "tables": {}}) == ""


def test_it_says_nothing_when_the_estimate_held():
    held = {"summary": {"drain_gap": ""}, "tables": {"drain_reasons": []}}
    assert gap_words(held) == ""


def test_it_says_the_reasons_in_marathi():
    for params in CASES.values():
        r = result(**params)
        with translation.override("mr"):
            words = gap_words(r)
        assert DEVANAGARI.search(words), words
        for piece in r["summary"]["drain_gap"].split("; "):
            assert piece not in words


def test_it_says_every_reason_in_marathi():
    figures = {"est_s": 400, "left_s": 150, "admitted_rps": 90, "assumed_rps": 60, "ratio": 2}
    for key in GAP_ENGLISH:
        reason = {"why": key, **figures}
        with translation.override("mr"):
            words = gap_words({"tables": {"drain_reasons": [reason]}, "summary": {}})
        assert DEVANAGARI.search(words), key
        assert words != gap_english([reason])


@pytest.mark.parametrize("params", CASES.values(), ids=CASES.keys())
def test_it_reads_an_old_english_line_back_into_the_readers_words(params):
    saved = result(**params)
    old = {"summary": saved["summary"], "tables": {}}  # saved before the keys were kept
    assert gap_words(old) == saved["summary"]["drain_gap"]
    with translation.override("mr"):
        words = gap_words(old)
    assert DEVANAGARI.search(words)
    assert words == _marathi(saved)


def _marathi(saved: dict) -> str:
    with translation.override("mr"):
        return gap_words(saved)


def test_it_shows_a_line_it_cannot_read_as_saved():
    odd = {"summary": {"drain_gap": "noise: random arrivals and service times; cosmic rays"}}
    with translation.override("mr"):
        assert gap_words({**odd, "tables": {}}) == odd["summary"]["drain_gap"]
