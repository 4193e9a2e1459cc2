"""The no-dlq lab's queue as SQS takes it, from the student's values."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import QUEUE_ARN, QUEUE_URL
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The lab's queue as SQS takes it: a visibility timeout, and a redrive policy or none."""
    fifo = bool(values["fifo"])
    suffix = ".fifo" if fifo else ""  # a FIFO queue's name, and its DLQ's, end in .fifo
    # SQS takes whole seconds: a part second is rounded up, never shorter than the lab's.
    attributes = [f'        "VisibilityTimeout": "{math.ceil(values["visibility_s"])}",']
    if values["max_receives"]:
        policy = json.dumps(
            {
                "deadLetterTargetArn": f"{QUEUE_ARN}-dlq{suffix}",
                "maxReceiveCount": int(values["max_receives"]),
            }
        )
        attributes.append(f"        \"RedrivePolicy\": '{policy}',")
    else:
        no_policy = gettext("No RedrivePolicy: a message that always fails comes back for ever")
        attributes.append(f"        # {no_policy}")
    text = (
        "import boto3\n\n"
        'sqs = boto3.client("sqs")\n'
        "sqs.set_queue_attributes(\n"
        f'    QueueUrl="{QUEUE_URL}{suffix}",\n'
        "    Attributes={\n" + "\n".join(attributes) + "\n    },\n)\n"
    )
    if fifo:
        text += (
            "# " + gettext("One message group for every message: one at a time, in order") + "\n"
            f'sqs.send_message(QueueUrl="{QUEUE_URL}{suffix}", MessageBody="...", '
            'MessageGroupId="all", MessageDeduplicationId="job-1")\n'
        )
    return [Snippet("Amazon SQS (boto3)", "python", text)]
