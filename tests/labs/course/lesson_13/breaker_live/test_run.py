"""Lesson 13's shared circuit breaker on the real queue, as the `breaker-live` lab."""

from __future__ import annotations

import pytest

from tests.lab_helpers import default_result, headline, lab, refusal


@pytest.mark.redis
def test_it_shows_the_shared_breakers_real_state_changes_through_the_outage():
    result = default_result("breaker-live")
    s = result["summary"]
    states = [row[1] for row in result["tables"]["changes"]["rows"]]
    assert states[0] == "open" and "half-open" in states and states[-1] == "closed"
    assert s["opened"] == states.count("open") >= 1
    assert s["failed_fast"] > 0 and s["reached_sick_service"] >= 5
    assert s["made"] == s["sent"] == 90 and s["duplicate_effects"] == 0
    assert s["state_at_end"] == "closed" and s["first_ok_after_recovery_s"] is not None
    [chart] = lab("breaker-live").charts(result)
    state_line = next(t for t in chart["data"] if t["name"] == "breaker state")
    assert state_line["y"][0] == 0 and 2 in state_line["y"]  # closed, then open
    assert "The shared breaker opened" in headline("breaker-live", result)


def test_it_refuses_an_outage_that_starts_after_the_last_payment():
    errors = refusal("breaker-live", messages=30, arrival_rate_per_s=30, down_from_s=5)
    assert "The outage must start while payments still arrive" in errors["down_from_s"][0]
    assert (
        "keep it at most 30 s"
        in refusal("breaker-live", messages=1000, arrival_rate_per_s=10)["messages"][0]
    )
