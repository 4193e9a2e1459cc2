"""Assignment 05, the capstone: a service trapped by retries and expired work, and its way out.

One entry function per lab. Each takes plain keyword params and a `seed`, and returns a
JSON-ready `{"summary", "series", "tables"}` dict (see docs/ARCHITECTURE.md):

- `trapped_service`: the reading-list service through a spike and its recovery.
- `phase_map`: which spike sizes and durations the service shakes off by itself.
- `cold_cache`: follow-up 1, a cache restart with 1,000 reads/s against a 100/s origin.
- `job_cost`: follow-up 2, counting jobs vs counting work when costs vary 100x.

Each lab's params, with type, default, bounds and help, are in its `PARAM_SPECS`
(collected in `LAB_PARAM_SPECS` by lab name).
"""

from labs.sim.capstone import cold_cache as _cold_cache
from labs.sim.capstone import job_cost as _job_cost
from labs.sim.capstone import phase_map as _phase_map
from labs.sim.capstone import trapped as _trapped
from labs.sim.capstone.cold_cache import cold_cache
from labs.sim.capstone.job_cost import job_cost
from labs.sim.capstone.phase_map import phase_map
from labs.sim.capstone.trapped import RECOMMENDED_CONTROLS, trapped_service

LAB_PARAM_SPECS = {
    "trapped_service": _trapped.PARAM_SPECS,
    "phase_map": _phase_map.PARAM_SPECS,
    "cold_cache": _cold_cache.PARAM_SPECS,
    "job_cost": _job_cost.PARAM_SPECS,
}

__all__ = [
    "LAB_PARAM_SPECS",
    "RECOMMENDED_CONTROLS",
    "cold_cache",
    "job_cost",
    "phase_map",
    "trapped_service",
]
