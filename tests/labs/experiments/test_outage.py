"""The breaker over a service down for a window: its real timeline, shared by all workers."""

from __future__ import annotations

import pytest

from labs.experiments.outage import outage
from tests.labs.experiments.helpers import assert_lab_result

pytestmark = pytest.mark.redis


def test_the_shared_breaker_opens_fails_fast_and_closes_after_the_outage(r):
    result = outage(
        messages=60,
        workers=4,
        arrival_rate_per_s=40,
        down_from_s=0.3,
        down_for_s=1.0,
        fail_max=5,
        reset_timeout_s=0.3,
        visibility_timeout_s=0.2,
    )
    s = result["summary"]
    timeline = result["tables"]["breaker_timeline"]
    states = [row["state"] for row in timeline]
    assert states[0] == "open" and states[-1] == "closed"
    assert "half-open" in states
    assert timeline[0]["t_s"] >= 0.3  # it opened only after the service went down
    for before, after in zip(timeline, timeline[1:], strict=False):
        if before["state"] == "open":
            assert after["state"] == "half-open"
            assert after["t_s"] - before["t_s"] >= 0.299  # open for the reset timeout
    # Few calls reached the sick service: the tripping ones plus a trial per reopening
    # (workers racing into half-open may each send one).
    assert 5 <= s["reached_sick_service"] <= 5 + 4 * s["opened"]
    assert s["failed_fast"] > s["reached_sick_service"]
    assert s["state_at_end"] == "closed"
    # Calls get through again after the service is back (how soon is wall-clock: a loaded
    # machine delays the half-open trial, so no upper bound here).
    assert s["first_ok_after_recovery_s"] is not None and s["first_ok_after_recovery_s"] >= 0
    assert (s["made"], s["lost"], s["duplicate_effects"]) == (60, 0, 0)
    assert "open" in result["series"]["breaker_state"]
    assert_lab_result(r, result)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"fail_max": 0}, "fail_max"),
        ({"reset_timeout_s": 0.01}, "reset_timeout_s"),
        ({"messages": 2000, "arrival_rate_per_s": 10}, "messages / arrival_rate_per_s"),
        ({"down_for_s": 31}, "down_for_s"),
    ],
)
def test_it_refuses_bad_params_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        outage(**kwargs)
