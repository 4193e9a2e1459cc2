"""The compiled capstone loop gives exactly what the pure-Python reference gives."""

from __future__ import annotations

import os

import pytest

from labs.sim.capstone import RECOMMENDED_CONTROLS, engine, fast
from labs.sim.capstone.trapped_params import TrappedParams

if not fast.COMPILED:
    if os.environ.get("CI"):
        pytest.fail("the compiled loop is not built: ./dev builds it (labs.sim.capstone.build)")
    pytest.skip("the compiled loop is not built here: ./dev builds it", allow_module_level=True)

SHORT = {"horizon_s": 90, "trigger_start_s": 15.0, "trigger_end_s": 35.0, "recover_at_s": 50.0}
SCENARIOS = {
    "trapped": {},
    "recommended controls": dict(RECOMMENDED_CONTROLS),
    "naive drop": {"drop_expired": True, "limit_retries": True, "drop_payments": True},
    "reconcile from the start": {
        "drop_expired": True,
        "reconcile_payments": True,
        "recover_at_s": 0.0,
    },
    "codel, half payments": {"discipline": "codel", "payment_share": 0.5, "drop_payments": True},
    "lifo, costs vary": {"discipline": "lifo", "cost_spread": 40.0},
    "lost workers, slowdown": {"workers_lost": 3, "slowdown_factor": 2.0, "spike_rps": 90.0},
    "reserve, no drop cost": {"reserve_share": 0.4, "drop_expired": True, "drop_cost_ms": 0.0},
    "admission ramp, three layers": {
        "admission_limit": True,
        "admit_rps": 70.0,
        "reopen_ramp_s": 5.0,
        "retry_layers": 3,
        "max_attempts": 2,
        "limit_retries": True,
    },
    "constant service, no jitter, tiny queue": {
        "service_dist": "constant",
        "jitter": "none",
        "queue_limit": 50,
    },
}


def comparable(raw: dict) -> dict:
    ledger = raw["ledger"]
    return {
        **{k: v for k, v in raw.items() if k != "ledger"},
        "ledger": (ledger.counts, ledger.total, ledger.charges, ledger.duplicates_absorbed),
        "table": ledger.table(1e9),
    }


@pytest.mark.parametrize("seed", [0, 5, 12345])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_it_gives_the_reference_result_exactly(scenario, seed):
    p = TrappedParams(**{**SHORT, **SCENARIOS[scenario]})
    assert comparable(fast.simulate(p, seed)) == comparable(engine.simulate(p, seed))


def test_it_gives_the_reference_result_on_the_default_run():
    p = TrappedParams()
    assert comparable(fast.simulate(p, 5)) == comparable(engine.simulate(p, 5))
