"""A run whose message only a dead worker took is sent again: the decision, and what the
workers' beats say of themselves for it. End to end, with workers killed between a take and
a claim: tests/e2e/test_killed.py."""

from __future__ import annotations

import pytest

from labs.runs import telemetry_store
from labs.runs.orphans import SAID_AFTER_S, held_by_none
from labs.runs.telemetry_store import LiveWorker

TAG, TAKEN = "tag-1", 1000.0
SAID_WELL_AFTER = TAKEN + SAID_AFTER_S + 1


def started(at: float | None) -> LiveWorker:
    return LiveWorker("w", at)


def holding(*tags: str, said_at: float = SAID_WELL_AFTER, since: float = TAKEN - 60) -> LiveWorker:
    return LiveWorker("w", since, said_at, frozenset(tags))


@pytest.mark.parametrize(
    ("workers", "held_by_none_of_them"),
    [
        ([started(TAKEN + 5)], True),  # the one live worker started after the take
        ([started(TAKEN + 5), started(TAKEN + 9)], True),  # every live worker did
        ([started(TAKEN - 60)], False),  # it may be the one holding it: it does not say
        ([started(TAKEN)], False),  # started the instant it was taken: may be its own
        ([started(None)], False),  # a worker that says nothing of itself
        ([], False),  # no live worker: nobody would take it again
        # Older workers that list what they hold, well after the take:
        ([holding("other")], True),  # without it
        ([holding(TAG)], False),  # with it: the run is in hand
        ([holding("other"), started(TAKEN + 5)], True),
        ([holding("other"), holding(TAG)], False),
        ([holding("other"), started(TAKEN - 60)], False),  # one older worker says nothing
        # A list made before, or too soon after, the take says nothing of it.
        ([holding("other", said_at=TAKEN - 1)], False),
        ([holding("other", said_at=TAKEN + SAID_AFTER_S / 2)], False),
    ],
)
def test_a_message_is_held_by_none_only_when_no_live_worker_can_be_holding_it(
    workers, held_by_none_of_them
):
    assert held_by_none(TAG, TAKEN, workers) is held_by_none_of_them


def test_a_message_kombu_noted_no_time_for_is_left_alone():
    assert held_by_none(TAG, None, [started(TAKEN + 5)]) is False


@pytest.mark.redis
def test_the_beats_say_when_each_live_worker_started_and_what_it_holds(own_queues):
    quick, _heavy = own_queues
    now = 5000.0
    telemetry_store.beat("a@host", [quick], now=now, started=now - 100, holds=["t1", "t2"])
    telemetry_store.beat("b@host", [quick], now=now, started=now - 50, holds=[])
    telemetry_store.beat("old@host", [quick], now=now)  # a worker that says nothing more
    assert telemetry_store.live_workers(quick, now=now) == [
        LiveWorker("a@host", now - 100, now, frozenset({"t1", "t2"})),
        LiveWorker("b@host", now - 50, now, frozenset()),
        LiveWorker("old@host", None),
    ]

    # a@host restarted under its name: its new start and list replace the old ones.
    telemetry_store.beat("a@host", [quick], now=now + 1, started=now + 0.5, holds=["t3"])
    # b@host stopped and said so.
    telemetry_store.gone("b@host", [quick])
    assert telemetry_store.live_workers(quick, now=now + 1) == [
        LiveWorker("a@host", now + 0.5, now + 1, frozenset({"t3"})),
        LiveWorker("old@host", None),
    ]
    assert telemetry_store.live_workers(quick, now=now + 10) == []  # all silent since

    # Past WORKERS_TTL_S a silent worker is dropped from the beats, and its start with it.
    later = now + telemetry_store.WORKERS_TTL_S + 5
    telemetry_store.beat("c@host", [quick], now=later, started=later - 1)
    r = telemetry_store.client()
    starts = dict(r.zrange(telemetry_store.key("started", quick), 0, -1, withscores=True))
    assert starts == {b"c@host": later - 1}
