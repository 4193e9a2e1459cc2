"""The fan-out lab in production: its deadline as a worker count, for Lambda and a fixed pool.

Lambda's event source mapping (`ScalingConfig.MaximumConcurrency`) and a Kubernetes
Deployment's `replicas`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import deployment, lambda_mapping


def workers_needed(jobs: int, rate_per_s: float, deadline_min: float) -> int:
    """Workers that finish `jobs` at `rate_per_s` each within the deadline: N / (R × T)."""
    return max(1, math.ceil(jobs / (rate_per_s * deadline_min * 60)))


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The fan-out lab's deadline as a worker count, for Lambda and for a fixed pool."""
    needed = workers_needed(int(values["jobs"]), values["rates"][0], values["deadline_min"])
    return [lambda_mapping("send-sms", workers=needed), deployment("sms-workers", needed)]
