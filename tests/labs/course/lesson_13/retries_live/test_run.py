"""Lesson 13's retries on the real queue, as the `retries-live` lab."""

from __future__ import annotations

import pytest

from tests.lab_helpers import default_result, headline, refusal


@pytest.mark.redis
def test_it_retries_with_capped_jittered_waits_and_charges_every_fee_once():
    result = default_result("retries-live")
    s = result["summary"]
    assert s["made"] + s["dlq"] == s["messages"] == 100 and s["lost"] == 0
    assert s["fees_charged"] == s["made"] and s["duplicate_effects"] == 0
    assert 0 < s["max_wait_s"] <= s["longest_possible_wait_s"] == 0.02
    assert s["retries"] > 0 and s["failed_calls"] > 0
    rows = result["tables"]["attempts"]["rows"]
    assert [r[0] for r in rows] == [1, 2, 3, "gave up"]
    assert sum(r[1] for r in rows) == s["receives"]
    assert "duplicate charges: 0" in headline("retries-live", result)


def test_it_refuses_a_run_that_could_outlast_a_minute():
    errors = refusal("retries-live", messages=1000, attempts=8, cap_s=2, workers=1)
    assert "If every call failed this run would take" in errors["messages"][0]
