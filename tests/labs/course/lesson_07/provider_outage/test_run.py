"""Lesson 07's provider outage on the real Redis, as the `provider-outage` lab."""

from __future__ import annotations

import pytest

from labs.catalogue.entries import get_lab
from labs.experiments.isolation import alarm_times
from tests.lab_helpers import default_result, headline, refusal, run

pytestmark = pytest.mark.redis


def test_the_front_answers_every_request_and_no_job_is_lost_through_a_10_minute_outage():
    result = default_result("provider-outage")
    s, p = result["summary"], result["params"]
    assert (p["down_for_min"], s["jobs"], s["front_answered"]) == (10, 600, 600)
    assert (s["done"], s["dlq"], s["lost"]) == (600, 0, 0)
    assert s["failed_while_down"] > 0 and s["throttled"] == 0
    # The first job stuck at minute 3 is 10 minutes old when the provider is back at 13.
    assert s["oldest_age_max_min"] >= 9.5
    assert "0 lost" in headline("provider-outage", result)


def test_the_age_alarm_fires_no_sooner_than_the_threshold_after_the_outage_and_clears():
    s = default_result("provider-outage")["summary"]
    assert s["alarm_fired_min"] >= 3 + 5 - 0.1
    assert s["alarm_cleared_min"] > s["alarm_fired_min"]


def test_alarm_times_read_the_first_crossing_and_the_fall_below():
    samples = [{"t_min": t, "oldest_age_min": a} for t, a in ((1, 0), (2, 5), (3, 7), (4, 4.9))]
    assert alarm_times(samples, 5) == (2, 4)
    assert alarm_times(samples[:3], 5) == (2, None)
    assert alarm_times(samples, 8) == (None, None)


def test_more_workers_than_the_provider_allows_only_collect_429s():
    result = run("provider-outage", workers=12)
    s = result["summary"]
    assert s["throttled"] > 0 and s["peak_calls_at_once"] == 4
    assert s["lost"] == 0
    assert "refused with 429" in headline("provider-outage", result)


def test_a_low_max_receive_count_parks_healthy_jobs_during_the_outage():
    s = run("provider-outage", max_receives=5)["summary"]
    assert s["dlq"] > 0 and s["done"] + s["dlq"] == s["jobs"] and s["lost"] == 0


def test_it_refuses_work_the_workers_cannot_finish_in_a_run():
    errors = refusal("provider-outage", workers=1, rate_per_worker_per_min=5, arrivals_per_min=120)
    assert "workers" in errors


def test_in_production_alarms_on_the_oldest_message_in_seconds():
    lab = get_lab("provider-outage")
    assert lab is not None and lab.in_production is not None
    alarm, mapping = lab.in_production(lab.defaults())
    assert 'MetricName="ApproximateAgeOfOldestMessage"' in alarm.text
    assert "Threshold=300," in alarm.text
    assert '"MaximumConcurrency": 4' in mapping.text
