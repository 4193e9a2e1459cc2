"""The cascade model: one stuck dependency, and the four tools that free the service."""

from __future__ import annotations

import pytest

from labs.sim.cascade import CascadeSetup, play_cascade


def _shares(run):
    """(usable share of all outcomes, share of own pages answered) over the stall."""
    stall = run.during_stall()
    outcomes = sum(x.answered + x.errors + x.gave_up for x in stall)
    own_sent = sum(x.own_pages_sent for x in stall)
    return (
        sum(x.answered for x in stall) / outcomes,
        sum(x.own_pages_ok for x in stall) / own_sent,
    )


def _everyone_waits(wait_ms: int, **extra) -> CascadeSetup:
    """2,000 requests a second into a dependency that hangs, with room for every one."""
    return CascadeSetup(
        rate_per_s=2000,
        duration_s=extra.pop("duration_s", 3),
        threads=100_000,
        queue_limit=0,
        service_ms=0,
        dependency_share=1.0,
        stall_from_s=0,
        stall_until_s=extra.pop("duration_s_stall", 3),
        stuck_ms=30_000,
        dependency_timeout_ms=wait_ms,
        caller_timeout_ms=100_000,
        caller_retries=0,
        **extra,
    )


@pytest.mark.parametrize(("wait_ms", "held"), [(1_000, 2_000), (200, 400)])
def test_it_holds_rate_times_wait_threads(wait_ms, held):
    # Lesson 13 with Little's law: 2,000 req/s × 1 s = 2,000; × 0.2 s = 400 waiting at once.
    run = play_cascade(_everyone_waits(wait_ms))
    assert run.peak_waiting_on_dependency == held


def test_it_holds_sixty_thousand_without_a_timeout():
    # The lesson's worst case: no timeout, a 30 s hang: 2,000 × 30 = 60,000 stuck requests.
    run = play_cascade(_everyone_waits(None, duration_s=31, duration_s_stall=31))
    assert run.peak_waiting_on_dependency == 60_000


def test_its_breaker_plays_the_lessons_outage():
    # Lesson 13: 5 failures → open 10 s, the service down seconds 0–29, one call a second
    # for 40 s: 7 calls reach the sick service, 27 fail fast, closed at the end.
    run = play_cascade(
        CascadeSetup(
            rate_per_s=1,
            duration_s=40,
            service_ms=0,
            dependency_share=1.0,
            stall_from_s=0,
            stall_until_s=30,
            stall_kind="down",
            caller_retries=0,
            breaker=True,
            breaker_threshold=5,
            breaker_open_s=10,
        )
    )
    calls = sum(x.dependency_calls for x in run.seconds)
    fast = sum(x.fast_fails for x in run.seconds)
    ok = sum(x.ok for x in run.seconds)
    assert (calls - ok, fast, ok) == (7, 27, 6)
    assert run.seconds[-1].breaker == "closed"


def test_one_stuck_dependency_stalls_even_the_pages_that_never_call_it():
    usable, own = _shares(play_cascade(CascadeSetup()))
    assert usable < 0.05
    assert own < 0.15


def test_each_tool_needs_the_one_before_it():
    # Without a timeout no call to a hanging dependency ever comes back, so a breaker
    # never sees a failure and a fallback never gets the chance to answer.
    bare = play_cascade(CascadeSetup())
    for tool in ({"breaker": True}, {"fallback": True}):
        run = play_cascade(CascadeSetup(**tool))
        assert _shares(run) == _shares(bare)
        assert run.breaker_opened == 0


def test_the_tools_together_free_the_service():
    timeout = {"dependency_timeout_ms": 1_000}
    steps = [
        {},
        timeout,
        {**timeout, "backoff": True},
        {**timeout, "backoff": True, "breaker": True},
        {**timeout, "backoff": True, "breaker": True, "fallback": True},
    ]
    runs = [play_cascade(CascadeSetup(**step)) for step in steps]
    own = [_shares(r)[1] for r in runs]
    assert own[1] > 0.8 > own[0]  # a timeout frees most threads for the service's own pages
    assert own[3] == 1.0  # a breaker frees them all: its calls fail at once
    calls = [sum(x.dependency_calls for x in r.during_stall()) for r in runs]
    assert calls[3] < calls[1] / 20  # and the sick dependency gets room
    usable, _ = _shares(runs[4])
    assert usable == 1.0 and runs[4].requests_failed == 0  # the fallback answers the rest


def test_a_breaker_notices_the_recovery_only_after_a_trial():
    run = play_cascade(CascadeSetup(dependency_timeout_ms=1_000, breaker=True, fallback=True))
    first_full = next(x.second for x in run.seconds if x.second >= 40 and x.ok and not x.fallback)
    assert 40 < first_full <= 40 + 10  # within one open time of the dependency's return


def test_it_repeats_under_a_seed_and_differs_under_another():
    setup = CascadeSetup(dependency_timeout_ms=1_000, backoff=True)
    a, b, c = play_cascade(setup, seed=1), play_cascade(setup, seed=1), play_cascade(setup, seed=2)
    assert a.seconds == b.seconds
    assert a.seconds != c.seconds


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("rate_per_s", 0),
        ("threads", 0),
        ("dependency_share", 1.5),
        ("stall_kind", "slow"),
        ("caller_retries", -1),
        ("dependency_timeout_ms", 0),
        ("backoff_cap_ms", 10),
    ],
)
def test_it_refuses_a_bad_setting_by_name(field, value):
    with pytest.raises(ValueError, match=field):
        CascadeSetup(**{field: value})


def test_it_refuses_a_stall_that_ends_before_it_starts():
    with pytest.raises(ValueError, match="stall_until_s"):
        CascadeSetup(stall_from_s=20, stall_until_s=10)


# Stability Sim's "Connection Pool Exhaustion" example (docs/cascade-and-stability-sim.md):
# 150 requests a second, a pool of 20 connections to a database of about 8 ms, slowed 15×
# from second 8 to 13, callers waiting 1.5 s and trying twice more.
STABILITY_SIM_POOL = dict(
    rate_per_s=150, duration_s=60, threads=20, queue_limit=500, service_ms=2,
    dependency_share=1.0, dependency_ms=8, stall_from_s=8, stall_until_s=13,
    stuck_ms=120, caller_timeout_ms=1500, caller_retries=2,
)  # fmt: skip


def usable_share(seconds) -> float:
    answered = sum(s.answered for s in seconds)
    return answered / sum(s.answered + s.errors + s.gave_up for s in seconds)


def test_stability_sims_pool_exhaustion_fills_the_pool_and_the_queue_as_it_documents():
    run = play_cascade(CascadeSetup(**STABILITY_SIM_POOL), seed=42)
    assert run.peak_threads_busy == 20  # 150/s × 122 ms ≈ 18 before any retry: then all 20
    assert max(s.queued for s in run.seconds) == 500  # the request queue full, as it says
    assert usable_share(run.during_stall()) < 0.01
    # Where the two differ: with no load-dependent latency here, it drains once the
    # dependency is quick again, instead of staying saturated.
    assert usable_share([s for s in run.seconds if s.second >= 20]) == 1.0


def test_the_four_tools_keep_stability_sims_pool_answering():
    tools = dict(dependency_timeout_ms=200, backoff=True, breaker=True, fallback=True)
    run = play_cascade(CascadeSetup(**STABILITY_SIM_POOL, **tools), seed=42)
    assert usable_share(run.during_stall()) == 1.0
    assert run.requests_failed == 0
