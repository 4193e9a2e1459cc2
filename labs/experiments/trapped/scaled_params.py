"""The live lab's params: the capstone model's, in model seconds, plus a time scale.

The live service takes the same params as `labs.sim.capstone.trapped_service`, so the
model's prediction for a run is one call away. One model second lasts `time_scale`
seconds of wall time. The live defaults differ from the model's in the rates only (fewer
requests, half the workers), so the shared Redis and a two-core machine carry a
run; the trap is the same: 70% busy before the trigger, a spike well past capacity, a
one-second timeout and three attempts per call.
"""

from __future__ import annotations

from typing import Any

from labs.experiments.limits import MAX_MESSAGES, check_float
from labs.sim.capstone.specs import build
from labs.sim.capstone.trapped_params import TrappedParams

DEFAULT_TIME_SCALE = 0.25  # 300 model seconds in 75 s of wall time
MIN_TIME_SCALE = 0.1  # below this, thread wake-ups on a busy machine eat the capacity
MAX_TIME_SCALE = 1.0
MAX_WALL_S = 100.0  # the longest run, wall time (the Celery limit sits above it)
MAX_WORKERS = 16
MAX_QUEUE_LIMIT = 5000
MAX_NEW_PER_WALL_S = 1000.0  # new requests a second of wall time, at the highest rate
MAX_CAPACITY_PER_WALL_S = 1000.0  # requests all workers finish a second of wall time
MIN_SERVICE_WALL_MS = 2.0  # a thread's sleep is not precise below this
MIN_TIMEOUT_WALL_MS = 20.0

LIVE_DEFAULTS: dict[str, Any] = {
    "horizon_s": 300,
    "base_rps": 35.0,
    "workers": 4,
    "service_ms": 80.0,
    "queue_limit": 1000,
    "spike_rps": 100.0,
    "admit_rps": 45.0,
}


def live_params(params: dict[str, Any]) -> TrappedParams:
    """The model's params with the live defaults under them; ValueError past the live caps."""
    p = build(TrappedParams, LIVE_DEFAULTS | params)
    if p.cost_spread != 1.0:
        raise ValueError("cost_spread must be 1 here: every live request costs the same")
    if p.discipline != "fifo":
        raise ValueError("discipline must be fifo here: the live queue is first in, first out")
    if p.workers > MAX_WORKERS:
        raise ValueError(f"workers must be at most {MAX_WORKERS} here, got {p.workers}")
    if p.queue_limit > MAX_QUEUE_LIMIT:
        raise ValueError(f"queue_limit must be at most {MAX_QUEUE_LIMIT} here, got {p.queue_limit}")
    if p.expected_requests > MAX_MESSAGES:
        raise ValueError(
            f"expected new requests must be at most {MAX_MESSAGES:,} here, "
            f"got {p.expected_requests:,.0f}"
        )
    return p


def check_time_scale(p: TrappedParams, time_scale: float) -> float:
    """Refuse a scale that makes the run too long or the real rates too high for one Redis."""
    scale = check_float("time_scale", time_scale, MIN_TIME_SCALE, MAX_TIME_SCALE)
    wall_s = p.horizon_s * scale
    if wall_s > MAX_WALL_S:
        raise ValueError(
            f"horizon_s x time_scale must be at most {MAX_WALL_S:g} s of wall time, got {wall_s:g}"
        )
    top = max(p.base_rps, p.spike_rps) / scale
    if top > MAX_NEW_PER_WALL_S:
        raise ValueError(
            f"the highest arrival rate / time_scale must be at most {MAX_NEW_PER_WALL_S:g} "
            f"requests a second of wall time, got {top:g}"
        )
    capacity = p.capacity_rps / scale
    if capacity > MAX_CAPACITY_PER_WALL_S:
        raise ValueError(
            f"capacity / time_scale must be at most {MAX_CAPACITY_PER_WALL_S:g} requests a "
            f"second of wall time, got {capacity:g}"
        )
    if p.service_ms * scale < MIN_SERVICE_WALL_MS:
        raise ValueError(
            f"service_ms x time_scale must be at least {MIN_SERVICE_WALL_MS:g} ms, "
            f"got {p.service_ms * scale:g}"
        )
    if p.client_timeout_ms * scale < MIN_TIMEOUT_WALL_MS:
        raise ValueError(
            f"client_timeout_ms x time_scale must be at least {MIN_TIMEOUT_WALL_MS:g} ms, "
            f"got {p.client_timeout_ms * scale:g}"
        )
    return scale
