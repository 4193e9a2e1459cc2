"""The breaker lab in production: its threshold and open time in two breaker libraries.

pybreaker's `fail_max` and `reset_timeout`; resilience4j's `slidingWindowSize`,
`failureRateThreshold` and `waitDurationInOpenState`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The breaker lab's threshold and open time in pybreaker and resilience4j."""
    threshold, open_s = int(values["threshold"]), int(values["open_s"])
    pybreaker = (
        "import pybreaker\n\n"
        "provider_breaker = pybreaker.CircuitBreaker(\n"
        f"    fail_max={threshold},  # " + gettext("failures in a row before it opens") + "\n"
        f"    reset_timeout={open_s},  # " + gettext("seconds open before one trial call") + "\n"
        ")\n"
    )
    resilience4j = (
        "resilience4j.circuitbreaker:\n"
        "  instances:\n"
        "    provider:\n"
        "      slidingWindowType: COUNT_BASED\n"
        f"      slidingWindowSize: {threshold}\n"
        f"      minimumNumberOfCalls: {threshold}\n"
        "      failureRateThreshold: 100  # "
        + gettext("open when every call in the window failed")
        + "\n"
        f"      waitDurationInOpenState: {open_s}s\n"
        "      permittedNumberOfCallsInHalfOpenState: 1\n"
    )
    return [
        Snippet("pybreaker", "python", pybreaker),
        Snippet("resilience4j", "yaml", resilience4j),
    ]
