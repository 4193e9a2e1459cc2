"""Retention: a backlog older than the period is deleted; a DLQ counts from the first enqueue."""

from __future__ import annotations

import pytest

from labs.sim.retention import DEFAULT_RETENTION_H, MAX_RETENTION_H, simulate


def test_sqs_keeps_4_days_by_default_and_14_at_most():
    assert DEFAULT_RETENTION_H == 4 * 24 == 96
    assert MAX_RETENTION_H == 14 * 24 == 336


def test_a_backlog_younger_than_the_retention_loses_nothing():
    r = simulate()  # workers stopped for 72 of the 96 hours a message is kept
    assert r.expired == 0
    assert r.done + r.parked_total == r.sent == 24_000
    assert max(h.oldest_age_h for h in r.hours) == 72
    assert max(h.backlog for h in r.hours) == 7_200


def test_a_backlog_older_than_the_retention_is_deleted_undone():
    r = simulate(outage_h=120)
    # Every hour's 100 messages sent from hour 24 to hour 48 turn 96 hours old first.
    assert r.expired == 2_500
    assert r.expired_poison == 25
    assert r.done + r.parked_total + r.expired == r.sent


def test_a_day_in_the_queue_is_a_day_less_in_a_standard_queues_dlq():
    # Parked after 24 hours in the queue, with a 4-day DLQ: 3 days left, not 4.
    r = simulate(outage_from_h=0, outage_h=24, dlq_retention_h=96, horizon_h=48)
    first = r.parked[0]
    assert (first.sent_h, first.parked_h, first.left_in_dlq_h) == (0, 24, 72)


def test_a_fifo_queues_dlq_starts_the_clock_again():
    r = simulate(outage_from_h=0, outage_h=24, dlq_retention_h=96, horizon_h=48, fifo=True)
    assert r.parked[0].left_in_dlq_h == 96


def test_a_dlq_no_longer_than_its_queue_loses_parked_messages_before_a_look():
    longer = simulate()
    same = simulate(dlq_retention_h=96)
    assert (longer.least_left_in_dlq_h, longer.parked_unseen) == (264, 0)
    assert (same.least_left_in_dlq_h, same.parked_unseen) == (24, 22)


def test_the_dlq_deletes_what_it_kept_too_long():
    r = simulate(dlq_retention_h=96)
    last = r.hours[-1]
    assert last.dlq_depth + last.dlq_expired == r.parked_total


@pytest.mark.parametrize(
    ("name", "value"),
    [("source_retention_h", 0), ("dlq_retention_h", 337), ("horizon_h", 0), ("poison_every", 0)],
)
def test_it_refuses_values_out_of_bounds(name, value):
    with pytest.raises(ValueError, match=name):
        simulate(**{name: value})
