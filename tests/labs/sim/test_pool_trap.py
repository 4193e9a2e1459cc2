"""Assignment 05's second loop: a pool whose waiting line outlives its callers stays busy
for nobody after the database is well again; a pool wait shorter than the caller's timeout
frees it; no retries only stops the growth; a bulkhead from the start stops the trap."""

from __future__ import annotations

import pytest

from labs.sim.pool_trap import Rules, recovered_at, simulate

BASE = {
    "rate_per_s": 150,
    "horizon_s": 60,
    "pool_size": 10,
    "query_ms": 50.0,
    "slow_query_ms": 500.0,
    "slow_from_s": 10,
    "slow_until_s": 20,
    "client_timeout_ms": 1000.0,
    "backoff_ms": 100.0,
}
TRAP = Rules(pool_wait_ms=30_000, retries=3, max_waiters=0)


def play(after: Rules, switch_at_s: float = 40, **changes):
    return simulate(**(BASE | changes), before=TRAP, after=after, switch_at_s=switch_at_s)


def test_a_well_pool_answers_every_call():
    rows = play(TRAP)
    assert [r.useful for r in rows[1:10]] == [150] * 9
    assert rows[5].waiting == 0 and rows[5].wasted == 0


def test_the_pool_stays_trapped_after_the_database_is_well():
    rows = play(TRAP)
    after = rows[21:]
    assert {r.useful for r in after} == {0}
    assert all(199 <= r.wasted <= 201 for r in after)  # 200 a second, every one for nobody
    assert all(r.retries == 450 for r in after)  # 150 calls x 3 retries: 4 attempts each
    assert rows[-1].oldest_wait_s == pytest.approx(30, abs=0.01)  # the pool's own limit
    assert recovered_at(rows, 20) is None


def test_a_pool_wait_under_the_callers_timeout_frees_it():
    rows = play(Rules(500, 3, 0))
    assert recovered_at(rows, 20) == 42
    assert rows[50].waiting == 0 and rows[50].useful == 150


def test_stopping_retries_leaves_the_old_line_to_drain_at_50_a_second():
    rows = play(Rules(30_000, 0, 0), horizon_s=100)
    assert recovered_at(rows, 20) is None
    assert rows[80].waiting - rows[84].waiting == 200  # 200 served - 150 new, for 4 s


def test_a_bulkhead_from_the_start_keeps_the_line_short():
    rows = play(Rules(30_000, 3, 20), switch_at_s=0)
    assert max(r.waiting for r in rows) == 20
    assert recovered_at(rows, 20) == 21


def test_one_connection_three_calls_second_by_second():
    """Calls at 0, 1 and 2 s; a query takes 1.5 s, a caller waits 1 s and retries once."""
    rows = simulate(
        rate_per_s=1,
        horizon_s=3,
        pool_size=1,
        query_ms=1500.0,
        slow_query_ms=1500.0,
        slow_from_s=0,
        slow_until_s=0,
        client_timeout_ms=1000.0,
        backoff_ms=0.0,
        before=Rules(30_000, 1, 0),
        after=Rules(30_000, 1, 0),
        switch_at_s=0,
    )
    # (second, new, retries, useful, wasted, pool timeouts, rejected, gave up, waiting,
    # in use, oldest wait): the first query ends after its caller left (wasted at 1.5 s),
    # its retry waits behind it, and call 0 gives up at 2 s after its second attempt. At 3 s
    # call 1's abandoned first attempt takes the connection, and call 2's retry joins two
    # abandoned attempts in line.
    assert [tuple(r) for r in rows] == [
        (0, 1, 0, 0, 0, 0, 0, 0, 2, 1, 0.0),
        (1, 1, 1, 0, 1, 0, 0, 0, 3, 1, 1.0),
        (2, 1, 1, 0, 0, 0, 0, 1, 3, 1, 1.0),
    ]


def test_it_refuses_an_empty_pool():
    with pytest.raises(ValueError, match="pool_size"):
        play(TRAP, pool_size=0)
