"""The compiled loop follows payments on C arrays (`_fastloop.PaymentLedger`), by the
reference ledger's rules: `test_fast.py` compares their counts and tables on every scenario;
here, that those scenarios reach every state, so every rule is compared."""

from __future__ import annotations

from labs.sim.capstone import fast
from labs.sim.capstone.obligations import STATES, Ledger
from labs.sim.capstone.trapped_params import TrappedParams
from tests.labs.sim.capstone.compiled import skip_unless_built_current
from tests.labs.sim.capstone.test_fast import SCENARIOS, SHORT

skip_unless_built_current()


def test_the_compiled_loop_keeps_its_own_ledger():
    raw = fast.simulate(TrappedParams(**SHORT), 5)
    assert not isinstance(raw["ledger"], Ledger)  # no Python call per payment
    assert raw["ledger"].total == sum(raw["ledger"].counts.values()) > 0


def test_the_compared_scenarios_reach_every_state_in_the_counts_and_the_table():
    counted: set[str] = set()
    tabled: set[str] = set()
    for scenario in SCENARIOS.values():
        for seed in (0, 5, 12345):
            ledger = fast.simulate(TrappedParams(**{**SHORT, **scenario}), seed)["ledger"]
            counted |= {state for state, n in ledger.counts.items() if n}
            tabled |= {row["state"] for row in ledger.table(1e9)}
    assert counted == set(STATES)
    # The table's sections: the open payments, and the recent unknown, reconciled and lost.
    assert {"pending", "reconciling", "unknown", "reconciled", "lost"} <= tabled
