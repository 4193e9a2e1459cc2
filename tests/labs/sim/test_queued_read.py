"""A read the user waits for, answered directly or through a queue: exact waits."""

from __future__ import annotations

import itertools

import pytest

from labs.sim.queued_read import ReadSetup, answer_directly, percentile, through_the_queue


def test_a_direct_read_that_finds_a_free_thread_waits_only_for_the_read():
    waits = answer_directly(ReadSetup())
    assert set(waits.wait_ms) == {40}
    assert set(waits.for_server_ms) == {0}
    assert len(waits.wait_ms) == 40 * 30


def test_through_the_queue_the_user_sees_the_answer_at_the_pages_next_ask():
    waits = through_the_queue(ReadSetup())
    # Queued at 10 ms, stored at 10 + 40 + 5 = 55 ms; the first ask is 500 ms after the
    # "accepted", at 510 ms: 455 ms with the answer ready and nobody looking.
    assert set(waits.wait_ms) == {510}
    assert set(waits.for_ask_ms) == {455}
    assert set(waits.for_server_ms) == {0}


def test_an_answer_not_ready_at_an_ask_waits_for_the_next_one():
    waits = through_the_queue(ReadSetup(read_ms=120, servers=8, poll_ms=100))
    # Stored 10 + 120 + 5 = 135 ms after the request: missed the ask at 110, seen at 210.
    assert set(waits.wait_ms) == {210}


def test_too_few_servers_make_both_ways_wait_in_line():
    setup = ReadSetup(reads_per_s=10, duration_s=5, read_ms=200, servers=1)
    direct, queued = answer_directly(setup), through_the_queue(setup)
    # One thread does 5 reads a second and 10 arrive: the n-th read waits n × 100 ms more.
    assert direct.wait_ms[:4] == [200, 300, 400, 500]
    assert direct.for_server_ms[:4] == [0, 100, 200, 300]
    assert queued.for_server_ms[:3] == [0, 105, 210]


@pytest.mark.parametrize(
    ("rate", "read_ms", "servers", "enqueue_ms", "store_ms", "poll_ms"),
    list(itertools.product((5, 90, 300), (1, 37, 400), (1, 4), (0, 25), (0, 5), (10, 333))),
)
def test_no_read_is_answered_sooner_through_the_queue(
    rate, read_ms, servers, enqueue_ms, store_ms, poll_ms
):
    setup = ReadSetup(
        reads_per_s=rate,
        duration_s=5,
        read_ms=read_ms,
        servers=servers,
        enqueue_ms=enqueue_ms,
        store_ms=store_ms,
        poll_ms=poll_ms,
    )
    direct, queued = answer_directly(setup), through_the_queue(setup)
    assert all(q >= d for q, d in zip(queued.wait_ms, direct.wait_ms, strict=True))


def test_per_second_gives_each_seconds_average_and_longest():
    setup = ReadSetup(reads_per_s=10, duration_s=5, read_ms=200, servers=1)
    means, worst = answer_directly(setup).per_second(5)
    assert worst[0] == 200 + 9 * 100
    assert means[0] == sum(200 + n * 100 for n in range(10)) / 10


def test_percentile_is_by_nearest_rank():
    assert percentile([5, 1, 3, 2, 4], 50) == 3
    assert percentile(list(range(1, 101)), 99) == 99
    assert percentile([], 50) == 0


@pytest.mark.parametrize(
    ("name", "value"),
    [("reads_per_s", 0), ("servers", 65), ("poll_ms", 5), ("read_ms", 0), ("duration_s", 121)],
)
def test_it_refuses_settings_out_of_bounds_naming_them(name, value):
    with pytest.raises(ValueError, match=name):
        ReadSetup(**{name: value})
