"""What every real-experiment lab shares: its headline says when and why the run stopped early."""

from __future__ import annotations

import json

import pytest

from labs.catalogue.entries import LABS
from tests.base import EXPERIMENT_RESULTS

EXPERIMENTS = [lab for lab in LABS if lab.kind == "experiment"]


def stored(slug: str, **summary) -> dict:
    result = json.loads((EXPERIMENT_RESULTS / f"{slug}.json").read_text())
    result["summary"] |= summary
    return result


def test_it_finds_the_experiments():
    assert len(EXPERIMENTS) >= 8


@pytest.mark.parametrize("lab", EXPERIMENTS, ids=lambda lab: lab.slug)
def test_it_ends_a_stopped_runs_headline_with_the_reason(lab):
    lines = lab.headline(stored(lab.slug, stopped_early=True, stop_reason="time cap"))
    assert lines[-1] == "The run stopped early (time cap)."
    assert sum("stopped early" in line for line in lines) == 1


@pytest.mark.parametrize("lab", EXPERIMENTS, ids=lambda lab: lab.slug)
def test_it_says_nothing_of_stopping_when_the_run_finished(lab):
    lines = lab.headline(stored(lab.slug, stopped_early=False, stop_reason=""))
    assert not any("stopped early" in line for line in lines)
