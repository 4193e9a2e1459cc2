"""The live burst in production: the scaled pool as KEDA, the fixed pool as a Deployment.

KEDA's `aws-sqs-queue` trigger (`queueLength`) and a Kubernetes Deployment's `replicas`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import deployment, keda


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The live burst: the scaled pool as KEDA, the fixed pool as a Deployment."""
    return [
        keda(int(values["per_waiting"]), int(values["min_workers"]), int(values["max_workers"])),
        deployment("workers-fixed", int(values["fixed_workers"])),
    ]
