"""The retention lab in production: the source queue's and the DLQ's retention periods.

Amazon SQS's `MessageRetentionPeriod` (seconds, 60 to 1209600), `FifoQueue` and
`RedrivePolicy`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.text import gettext, ngettext


def _hours(value: Any) -> str:
    """A retention period's comment: "72 hours", in the reader's language."""
    hours = int(value)
    return ngettext("%(n)s hour", "%(n)s hours", hours) % {"n": hours}


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The retention lab's two periods as SQS takes them (seconds), the DLQ created first."""
    fifo = values["queue_type"] == "fifo"
    name = "jobs.fifo" if fifo else "jobs"
    dlq_name = "jobs-dlq.fifo" if fifo else "jobs-dlq"
    extra = '        "FifoQueue": "true",\n' if fifo else ""
    dlq_s, source_s = (
        int(values["dlq_retention_h"]) * 3600,
        int(values["source_retention_h"]) * 3600,
    )
    policy = json.dumps(
        {"deadLetterTargetArn": f"arn:aws:sqs:REGION:ACCOUNT_ID:{dlq_name}", "maxReceiveCount": 5}
    )
    text = (
        "import boto3\n\n"
        'sqs = boto3.client("sqs")\n'
        "# "
        + gettext("MessageRetentionPeriod is in seconds: 60 (1 minute) to 1209600 (14 days).")
        + "\n"
        "sqs.create_queue(\n"
        f'    QueueName="{dlq_name}",\n'
        "    Attributes={\n"
        f"{extra}"
        f'        "MessageRetentionPeriod": "{dlq_s}",  # '
        + _hours(values["dlq_retention_h"])
        + "\n"
        "    },\n"
        ")\n"
        "sqs.create_queue(\n"
        f'    QueueName="{name}",\n'
        "    Attributes={\n"
        f"{extra}"
        f'        "MessageRetentionPeriod": "{source_s}",  # '
        + _hours(values["source_retention_h"])
        + "\n"
        f"        \"RedrivePolicy\": '{policy}',\n"
        "    },\n"
        ")\n"
    )
    if not fifo:
        text += (
            "# "
            + gettext(
                "A standard queue's DLQ counts from the first enqueue: keep its period longer."
            )
            + "\n"
        )
    return [Snippet("Amazon SQS (boto3)", "python", text)]
