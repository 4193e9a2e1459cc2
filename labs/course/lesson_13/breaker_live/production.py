"""The live breaker lab in production: one breaker state in Redis for every worker, and the
queue's redrive.

pybreaker's `CircuitBreaker(fail_max, reset_timeout, state_storage=CircuitRedisStorage(...))`
and Amazon SQS's `RedrivePolicy` with its `VisibilityTimeout`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import redrive, seconds_code
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The live breaker: one breaker state in Redis for every worker, and the queue's redrive."""
    text = (
        "import pybreaker\n"
        "import redis\n\n"
        "# " + gettext("the state lives in Redis, so it opens for every worker at once") + "\n"
        "payments_breaker = pybreaker.CircuitBreaker(\n"
        f"    fail_max={int(values['fail_max'])},\n"
        f"    reset_timeout={seconds_code(values['reset_timeout_s'])},\n"
        "    state_storage=pybreaker.CircuitRedisStorage(\n"
        '        pybreaker.STATE_CLOSED, redis.Redis(), namespace="payments"\n'
        "    ),\n"
        ")\n"
    )
    return [
        Snippet("pybreaker", "python", text),
        redrive(int(values["max_receives"]), values["visibility_timeout_s"]),
    ]
