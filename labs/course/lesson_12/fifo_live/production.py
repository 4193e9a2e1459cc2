"""The live FIFO lab in production: a FIFO queue with its FIFO DLQ, and a send with a group
and a deduplication id.

Amazon SQS's `FifoQueue`, `ContentBasedDeduplication`, `VisibilityTimeout` (whole seconds),
`RedrivePolicy`, `MessageGroupId` and `MessageDeduplicationId` (kept 5 minutes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import QUEUE_URL
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The FIFO lab's queue: a FIFO queue with a FIFO DLQ, and a send with a group and a
    deduplication id (SQS keeps one for 5 minutes; the lab's window is shorter)."""
    receives = int(values["max_receives"])
    visibility = max(1, round(float(values["visibility_timeout_s"])))
    policy = json.dumps(
        {
            "deadLetterTargetArn": "arn:aws:sqs:REGION:ACCOUNT_ID:updates-dlq.fifo",
            "maxReceiveCount": receives,
        }
    )
    text = (
        "import boto3\n\n"
        'sqs = boto3.client("sqs")\n'
        "# " + gettext("A FIFO queue's DLQ must be a FIFO queue too.") + "\n"
        'sqs.create_queue(QueueName="updates-dlq.fifo", Attributes={"FifoQueue": "true"})\n'
        "sqs.create_queue(\n"
        '    QueueName="updates.fifo",\n'
        "    Attributes={\n"
        '        "FifoQueue": "true",\n'
        '        "ContentBasedDeduplication": "false",  # ' + gettext("we send our own ids") + "\n"
        f'        "VisibilityTimeout": "{visibility}",  # ' + gettext("whole seconds in SQS") + "\n"
        f"        \"RedrivePolicy\": '{policy}',\n"
        "    },\n"
        ")\n"
        "sqs.send_message(\n"
        f'    QueueUrl="{QUEUE_URL.replace("/jobs", "/updates.fifo")}",\n'
        '    MessageBody=\'{"student": 1, "update": 2}\',\n'
        '    MessageGroupId="student-1",  # ' + gettext("order is kept within one student") + "\n"
        '    MessageDeduplicationId="student-1#2",  # '
        + gettext("a resend within 5 minutes is dropped")
        + "\n"
        ")\n"
    )
    return [Snippet("Amazon SQS FIFO (boto3)", "python", text)]
