"""The drain lab in production: its scaling rule as KEDA and Lambda take it, or a fixed pool.

KEDA's `aws-sqs-queue` trigger (`queueLength`), Lambda's
`ScalingConfig.MaximumConcurrency` (2 to 1000) and a Kubernetes Deployment's `replicas`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import QUEUE_ARN, deployment, keda, lambda_concurrency
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The drain lab's rule: KEDA for the backlog rule, a plain Deployment for a fixed pool."""
    if values["rule"] == "fixed":
        return [deployment("workers", int(values["fixed_workers"]))]
    low, high = int(values["min_workers"]), int(values["max_workers"])
    most = lambda_concurrency(high)
    mapping = (
        'boto3.client("lambda").create_event_source_mapping(\n'
        '    FunctionName="worker",\n'
        f'    EventSourceArn="{QUEUE_ARN}",\n'
        f'    ScalingConfig={{"MaximumConcurrency": {most}}},  # '
        + gettext("allowed: 2 to 1000")
        + "\n"
        ")\n"
    )
    return [keda(int(values["per_waiting"]), low, high), Snippet("AWS Lambda", "python", mapping)]
