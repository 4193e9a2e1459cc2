"""The client policies a phone follows, checked with made-up times (no Redis, no Django)."""

from __future__ import annotations

import random

import pytest

from classlab.policy import (
    BREAKER_THRESHOLD,
    MAX_RETRIES,
    ClientState,
    check_policy,
    due_retries,
    may_send,
    note_original,
    note_outcome,
    plan_retry,
)

pytestmark = pytest.mark.nodb


def test_it_never_retries_under_none_and_stops_after_the_last_retry():
    state, rng = ClientState(), random.Random(1)
    assert plan_retry("none", state, "a", 0, 0, rng) is None
    assert plan_retry("immediate", state, "a", MAX_RETRIES, 0, rng) is None
    assert state.waiting == []


def test_it_retries_at_once_or_after_a_doubling_wait():
    state, rng = ClientState(), random.Random(1)
    assert plan_retry("immediate", state, "a", 0, 1000, rng).due_ms == 1000
    assert [plan_retry("backoff", state, "b", n, 1000, rng).due_ms for n in range(4)] == [
        1500, 2000, 3000, 5000,
    ]  # fmt: skip


def test_full_jitter_draws_below_the_ceiling_and_repeats_under_a_seed():
    waits = [plan_retry("jitter", ClientState(), "a", 3, 0, random.Random(7)).due_ms for _ in "ab"]
    assert waits[0] == waits[1] and 0 <= waits[0] < 4000


def test_a_retry_budget_spends_only_what_first_sends_earned():
    state, rng = ClientState(), random.Random(1)
    assert plan_retry("budget", state, "a", 0, 0, rng) is None  # nothing earned yet
    for _ in range(10):
        note_original("budget", state)
    assert plan_retry("budget", state, "a", 0, 0, rng) is not None
    assert plan_retry("budget", state, "a", 0, 0, rng) is None  # one retry per ten sends


def test_due_retries_are_taken_once_oldest_first():
    state, rng = ClientState(), random.Random(1)
    plan_retry("backoff", state, "late", 1, 0, rng)
    plan_retry("immediate", state, "now", 0, 0, rng)
    assert [r.origin for r in due_retries(state, 5000)] == ["now", "late"]
    assert due_retries(state, 5000) == []


def test_the_breaker_opens_after_failures_in_a_row_then_lets_one_trial_through():
    state = ClientState()
    for t in range(BREAKER_THRESHOLD):
        note_outcome("breaker", state, t * 100, ok=False)
    assert state.breaker_state == "open" and not may_send("breaker", state, 1000)
    assert may_send("breaker", state, 300 + 5000)  # half-open: one trial
    note_outcome("breaker", state, 5400, ok=True)
    assert state.breaker_state == "closed"


def test_a_state_survives_its_json_and_a_bad_policy_is_named():
    state = ClientState(tokens=1.5)
    plan_retry("immediate", state, "a", 0, 10, random.Random(1))
    assert ClientState.from_json(state.to_json()) == state
    with pytest.raises(ValueError, match="policy must be one of"):
        check_policy("hope")
