"""Assignment 05, the capstone: a service trapped by retries and expired work, and its way out.

One entry function per lab, each taking plain keyword params and a `seed` and returning
a JSON-ready `{"summary", "series", "tables"}` dict (see docs/ARCHITECTURE.md):

- `trapped_service`: the reading-list service through a spike and its recovery.

Each lab's params, with type, default, bounds and help, are in its `PARAM_SPECS`.
"""

from labs.sim.capstone.trapped import PARAM_SPECS as TRAPPED_PARAM_SPECS
from labs.sim.capstone.trapped import trapped_service

__all__ = ["TRAPPED_PARAM_SPECS", "trapped_service"]
