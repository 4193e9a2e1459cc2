"""The drain comparison in production: its first backlog rule, as KEDA runs it.

KEDA's `aws-sqs-queue` trigger (`queueLength`, `minReplicaCount`, `maxReplicaCount`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import keda


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The first backlog rule of the comparison, as KEDA runs it."""
    return [
        keda(
            int(values["per_waiting"][0]),
            int(values["min_workers"]),
            int(values["max_workers"][0]),
        )
    ]
