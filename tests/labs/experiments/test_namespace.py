"""Runs on the shared Redis never see each other's keys, and leave none behind."""

from __future__ import annotations

import time

import pytest

from labs.experiments.breaker import shared_breaker
from labs.experiments.effects import Effects
from labs.experiments.namespace import Namespace
from labs.experiments.queue import RedisQueue

pytestmark = pytest.mark.redis


def test_two_runs_never_see_each_others_messages(r):
    a, b = Namespace(ttl_s=60), Namespace(ttl_s=60)
    try:
        qa, qb = RedisQueue(r, a), RedisQueue(r, b)
        qa.send_many((f"a-{i}", "") for i in range(5))
        qb.send_many((f"b-{i}", "") for i in range(3))
        assert {m.msg_id for m in qa.receive("w", 100)} == {f"a-{i}" for i in range(5)}
        assert qb.stats().visible == 3
        assert a.cleanup(r) > 0
        assert a.keys(r) == []
        assert {m.msg_id for m in qb.receive("w", 100)} == {f"b-{i}" for i in range(3)}
    finally:
        a.cleanup(r)
        b.cleanup(r)
    assert b.keys(r) == []


def test_every_key_a_run_writes_has_a_ttl_and_cleanup_leaves_none(r):
    ns = Namespace(ttl_s=30)
    try:
        q = RedisQueue(r, ns, visibility_timeout_s=0.03, max_receives=1, retention_s=0.3)
        fx = Effects(r, ns, kind="sms_sent")
        breaker = shared_breaker(r, ns, fail_max=1, reset_timeout_s=1)
        q.send_many([("done", ""), ("poison", ""), ("old", "")])
        got = {m.msg_id: m for m in q.receive("w", 2)}
        fx.apply("done")
        q.ack(got["done"])
        q.fail(got["poison"], "bad")
        time.sleep(0.05)
        [old] = q.receive("w")  # parks poison, hands out old
        q.fail(old, "slow")
        with pytest.raises(Exception):  # noqa: B017 - any failure trips the breaker
            breaker.call(lambda: 1 / 0)
        time.sleep(0.35)
        q.stats()  # retention expires "old"
        q.redrive("poison")
        keys = ns.keys(r)
        kinds = {k.removeprefix(ns.prefix).split(":")[0] for k in keys}
        assert {
            "q",
            "stats",
            "dlq",
            "done",
            "expired",
            "errors",
            "cursor",
            "fx",
            "breaker",
        } <= kinds
        ttls = {k: r.pttl(k) for k in keys}
        assert all(0 < ttl <= 30_000 for ttl in ttls.values()), ttls
        assert ns.cleanup(r) == len(keys)
        assert ns.keys(r) == []
        assert list(r.scan_iter(match=ns.prefix + "*")) == []
    finally:
        ns.cleanup(r)


def test_a_child_namespace_is_cleaned_with_its_parent(r):
    parent = Namespace(ttl_s=60)
    RedisQueue(r, parent.child("fixed")).send("x")
    RedisQueue(r, parent.child("scaled")).send("y")
    assert len(parent.keys(r)) >= 4
    parent.cleanup(r)
    assert parent.keys(r) == []


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"run_id": "has space"}, "run_id"), ({"run_id": "a*"}, "run_id"), ({"ttl_s": 0}, "ttl_s")],
)
def test_it_refuses_a_bad_run_id_or_ttl(kwargs, name):
    with pytest.raises(ValueError, match=name):
        Namespace(**kwargs)
