"""Lesson 07 on the real queue, as the `fanout-live` lab: the formula, and a worker that dies."""

from __future__ import annotations

import pytest

from tests.lab_helpers import default_result, headline, refusal, run


@pytest.mark.redis
def test_a_job_whose_worker_died_before_its_ack_is_delivered_twice_and_sent_once():
    result = default_result("fanout-live")
    s = result["summary"]
    assert (s["crashes"], s["crash_point"], s["idempotent"]) == (1, "after_effect", True)
    assert s["done"] == s["sms_sent"] == 60 and s["duplicate_effects"] == 0
    assert s["duplicates_delivered"] >= 1
    [crashed] = result["tables"]["crashed"]["rows"]
    assert crashed[1:3] == [2, 1]  # delivered twice, sent once
    assert s["formula_s"] == 1.0 and 0.9 < s["measured_s"] < 10
    text = headline("fanout-live", result)
    assert "the formula N / (W × R) says 1.00 s" in text
    assert "every job sent exactly once" in text


@pytest.mark.redis
def test_a_plain_consumer_sends_the_redelivered_sms_twice():
    s = run("fanout-live", jobs=20, crashes=2, idempotent=False)["summary"]
    assert s["duplicate_effects"] == 2 and s["sms_sent"] == 22
    assert s["keys_left"] == 0


def test_it_refuses_a_run_the_formula_says_takes_over_40_seconds():
    errors = refusal("fanout-live", jobs=2000, workers=1, rate_per_worker=10)
    assert "jobs ÷ (workers × rate) is 200 s; keep it at most 40 s" in errors["jobs"][0]
    assert "At most one crash per job" in refusal("fanout-live", jobs=3, crashes=5)["crashes"][0]
    assert "16" in refusal("fanout-live", workers=17)["workers"][0]
