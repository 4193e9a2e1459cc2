"""Lesson 07's fan-out in batches, and the provider's limit."""

from __future__ import annotations

import pytest

from labs.sim.batching import fan_out

SMS = 5_000_000


def test_one_message_per_20_ms_call_is_the_lessons_50_a_second():
    assert fan_out(SMS, 50, 1, 20, 0.1, 1e9).minutes == pytest.approx(33.3, abs=0.05)
    assert fan_out(SMS, 10, 1, 20, 0.1, 1e9).minutes == pytest.approx(166.7, abs=0.05)
    assert fan_out(SMS, 200, 1, 20, 0.1, 1e9).minutes == pytest.approx(8.3, abs=0.05)


def test_a_batch_of_500_pays_the_round_trip_once():
    result = fan_out(SMS, 50, 500, 20, 0.1, 1e9)
    assert result.per_worker_per_s == pytest.approx(500 * 1000 / (20 + 499 * 0.1))
    assert result.calls == 10_000


def test_workers_beyond_the_providers_limit_are_throttled():
    fifty = fan_out(SMS, 50, 500, 20, 0.1, 10_000)
    five_hundred = fan_out(SMS, 500, 500, 20, 0.1, 10_000)
    assert fifty.throttled and five_hundred.throttled
    assert fifty.minutes == five_hundred.minutes == pytest.approx(8.33, abs=0.01)
    assert fan_out(SMS, 400, 1, 20, 0.1, 10_000).useful_workers == 200


def test_it_refuses_no_workers():
    with pytest.raises(ValueError):
        fan_out(SMS, 0, 1, 20, 0.1, 10_000)
