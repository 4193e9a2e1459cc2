"""Every figure the lessons print, recomputed through `labs.sim` and compared as numbers.

The lessons show these figures in their worked examples. Here each one is a row of
inputs and the number our model must give; no lesson text or code is repeated. Only
the jittered retry storm comes from a random draw, so it is held within 15%.
"""

from __future__ import annotations

import pytest

from labs.sim import (
    backoff_schedule,
    busy_backlog,
    call_with_timeout,
    clear_time_s,
    consume,
    deliver_at_least_once,
    fanout_time_min,
    littles_law,
    parallel,
    play_breaker,
    process,
    redrive,
    retry_storm,
    serial,
)

FIVE_MILLION = 5_000_000


def percent(share: float, places: int) -> float:
    return round(share * 100, places)


# Lesson 07 -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("workers", "per_worker_per_s", "minutes"),
    [
        (10, 50, 166.7),
        (50, 50, 33.3),
        (200, 50, 8.3),
        (50, 25, 66.7),
        (100, 50, 16.7),
        (50, 5, 333.3),
    ],
)
def test_it_times_the_five_million_text_fan_out(workers, per_worker_per_s, minutes):
    assert round(fanout_time_min(FIVE_MILLION, workers, per_worker_per_s), 1) == minutes


def test_it_leaves_thirty_thousand_waiting_after_the_busy_minute_and_clears_them_in_12_s():
    waiting = busy_backlog(3_000, 2_500, 60)
    assert waiting == 30_000
    assert clear_time_s(waiting, 2_500) == 12


def test_it_sends_a_twice_delivered_text_once():
    deliveries = deliver_at_least_once(["t1", "t2", "t3"], repeats=["t2"])
    assert len(deliveries) == 4
    assert consume(deliveries, idempotent=True) == ["t1", "t2", "t3"]


# Lesson 13: timeouts, backoff, the storm -------------------------------------------------


@pytest.mark.parametrize(
    ("latency_ms", "outcome"),
    [
        (120, ("ok", 120)),
        (900, ("ok", 900)),
        (1500, ("timeout", 1000)),
        (30_000, ("timeout", 1000)),
    ],
)
def test_it_caps_each_call_at_a_one_second_timeout(latency_ms, outcome):
    assert call_with_timeout(latency_ms, 1000) == outcome


@pytest.mark.parametrize(("wait_s", "stuck"), [(30, 60_000), (1, 2_000), (0.2, 400)])
def test_it_counts_requests_held_at_two_thousand_a_second(wait_s, stuck):
    assert littles_law(2000, wait_s) == pytest.approx(stuck)


def test_it_doubles_the_wait_up_to_the_cap():
    assert backoff_schedule(7) == [100, 200, 400, 800, 1600, 3200, 3200]


@pytest.mark.parametrize(("clients", "jittered"), [(100, 21), (500, 81), (2000, 292)])
def test_it_spreads_the_storm_with_full_jitter(clients, jittered):
    assert retry_storm(clients, 4, use_jitter=False) == clients
    assert abs(retry_storm(clients, 4, use_jitter=True) - jittered) <= 0.15 * jittered


# Lesson 13: breaker, charges, poison, availability ---------------------------------------


@pytest.mark.parametrize(
    ("threshold", "open_s", "failed", "fast_fail", "first_ok_s"),
    [(5, 10, 7, 27, 34), (3, 10, 5, 27, 32), (5, 2, 17, 13, 30), (10, 30, 10, 29, 39)],
)
def test_it_plays_the_thirty_second_outage(threshold, open_s, failed, fast_fail, first_ok_s):
    run = play_breaker(threshold, open_s, down_from_s=0, down_until_s=30, duration_s=40)
    assert (run.failed, run.fast_fail, run.first_ok_s) == (failed, fast_fail, first_ok_s)


def test_it_ends_the_default_outage_closed():
    assert play_breaker().final_state == "closed"


@pytest.mark.parametrize(
    ("payments", "repeats", "plain", "idempotent"),
    [(4, ["p2", "p4", "p4"], 7, 4), (3, ["p2"], 4, 3)],
)
def test_it_charges_once_per_payment_only_when_idempotent(payments, repeats, plain, idempotent):
    deliveries = deliver_at_least_once([f"p{k}" for k in range(1, payments + 1)], repeats)
    assert (process(deliveries, False), process(deliveries, True)) == (plain, idempotent)


DOCUMENTS = [f"pdf-{k}" for k in range(10)]


@pytest.mark.parametrize(
    ("poison", "max_receives", "made", "receives"),
    [
        ({"pdf-3", "pdf-7"}, 1, 8, 10),
        ({"pdf-3", "pdf-7"}, 3, 8, 14),
        ({"pdf-3", "pdf-7"}, 5, 8, 18),
        ({"pdf-7"}, 3, 9, 12),
    ],
)
def test_it_parks_the_poison_and_counts_receives(poison, max_receives, made, receives):
    done, dlq, total = redrive(DOCUMENTS, poison, max_receives=max_receives)
    assert (len(done), sorted(dlq), total) == (made, sorted(poison), receives)


@pytest.mark.parametrize(
    ("one", "copies", "shown", "places"),
    [(0.99, 2, 99.99, 4), (0.99, 3, 99.9999, 6), (0.995, 2, 99.9975, 4), (0.995, 3, 99.999988, 6)],
)
def test_it_raises_availability_with_copies(one, copies, shown, places):
    assert percent(parallel(one, copies), places) == shown


@pytest.mark.parametrize(
    ("links", "shown", "places"),
    [
        ([0.999] * 3, 99.70, 2),
        ([0.999] * 6, 99.40, 2),
        ([0.999, 0.999, 0.9995], 99.75, 2),
        ([parallel(0.999, 3)] * 6, 99.999999, 6),
    ],
)
def test_it_lowers_availability_along_a_chain(links, shown, places):
    assert percent(serial(*links), places) == shown
