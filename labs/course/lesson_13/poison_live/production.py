"""The live poison lab in production: the queue's redrive and its Lambda consumer.

Amazon SQS's `RedrivePolicy` (`maxReceiveCount`; the lab tries 1, 3 and 5, 3 is shown)
and Lambda's event source mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import lambda_mapping, redrive


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The live poison lab (it tries maxReceiveCount 1, 3 and 5; 3 is shown)."""
    return [
        redrive(3, values["visibility_timeout_s"]),
        lambda_mapping("make-pdf", workers=int(values["workers"])),
    ]
