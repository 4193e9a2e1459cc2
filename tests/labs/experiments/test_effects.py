"""The effect happens once per message id with the idempotent consumer, enforced by Redis."""

from __future__ import annotations

import threading

import pytest

from labs.experiments.effects import Effects
from labs.experiments.namespace import connect

pytestmark = pytest.mark.redis


def test_it_does_the_effect_once_per_id_and_counts_the_skipped_repeat(r, ns):
    sent = Effects(r, ns, kind="sms_sent")
    assert [sent.apply(i) for i in ("sms-1", "sms-2", "sms-2", "sms-3")] == [
        True,
        True,
        False,
        True,
    ]
    assert sent.counts() == {"sms-1": 1, "sms-2": 1, "sms-3": 1}
    assert sent.totals() == {"effects": 3, "ids": 3, "duplicate_effects": 0, "skipped": 1}


def test_the_idempotency_key_is_a_redis_key_with_a_ttl(r, ns):
    sent = Effects(r, ns, kind="sms_sent", key_ttl_s=60)
    sent.apply("sms-9")
    ttl_ms = r.pttl(sent.idempotency_key("sms-9"))
    assert 0 < ttl_ms <= 60_000


def test_a_plain_consumer_repeats_the_effect_and_the_duplicate_shows(r, ns):
    charged = Effects(r, ns, kind="fee_charged", idempotent=False)
    for pay in ("pay-1", "pay-2", "pay-2", "pay-3", "pay-4", "pay-4", "pay-4"):
        assert charged.apply(pay) is True
    assert charged.totals()["effects"] == 7
    assert charged.totals()["duplicate_effects"] == 3


def test_racing_threads_on_their_own_connections_still_charge_once(r, ns):
    # Eight workers get the same payment at the same instant: one charge, seven skips.
    charged = Effects(r, ns, kind="fee_charged")
    gate = threading.Barrier(8)
    results: list[bool] = []

    def worker() -> None:
        own = connect()
        try:
            mine = charged.with_client(own)
            gate.wait()
            results.append(mine.apply("pay-42"))
        finally:
            own.close()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 7 + [True]
    assert charged.counts() == {"pay-42": 1}


def test_it_refuses_a_kind_that_is_not_a_word(r, ns):
    with pytest.raises(ValueError, match="kind"):
        Effects(r, ns, kind="sms sent")
