"""The live retries lab in production: tries inside one receive, receives before the DLQ.

tenacity's `stop_after_attempt` and `wait_random_exponential` (full jitter); Amazon SQS's
`RedrivePolicy` (`maxReceiveCount`) with its `VisibilityTimeout`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import redrive
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The live retries lab: tries inside one receive (tenacity), receives before the DLQ."""
    attempts = int(values["attempts"])
    tenacity = (
        "from tenacity import retry, stop_after_attempt, wait_random_exponential\n\n"
        "# " + gettext("full jitter: a random wait up to the doubling backoff") + "\n"
        f"@retry(stop=stop_after_attempt({attempts}),\n"
        f"       wait=wait_random_exponential(multiplier={values['base_s']:g}, "
        f"max={values['cap_s']:g}))\n"
        "def charge_fee(payment): ...\n"
    )
    return [
        Snippet("tenacity", "python", tenacity),
        redrive(int(values["max_receives"]), values["visibility_timeout_s"]),
    ]
