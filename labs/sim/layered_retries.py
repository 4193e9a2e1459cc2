"""Lesson 13: where retries live. Every layer retrying multiplies the calls that reach a
sick service; one retrying layer, or a retry budget, keeps them near one per click.

A click goes down a chain of `layers` callers to the service. Each caller makes up to
`attempts` tries of the call below it. With every layer retrying and the service down,
the service gets attempts ** layers calls for one click (3 × 3 × 3 = 27). With only the
layer next to the service retrying, it gets `attempts`. With a retry budget, each layer
retries at most `budget` retries per call it receives (e.g. 0.1: one retry for every ten
calls, as Finagle and gRPC's retry throttling do), however sick the service is.

The figures are expectations for a service that fails each call with probability
`failure`, independently: fine for comparing the policies, not a queueing model.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Policy = Literal["every_layer", "one_layer", "budget"]
POLICIES: tuple[Policy, ...] = ("every_layer", "one_layer", "budget")


class Outcome(NamedTuple):
    """What one click costs the service, and how often it succeeds, on average."""

    service_calls: float  # calls that reach the service per click
    success: float  # share of clicks that end with an answer


def _layer(calls_below: float, fail_below: float, attempts: int, budget: float | None):
    """One caller over a callee that costs `calls_below` and fails with `fail_below`.

    Returns (service calls per call to this layer, this layer's failure probability).
    With a budget, the layer wants `wanted` retries per call but may spend only `budget`:
    a share `served` of its calls get every retry, the rest get none (the tokens ran out).
    """
    retries_wanted = sum(fail_below**i for i in range(1, attempts))
    served = 1.0
    if budget is not None and retries_wanted > budget:
        served = budget / retries_wanted
    tries = 1 + served * retries_wanted
    fail = served * fail_below**attempts + (1 - served) * fail_below
    return tries * calls_below, fail


def outcome(policy: Policy, layers: int, attempts: int, failure: float, budget: float) -> Outcome:
    """Expected service calls per click and the share of clicks answered."""
    if layers < 1 or attempts < 1 or not 0 <= failure <= 1 or budget < 0:
        raise ValueError("need layers >= 1, attempts >= 1, 0 <= failure <= 1, budget >= 0")
    calls, fail = 1.0, failure  # the service itself: one call, fails with `failure`
    for depth in range(layers):
        nearest = depth == 0
        if policy == "every_layer":
            calls, fail = _layer(calls, fail, attempts, None)
        elif policy == "one_layer":
            calls, fail = _layer(calls, fail, attempts if nearest else 1, None)
        else:
            calls, fail = _layer(calls, fail, attempts, budget)
    return Outcome(calls, 1 - fail)
