"""breaker-live's prediction explains the openings the run's own breaker made (issue 36, item 5)."""

from __future__ import annotations

import pytest
from django.utils import translation

from labs.catalogue.prediction import because
from labs.course.lesson_13.breaker_live.lab import LAB
from labs.text import num
from tests.lab_helpers import default_result


def _openings(timeline):
    """(openings from closed, openings from half-open) in the breaker's real timeline."""
    from_closed = from_trial = 0
    before = "closed"
    for row in timeline:
        if row["state"] == "open":
            if before == "half-open":
                from_trial += 1
            else:
                from_closed += 1
        before = row["state"]
    return from_closed, from_trial


def _times(n: int, more: str = "") -> str:
    return f"once{more}" if n == 1 else f"{num(n)}{more} times"


@pytest.mark.redis
def test_the_explanation_says_how_each_opening_came_from_the_timeline():
    result = default_result("breaker-live")
    from_closed, from_trial = _openings(result["tables"]["timeline"])
    (prompt,) = LAB.prompts
    with translation.override("en"):
        text = because(prompt, result["summary"], result["params"])
    # After the first opening, one failed trial reopens it: not a fresh run of failures.
    assert "after every" not in text, text
    assert _times(from_closed) in text, text
    if from_trial:
        assert _times(from_trial, " more") in text and "trial" in text, text
    # pybreaker lets every worker's call through while half-open: say how many went.
    trials = result["summary"]["half_open_calls"]
    assert trials >= from_trial
    assert f"{num(trials)} " in text and "half-open" in text, text
