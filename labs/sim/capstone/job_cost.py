"""Follow-up 2: jobs whose cost varies 100x, and why counting jobs mispredicts the drain.

Most jobs are cheap (1 work unit); a few are expensive (`cost_ratio` units). During an
incident the mix shifts towards expensive jobs, so the backlog it leaves holds far more
work per job than usual. An operator who divides the job count by the usual jobs/s
predicts a short drain; dividing the remaining work units by the spare units/s gets it
right. The queue is FIFO, so the oldest expensive job is a fair name for "what recovery
is waiting on": this lab names it, with the work ahead of it and when it will start.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass
from typing import Any

from labs.sim.capstone.latency import series_ms, window_ms
from labs.sim.capstone.specs import build, check_bounds, check_seed, param, param_specs
from labs.sim.capstone.streams import ARRIVALS, stream
from labs.sim.capstone.trapped_params import gettext_noop

DEFAULT_SEED = 5
MAX_JOBS_PER_RUN = 500_000  # about two seconds on the 2-core machines
OLDEST_ROWS = 10


@dataclass(frozen=True)
class JobCostParams:
    """A pool of workers, a job mix, and an incident that makes the mix expensive."""

    horizon_s: int = param(600, gettext_noop("Simulated seconds."), min=10, max=7200)
    workers: int = param(
        4, gettext_noop("Workers taking jobs from one FIFO queue."), min=1, max=1000
    )
    units_per_s: float = param(
        25.0, gettext_noop("Work units one worker does per second."), min=0.1, max=1e6
    )
    arrival_rps: float = param(
        20.0, gettext_noop("Jobs arriving per second (Poisson)."), min=0.1, max=10000
    )
    cost_ratio: float = param(
        100.0, gettext_noop("Work units of an expensive job (a cheap one is 1)."), min=1, max=10000
    )
    expensive_share: float = param(
        0.02, gettext_noop("Share of expensive jobs normally."), min=0, max=1
    )
    incident_start_s: float = param(
        20.0, gettext_noop("When the expensive mix starts."), min=0, max=7200
    )
    incident_end_s: float = param(
        50.0, gettext_noop("When it ends; the estimates are made then."), min=0, max=7200
    )
    incident_expensive_share: float = param(
        0.3, gettext_noop("Share of expensive jobs during the incident."), min=0, max=1
    )

    def __post_init__(self) -> None:
        check_bounds(self)
        if not self.incident_start_s <= self.incident_end_s <= self.horizon_s:
            raise ValueError(
                "need incident_start_s <= incident_end_s <= horizon_s, got "
                f"{self.incident_start_s}, {self.incident_end_s}, {self.horizon_s}"
            )
        jobs = self.arrival_rps * self.horizon_s
        if jobs > MAX_JOBS_PER_RUN:
            raise ValueError(
                f"arrival_rps * horizon_s must be <= {MAX_JOBS_PER_RUN:,}, got {jobs:,.0f}"
            )

    @property
    def normal_mean_cost(self) -> float:
        """Work units of an average job outside the incident."""
        return 1.0 + self.expensive_share * (self.cost_ratio - 1.0)


PARAM_SPECS = param_specs(JobCostParams)
SERIES = (
    "arrivals",
    "completions",
    "units_done",
    "backlog_jobs",
    "backlog_units",
    "oldest_age_s",
    "oldest_expensive_age_s",
)


def job_cost(seed: int = DEFAULT_SEED, **params: Any) -> dict[str, Any]:
    """Run the incident; compare count- and work-based drain estimates with the real drain."""
    p = build(JobCostParams, params)
    # Job cost is drawn with the arrival, from the arrivals stream: the model has no other
    # randomness (a job's work time follows from its cost).
    rnd = stream(check_seed(seed), ARRIVALS).random
    log = math.log
    push, pop = heapq.heappush, heapq.heappop

    queue: deque[list[Any]] = deque()  # FIFO of jobs [job_id, arrived_s, cost_units]
    expensive: deque[list[Any]] = deque()  # the expensive ones among them, same order
    done_at: list[tuple[float, int, float, float]] = []  # (finish_s, id, cost, arrived_s)
    idle = p.workers
    units_queued = 0.0
    units_done = 0.0
    horizon = float(p.horizon_s)
    next_arrival = -log(1.0 - rnd()) / p.arrival_rps
    next_sec = 1.0
    n_jobs = 0
    out: dict[str, list[Any]] = {name: [] for name in SERIES}
    now = {"arrivals": 0, "completions": 0}
    at_estimate: dict[str, Any] = {}
    watched: dict[str, Any] = {}  # the oldest expensive job named at the estimate
    drained_at = None
    # How long each job finished this second had waited since it arrived (queue + work).
    waits: list[float] = []
    waits_by_second: list[list[float]] = []

    def start(job: list[Any], t: float) -> None:
        if watched and job[0] == watched["id"]:
            watched["started_s"] = t
        push(done_at, (t + job[2] / p.units_per_s, job[0], job[2], job[1]))

    while True:
        t = min(next_arrival, done_at[0][0]) if done_at else next_arrival
        while t >= next_sec and next_sec <= horizon:
            out["arrivals"].append(now["arrivals"])
            out["completions"].append(now["completions"])
            out["units_done"].append(round(units_done, 3))
            out["backlog_jobs"].append(len(queue))
            out["backlog_units"].append(round(units_queued, 3))
            out["oldest_age_s"].append(round(next_sec - queue[0][1], 3) if queue else 0.0)
            out["oldest_expensive_age_s"].append(
                round(next_sec - expensive[0][1], 3) if expensive else 0.0
            )
            now["arrivals"] = now["completions"] = 0
            waits_by_second.append(waits)
            waits = []
            units_done = 0.0
            if next_sec >= p.incident_end_s and not at_estimate:
                in_service = sum(job[0] - next_sec for job in done_at) * p.units_per_s
                at_estimate = _estimate(p, next_sec, queue, expensive, in_service)
                if expensive:
                    watched.update(at_estimate["oldest_expensive_rows"][0])
                    watched["id"] = at_estimate["oldest_expensive_id"]
            elif at_estimate and drained_at is None and len(queue) <= p.workers:
                drained_at = next_sec
            next_sec += 1.0
        if t >= horizon:
            break
        if done_at and done_at[0][0] <= next_arrival:
            t, job_id, cost, arrived = pop(done_at)
            now["completions"] += 1
            waits.append(t - arrived)
            units_done += cost
            if watched and job_id == watched["id"]:
                watched["finished_s"] = t
            if queue:
                job = queue.popleft()
                units_queued -= job[2]
                if expensive and expensive[0] is job:
                    expensive.popleft()
                start(job, t)
            else:
                idle += 1
            continue
        t = next_arrival
        next_arrival = t - log(1.0 - rnd()) / p.arrival_rps
        n_jobs += 1
        now["arrivals"] += 1
        share = (
            p.incident_expensive_share
            if p.incident_start_s <= t < p.incident_end_s
            else p.expensive_share
        )
        job = [n_jobs, t, p.cost_ratio if rnd() < share else 1.0]
        if idle:
            idle -= 1
            start(job, t)
        else:
            queue.append(job)
            units_queued += job[2]
            if job[2] > 1.0:
                expensive.append(job)

    result = _result(p, out, at_estimate, watched, drained_at)
    result["series"].update(series_ms(waits_by_second, "latency"))
    on, off = int(p.incident_start_s), int(p.incident_end_s)
    windows = {"before": slice(0, on), "during": slice(on, off), "after": slice(off, None)}
    result["summary"].update(window_ms(waits_by_second, windows))
    return result


def _estimate(
    p: JobCostParams,
    t: float,
    queue: deque[list[Any]],
    expensive: deque[list[Any]],
    in_service_units: float,
) -> dict[str, Any]:
    """Both estimates, made from what the queue holds at `t`, and the job recovery waits on.

    `in_service_units` is the work still left in the jobs the workers hold right now.
    """
    jobs = len(queue)
    units = in_service_units + sum(job[2] for job in queue)
    capacity_units = p.workers * p.units_per_s
    # What the operator measured before the incident: jobs/s the pool finishes.
    capacity_jobs = capacity_units / p.normal_mean_cost
    net_jobs = capacity_jobs - p.arrival_rps
    net_units = capacity_units - p.arrival_rps * p.normal_mean_cost
    rows = []
    ahead = in_service_units
    wanted = {id(job) for job in list(expensive)[:OLDEST_ROWS]}
    for job in queue:
        if id(job) in wanted:
            rows.append(
                {
                    "job_id": f"job-{job[0]:06d}",
                    "cost_units": job[2],
                    "age_s": round(t - job[1], 3),
                    "work_ahead_units": round(ahead, 3),
                    "starts_in_s": round(ahead / capacity_units, 3),
                }
            )
            if len(rows) == len(wanted):
                break
        ahead += job[2]
    return {
        "at_s": t,
        "backlog_jobs": jobs,
        "backlog_units": round(units, 3),
        "count_estimate_s": round(jobs / net_jobs, 3) if net_jobs > 0 else None,
        "work_estimate_s": round(units / net_units, 3) if net_units > 0 else None,
        "oldest_expensive_id": expensive[0][0] if expensive else None,
        "oldest_expensive_rows": rows,
    }


def _result(
    p: JobCostParams,
    out: dict[str, list[Any]],
    est: dict[str, Any],
    watched: dict[str, Any],
    drained_at: float | None,
) -> dict[str, Any]:
    actual = None if drained_at is None or not est else round(drained_at - est["at_s"], 3)

    def error(estimate: float | None) -> float | None:
        if estimate is None or actual is None or actual == 0:
            return None
        return round(estimate / actual, 3)

    summary = {
        "normal_mean_cost_units": round(p.normal_mean_cost, 3),
        "capacity_units_per_s": round(p.workers * p.units_per_s, 3),
        "backlog_jobs_at_estimate": est.get("backlog_jobs", 0),
        "backlog_units_at_estimate": est.get("backlog_units", 0.0),
        "count_estimate_s": est.get("count_estimate_s"),
        "work_estimate_s": est.get("work_estimate_s"),
        "actual_drain_s": actual,
        "count_estimate_ratio": error(est.get("count_estimate_s")),
        "work_estimate_ratio": error(est.get("work_estimate_s")),
        "oldest_expensive_job": watched.get("job_id", ""),
        "oldest_expensive_age_s": watched.get("age_s", 0.0),
        "oldest_expensive_starts_in_s": watched.get("starts_in_s", 0.0),
        "oldest_expensive_started_after_s": round(watched["started_s"] - est["at_s"], 3)
        if "started_s" in watched
        else None,
    }
    series = {"second": list(range(len(out["arrivals"]))), **out}
    return {
        "summary": summary,
        "series": series,
        "tables": {"oldest_expensive": est.get("oldest_expensive_rows", [])},
    }


__all__ = ["PARAM_SPECS", "JobCostParams", "job_cost"]
