"""The sampler's readings for the live chart, and the drain estimate."""

from __future__ import annotations

import time

import pytest

from labs.experiments.effects import Effects
from labs.experiments.metrics import Sampler, drain_estimate_s, queue_reader
from labs.experiments.queue import RedisQueue

pytestmark = pytest.mark.redis


@pytest.mark.parametrize(
    ("backlog", "done_per_s", "arrivals_per_s", "expected"),
    [
        (0, 0.0, 0.0, 0.0),
        (30_000, 2500.0, 0.0, 12.0),  # Lesson 07's busy minute clears in 12 s
        (100, 50.0, 30.0, 5.0),
        (100, 50.0, 50.0, None),  # arriving as fast as done: never clears
        (100, 10.0, 60.0, None),
    ],
)
def test_the_drain_estimate_is_backlog_over_net_capacity(
    backlog, done_per_s, arrivals_per_s, expected
):
    assert drain_estimate_s(backlog, done_per_s, arrivals_per_s) == expected


def test_the_drain_estimate_refuses_a_negative_backlog():
    with pytest.raises(ValueError, match="backlog"):
        drain_estimate_s(-1, 1.0)


def test_the_sampler_records_what_the_queue_really_holds_over_time(r, ns):
    q = RedisQueue(r, ns, visibility_timeout_s=5)
    fx = Effects(r, ns, kind="sms_sent", idempotent=False)
    seen = []
    sampler = Sampler(
        queue_reader(q, fx), interval_s=0.05, on_sample=seen.append, rate_window_s=0.2
    )
    q.send_many((f"m-{i}", "") for i in range(100))
    sampler.start()
    for _ in range(10):  # 10 done every 50 ms: 200 a second
        batch = q.receive("w", 10)
        for m in batch:
            fx.apply(m.msg_id)
        fx.apply(batch[0].msg_id)  # one duplicate effect per batch
        q.ack_many(batch)
        time.sleep(0.05)
    samples = sampler.stop()
    assert samples == seen
    assert len(samples) >= 8
    times = [s["t_s"] for s in samples]
    assert times == sorted(times)
    first, last = samples[0], samples[-1]
    assert first["backlog"] >= 90
    assert (last["backlog"], last["done"], last["duplicate_effects"]) == (0, 100, 10)
    assert last["drain_estimate_s"] == 0.0
    middle = [s for s in samples if 20 <= s["backlog"] <= 80 and s["t_s"] >= 0.2]
    assert middle, samples
    for s in middle:
        # The backlog over the rate done in the last 0.2 s, as the samples themselves show it
        # (a loaded machine works slower than the loop's 200 a second, never faster).
        i = samples.index(s)
        past = next(p for p in reversed(samples[:i]) if s["t_s"] - p["t_s"] >= 0.2)
        rate = (s["done"] - past["done"] - (s["sent"] - past["sent"])) / (s["t_s"] - past["t_s"])
        assert s["drain_estimate_s"] == pytest.approx(s["backlog"] / rate, abs=0.002)
        assert s["drain_estimate_s"] >= 0.3 * s["backlog"] / 200
    series = sampler.series(["t_s", "backlog"])
    assert len(series["t_s"]) == len(series["backlog"]) == len(samples)


def test_a_failing_on_sample_callback_does_not_stop_the_sampler(r, ns):
    q = RedisQueue(r, ns)

    def broken(sample):
        raise RuntimeError("page gone")

    sampler = Sampler(queue_reader(q), interval_s=0.02, on_sample=broken).start()
    time.sleep(0.1)
    samples = sampler.stop()
    assert len(samples) >= 3
    assert sampler.errors and "page gone" in sampler.errors[0]
