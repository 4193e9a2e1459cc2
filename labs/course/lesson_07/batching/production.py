"""The batching lab in production: messages per call, and no more workers than the provider
allows.

Lambda's `BatchSize` and `ScalingConfig.MaximumConcurrency`; botocore's `adaptive` retry
mode.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import lambda_mapping
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The batching lab: messages per call, and no more workers than the provider allows."""
    batch = int(values["batch"])
    call_s = (values["call_ms"] + batch * values["per_message_ms"]) / 1000
    # Workers that keep the provider at its limit; any more are only throttled.
    useful = max(1, math.ceil(values["limit_per_s"] * call_s / batch))
    workers = min(int(values["workers"]), useful)
    botocore = (
        "from botocore.config import Config\n\n"
        "# " + gettext("adaptive: also slows down by itself when the provider throttles") + "\n"
        'config = Config(retries={"mode": "adaptive", "total_max_attempts": 3})\n'
    )
    return [
        lambda_mapping("send-sms-batch", workers=workers, batch=batch),
        Snippet("botocore", "python", botocore),
    ]
