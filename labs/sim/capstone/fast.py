"""Run the capstone loop compiled when it is built, else the pure-Python reference.

`engine.simulate` is the reference the tests compare against; `_fastloop` (built by
`python -m labs.sim.capstone.build`, which `./dev` runs) repeats it in C arrays and
gives the same result, several times faster. The models call `simulate` from here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labs.sim.capstone import engine
from labs.sim.capstone.latency import SecondWaits
from labs.sim.capstone.trapped_params import TrappedParams

_compiled: Callable[..., dict[str, Any]] | None
try:
    from labs.sim.capstone import _fastloop
except ImportError:  # not built on this machine: the reference gives the same figures
    _compiled = None
    _TAKES_LEAN = _TAKES_FIGURES = False
else:
    _compiled = _fastloop.simulate
    # A module built before lean runs existed (`./dev` rebuilds it once the .pyx is newer)
    # runs them in full: the same queue figures, with the ledger and waits as well.
    _TAKES_LEAN = getattr(_fastloop, "TAKES_LEAN", False)
    # And before its waits could stay in C (`figures`): its lists are read in Python then.
    _TAKES_FIGURES = getattr(_fastloop, "TAKES_FIGURES", False)

COMPILED = _compiled is not None


def simulate(
    p: TrappedParams, seed: int, *, lean: bool = False, figures: bool = False
) -> dict[str, Any]:
    """One run of the trapped service, compiled if possible (same result either way).

    `lean`: no payments ledger and no per-answer waits (`engine.simulate`).
    `figures`: the waits (`waits_s`) as `latency.WaitFigures`, for a reader of their
    percentiles only: the compiled loop reads them in C, without a list of them.
    """
    if _compiled is not None and _TAKES_FIGURES:
        return _compiled(p, seed, lean, figures)
    if _compiled is not None:
        raw = _compiled(p, seed, lean) if _TAKES_LEAN else _compiled(p, seed)
    else:
        raw = engine.simulate(p, seed, lean=lean)
    if figures:
        raw["waits_s"] = {kind: SecondWaits(waits) for kind, waits in raw["waits_s"].items()}
    return raw
