"""The pool-trap lab: the trap without a control, and the control that frees it."""

from __future__ import annotations

from tests.lab_helpers import headline, lab, refusal, run


def test_the_trap_and_the_shorter_pool_wait():
    result = run("pool-trap")
    s = result["summary"]
    assert (s["capacity_per_s"], s["slow_capacity_per_s"]) == (200.0, 20.0)
    assert s["plain_recovered_at_s"] is None
    assert (s["plain_useful_per_s_after_slow"], s["plain_wasted_pct_after_slow"]) == (0.0, 100.0)
    assert s["plain_attempts_per_call_after_slow"] == 4.0
    assert s["control_recovered_at_s"] == 42
    words = headline("pool-trap", result)
    assert "the service stays trapped" in words
    assert "callers get their answers again from second 42" in words


def test_a_bulkhead_from_the_start_never_lets_the_trap_form():
    s = run("pool-trap", control="bulkhead", switch_at_s=0)["summary"]
    assert s["control_recovered_at_s"] == 21
    assert s["control_peak_waiting_after_switch"] == 20


def test_the_snippets_carry_the_pool_and_its_wait():
    chosen = lab("pool-trap")
    sqlalchemy, hikari, bulkhead = chosen.in_production(chosen.defaults() | {"pool_size": 8})
    assert "pool_size=8," in sqlalchemy.text and "pool_timeout=0.5," in sqlalchemy.text
    compile(sqlalchemy.text, "sqlalchemy", "exec")
    assert "connectionTimeout=500" in hikari.text.splitlines()
    assert "      queueCapacity: 20  # more waiting are refused" in bulkhead.text.splitlines()
    plain = chosen.in_production(chosen.defaults() | {"control": "none"})
    assert "connectionTimeout=30000" in plain[1].text.splitlines()


def test_it_refuses_a_run_too_big_to_simulate():
    assert "rate_per_s" in refusal("pool-trap", rate_per_s=1000, horizon_s=300)


def test_it_refuses_a_database_well_before_it_got_slow():
    assert "slow_until_s" in refusal("pool-trap", slow_until_s=5)
