"""One breaker shared by all workers through Redis, with a millisecond timeline; retries."""

from __future__ import annotations

import random
import time
from datetime import datetime

import pybreaker
import pytest
import tenacity

from labs.experiments.breaker import RedisBreakerStorage, shared_breaker
from labs.experiments.faults import ServiceError
from labs.experiments.namespace import connect
from labs.experiments.retries import FullJitter, retrying

pytestmark = pytest.mark.redis


def boom() -> None:
    raise ServiceError("payments down")


def test_failures_seen_by_one_worker_open_the_breaker_for_all(r, ns):
    other = connect()
    try:
        a = shared_breaker(r, ns, name="payments", fail_max=3, reset_timeout_s=5)
        b = shared_breaker(other, ns, name="payments", fail_max=3, reset_timeout_s=5)
        for _ in range(2):
            with pytest.raises(ServiceError):
                a.call(boom)
        # b's first failure is the third in a row, counted in Redis, so b trips it.
        with pytest.raises(pybreaker.CircuitBreakerError, match="threshold"):
            b.call(boom)
        assert a.current_state == b.current_state == pybreaker.STATE_OPEN
        calls = []
        with pytest.raises(pybreaker.CircuitBreakerError):
            a.call(lambda: calls.append(1))
        assert calls == []  # failed fast, the service was not called
    finally:
        other.close()


def test_it_half_opens_after_the_reset_timeout_to_the_millisecond_and_logs_the_timeline(
    r, ns, monkeypatch
):
    # One clock for pybreaker (which asks `datetime.now`) and the timeline, moved by hand:
    # what is judged is when the breaker lets a call through, not how fast this machine is.
    now = [1_700_000_000.0]

    class Clock(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[override]
            return datetime.fromtimestamp(now[0], tz)

    monkeypatch.setattr(pybreaker, "datetime", Clock)
    breaker = shared_breaker(
        r, ns, name="payments", fail_max=1, reset_timeout_s=0.3, clock=lambda: now[0]
    )
    watch = RedisBreakerStorage(r, ns, "payments")
    with pytest.raises(pybreaker.CircuitBreakerError):
        breaker.call(boom)
    now[0] += 0.299
    with pytest.raises(pybreaker.CircuitBreakerError, match="still open"):
        breaker.call(lambda: None)  # a millisecond early: refused without a call
    now[0] += 0.001
    breaker.call(lambda: None)
    opened = watch.opened_at
    assert opened is not None and opened.timestamp() == 1_700_000_000.0
    assert watch.timeline() == [
        (1_700_000_000.0, "open"),
        (1_700_000_000.3, "half-open"),
        (1_700_000_000.3, "closed"),
    ]
    assert watch.state == pybreaker.STATE_CLOSED


def test_every_breaker_key_keeps_its_ttl_through_state_changes(r, ns):
    breaker = shared_breaker(r, ns, fail_max=1, reset_timeout_s=0.05)
    with pytest.raises(pybreaker.CircuitBreakerError):
        breaker.call(boom)
    time.sleep(0.06)
    breaker.call(lambda: None)
    keys = [k for k in ns.keys(r) if ":breaker:" in k]
    assert len(keys) == 5
    assert all(0 < r.pttl(k) <= ns.ttl_ms for k in keys)


@pytest.mark.parametrize(
    ("kwargs", "name"), [({"fail_max": 0}, "fail_max"), ({"reset_timeout_s": 0}, "reset_timeout_s")]
)
def test_it_refuses_bad_breaker_settings(r, ns, kwargs, name):
    with pytest.raises(ValueError, match=name):
        shared_breaker(r, ns, **kwargs)


def test_tenacity_retries_with_full_jitter_waits_under_the_ceiling():
    failures = iter([True, True, True, False])
    waits: list[float] = []
    calls = []

    def flaky() -> str:
        calls.append(1)
        if next(failures):
            raise ServiceError("blip")
        return "ok"

    policy = retrying(
        attempts=5,
        base_s=0.1,
        cap_s=0.25,
        rng=random.Random(7),
        retry_on=(ServiceError,),
        on_wait=waits.append,
        sleep=lambda s: None,
    )
    assert policy(flaky) == "ok"
    assert len(calls) == 4
    assert len(waits) == 3
    for n, wait in enumerate(waits, start=1):
        assert 0 <= wait <= min(0.25, 0.1 * 2 ** (n - 1))
    again: list[float] = []
    failures = iter([True, True, True, False])
    retrying(
        attempts=5,
        base_s=0.1,
        cap_s=0.25,
        rng=random.Random(7),
        retry_on=(ServiceError,),
        on_wait=again.append,
        sleep=lambda s: None,
    )(flaky)
    assert again == waits  # the same seed, the same jitter


def test_tenacity_gives_up_after_the_last_attempt_with_the_real_error():
    policy = retrying(attempts=3, base_s=0, cap_s=0, rng=random.Random(0), retry_on=(ServiceError,))
    calls = []
    with pytest.raises(ServiceError):
        policy(lambda: calls.append(1) or boom())
    assert len(calls) == 3
    assert isinstance(FullJitter(0.1, 1, random.Random(0)), tenacity.wait.wait_base)
