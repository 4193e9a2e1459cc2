"""Pure simulation models of the course, importable without Django.

Each model keeps the name and signature the lessons use, so a lesson snippet run
against `labs.sim` prints the lesson's figures. Randomness always comes from a
seed or a `random.Random` passed in, so a run can be repeated exactly.
"""

from labs.sim.availability import (
    downtime_per_month_min,
    downtime_per_year_h,
    parallel,
    parallel_sharing,
    serial,
)
from labs.sim.backoff import JITTERS, Jitter, backoff_ms, backoff_schedule
from labs.sim.breaker import BreakerCall, BreakerRun, CircuitBreaker, play_breaker
from labs.sim.degradation import (
    DegradationRun,
    DegradationSecond,
    play_degradation,
    serve_with_fallback,
)
from labs.sim.delivery import consume, deliver_at_least_once, process
from labs.sim.drain import DrainRow, drain, drain_summary, fixed, per_backlog
from labs.sim.fanout import busy_backlog, clear_time_s, fanout_time_min, fanout_time_s, rush
from labs.sim.redrive import Receive, receive_log, redrive
from labs.sim.retry_storm import (
    RETRY_STORM_SEED,
    retry_amplification,
    retry_histogram,
    retry_storm,
    retry_times_ms,
)
from labs.sim.timeouts import call_with_timeout, littles_law

__all__ = [
    "JITTERS",
    "RETRY_STORM_SEED",
    "BreakerCall",
    "BreakerRun",
    "CircuitBreaker",
    "DegradationRun",
    "DegradationSecond",
    "DrainRow",
    "Jitter",
    "Receive",
    "backoff_ms",
    "backoff_schedule",
    "busy_backlog",
    "call_with_timeout",
    "clear_time_s",
    "consume",
    "deliver_at_least_once",
    "downtime_per_month_min",
    "downtime_per_year_h",
    "drain",
    "drain_summary",
    "fanout_time_min",
    "fanout_time_s",
    "fixed",
    "littles_law",
    "parallel",
    "parallel_sharing",
    "per_backlog",
    "play_breaker",
    "play_degradation",
    "process",
    "receive_log",
    "redrive",
    "retry_amplification",
    "retry_histogram",
    "retry_storm",
    "retry_times_ms",
    "rush",
    "serial",
    "serve_with_fallback",
]
