"""Lesson 13 in one run: the three failure experiments side by side."""

from __future__ import annotations

import json

import pytest

from labs.experiments.context import ExperimentContext
from labs.experiments.failure import failure

pytestmark = pytest.mark.redis


def test_it_runs_the_three_parts_and_prefixes_their_figures(r):
    parts = []
    result = failure(
        poison_params={"max_receives": [3], "visibility_timeout_s": 0.1, "redrive_rate_per_s": 0},
        retry_params={"messages": 30, "visibility_timeout_s": 0.2},
        breaker_params={
            "messages": 20,
            "arrival_rate_per_s": 40,
            "down_from_s": 0.1,
            "down_for_s": 0.4,
            "reset_timeout_s": 0.2,
            "visibility_timeout_s": 0.1,
        },
        context=ExperimentContext(on_sample=lambda sample: parts.append(sample["part"])),
    )
    s = result["summary"]
    assert (s["poison_made_mr3"], s["poison_dlq_mr3"], s["poison_receives_mr3"]) == (8, 2, 14)
    assert s["retry_made"] + s["retry_dlq"] == 30
    assert s["breaker_made"] == 20 and s["breaker_opened"] >= 1
    assert all(s[f"{p}_keys_left"] == 0 for p in ("poison", "retry", "breaker"))
    assert s["stopped_early"] is False
    assert set(parts) == {"poison", "retry", "breaker"}
    assert "breaker_state" in result["series"]
    json.dumps(result, allow_nan=False)


def test_it_skips_the_parts_after_a_stop(r):
    result = failure(context=ExperimentContext(should_stop=lambda: True))
    assert result["summary"]["stopped_early"] is True
    assert result["tables"] == {}
