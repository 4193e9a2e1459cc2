"""Lesson 13: health checks, shallow or deep, behind a load balancer.

Several instances share one database. One instance is sick: its process is up but every
request it handles fails, and fails fast. The database blips for a few seconds.

A shallow check asks only "is the process up?": the sick instance passes and keeps its
share of the traffic. A deep check also asks the database: the sick instance is taken out,
but during the blip every instance fails its check and the load balancer has nobody left
to send to, for longer than the blip (it needs several passing checks to trust one again).
A load balancer that sends to the instance with the fewest requests in progress gives a
fast-failing instance nearly all the traffic, because its requests finish at once.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Check = Literal["shallow", "deep"]
Balance = Literal["round_robin", "least_outstanding"]


class Second(NamedTuple):
    second: int
    in_rotation: int  # instances the load balancer sends to
    failed_share: float  # share of this second's requests that failed
    sick_share: float  # share of the traffic the sick instance received


def shares(latencies_ms: list[float], balance: Balance) -> list[float]:
    """Each instance's share of the traffic: equal, or in proportion to 1 / latency (an
    instance whose requests finish sooner has fewer in progress, so it is picked more)."""
    if not latencies_ms:
        return []
    if balance == "round_robin":
        return [1 / len(latencies_ms)] * len(latencies_ms)
    speeds = [1 / latency for latency in latencies_ms]
    return [s / sum(speeds) for s in speeds]


def simulate(
    *,
    instances: int,
    check: Check,
    balance: Balance,
    seconds: int,
    interval_s: int,
    unhealthy_after: int,
    healthy_after: int,
    db_down_from_s: int,
    db_down_until_s: int,
    healthy_ms: float,
    sick_ms: float,
) -> list[Second]:
    """One row per second. Instance 0 is the sick one; checks run every `interval_s`."""
    if instances < 1 or seconds < 1 or interval_s < 1 or min(unhealthy_after, healthy_after) < 1:
        raise ValueError("instances, seconds, interval and thresholds must be >= 1")
    if healthy_ms <= 0 or sick_ms <= 0:
        raise ValueError("latencies must be > 0")
    in_rotation = [True] * instances
    fails = [0] * instances
    passes = [0] * instances
    rows = []
    for t in range(seconds):
        db_down = db_down_from_s <= t < db_down_until_s
        if t % interval_s == 0:
            for i in range(instances):
                ok = i != 0 and not db_down if check == "deep" else True
                fails[i], passes[i] = (0, passes[i] + 1) if ok else (fails[i] + 1, 0)
                if in_rotation[i] and fails[i] >= unhealthy_after:
                    in_rotation[i] = False
                elif not in_rotation[i] and passes[i] >= healthy_after:
                    in_rotation[i] = True
        live = [i for i in range(instances) if in_rotation[i]]
        split = shares([sick_ms if i == 0 else healthy_ms for i in live], balance)
        by_instance = dict(zip(live, split, strict=True))
        if not live:
            failed = 1.0
        elif db_down:
            failed = 1.0  # every instance needs the database
        else:
            failed = by_instance.get(0, 0.0)
        rows.append(Second(t, len(live), failed, by_instance.get(0, 0.0)))
    return rows
