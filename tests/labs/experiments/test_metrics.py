"""The sampler's readings for the live chart, and the drain estimate."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from labs.experiments import metrics
from labs.experiments.effects import Effects
from labs.experiments.metrics import Sampler, drain_estimate_s, queue_reader
from labs.experiments.queue import RedisQueue
from tests.labs.experiments.conftest import wait_for

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


def test_the_sampler_records_what_the_queue_really_holds_over_time(r, ns, monkeypatch):
    # The queue is real; the clock is the test's, moved 50 ms per batch of 10 done: the
    # figures are then those of 200 a second whatever this machine's speed.
    now = [0.0]
    # Only the sampler's clock: redis-py keeps the real one for its own timeouts.
    monkeypatch.setattr(metrics, "time", SimpleNamespace(monotonic=lambda: now[0]))
    q = RedisQueue(r, ns, visibility_timeout_s=5)
    fx = Effects(r, ns, kind="sms_sent", idempotent=False)
    seen = []
    sampler = Sampler(
        queue_reader(q, fx), interval_s=0.05, on_sample=seen.append, rate_window_s=0.2
    )
    q.send_many((f"m-{i}", "") for i in range(100))
    sampler.sample_now()
    for step in range(1, 11):
        batch = q.receive("w", 10)
        for m in batch:
            fx.apply(m.msg_id)
        fx.apply(batch[0].msg_id)  # one duplicate effect per batch
        q.ack_many(batch)
        now[0] = step * 0.05
        sampler.sample_now()
    samples = sampler.samples
    assert samples == seen
    assert [s["t_s"] for s in samples] == [round(step * 0.05, 3) for step in range(11)]
    assert [s["backlog"] for s in samples] == list(range(100, -1, -10))
    assert [s["done"] for s in samples] == list(range(0, 101, 10))
    last = samples[-1]
    assert (last["done"], last["duplicate_effects"], last["drain_estimate_s"]) == (100, 10, 0.0)
    assert samples[0]["drain_estimate_s"] is None  # no rate yet
    for s in samples[1:]:  # the backlog over the 200 a second done, to the millisecond
        assert s["drain_estimate_s"] == pytest.approx(s["backlog"] / 200, abs=0.001), s
    series = sampler.series(["t_s", "backlog"])
    assert len(series["t_s"]) == len(series["backlog"]) == len(samples)


def test_a_failing_on_sample_callback_does_not_stop_the_sampler(r, ns):
    q = RedisQueue(r, ns)

    def broken(sample):
        raise RuntimeError("page gone")

    sampler = Sampler(queue_reader(q), interval_s=0.02, on_sample=broken).start()
    # Three samples taken by the thread, each callback failing: the bound only guards a hang.
    assert wait_for(lambda: len(sampler.errors) >= 3, timeout_s=30)
    samples = sampler.stop()
    assert len(samples) >= 4  # the thread's three and stop()'s last
    assert len(sampler.errors) == len(samples)
    assert all("page gone" in error for error in sampler.errors)


def readings(*rows: tuple[float, int, int, int]):
    """A sampler's clock and readings played back: (t_s, backlog, done, sent) per sample."""
    clock = iter([0.0, *(row[0] for row in rows)])
    values = iter(rows)

    def read():
        _, backlog, done, sent = next(values)
        return {"backlog": backlog, "done": done, "sent": sent}

    return clock, read


def test_a_queue_that_keeps_up_is_not_called_not_draining(monkeypatch):
    # As much done as arrives each second: the small backlog holds, then grows.
    clock, read = readings(
        (0.0, 5, 0, 5), (1.0, 5, 50, 55), (2.0, 5, 100, 105), (3.0, 40, 110, 150)
    )
    monkeypatch.setattr("labs.experiments.metrics.time.monotonic", lambda: next(clock))
    sampler = Sampler(read, rate_window_s=1.0)
    sampler._t0 = 0.0
    for _ in range(4):
        sampler.sample_now()
    got = [(s["drain_estimate_s"], s.get("keeping_up")) for s in sampler.samples]
    assert got == [(None, None), (None, True), (None, True), (None, False)]
