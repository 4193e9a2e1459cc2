"""The poison-messages lab in production: its maxReceiveCount as SQS and a Lambda consumer
take it.

Amazon SQS's `RedrivePolicy` (`deadLetterTargetArn`, `maxReceiveCount`), `VisibilityTimeout`
and the DLQ's `MessageRetentionPeriod`; Lambda's `FunctionResponseTypes`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import DLQ_ARN, QUEUE_ARN, QUEUE_URL
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The redrive lab's maxReceiveCount, as SQS and a Lambda consumer take it."""
    receives = int(values["max_receives"])
    policy = json.dumps({"deadLetterTargetArn": DLQ_ARN, "maxReceiveCount": receives})
    sqs = (
        "import boto3\n\n"
        'sqs = boto3.client("sqs")\n'
        "sqs.set_queue_attributes(\n"
        f'    QueueUrl="{QUEUE_URL}",\n'
        "    Attributes={\n"
        f"        \"RedrivePolicy\": '{policy}',\n"
        '        "VisibilityTimeout": "60",  # ' + gettext("longer than one job takes") + "\n"
        "    },\n"
        ")\n"
        "# " + gettext("The DLQ should keep messages longer than the source queue does:") + "\n"
        "sqs.set_queue_attributes(\n"
        f'    QueueUrl="{QUEUE_URL}-dlq",\n'
        '    Attributes={"MessageRetentionPeriod": "1209600"},  # '
        + gettext("14 days, the most SQS keeps")
        + "\n"
        ")\n"
    )
    mapping = (
        'boto3.client("lambda").create_event_source_mapping(\n'
        '    FunctionName="make-pdf",\n'
        f'    EventSourceArn="{QUEUE_ARN}",\n'
        "    BatchSize=10,\n"
        '    FunctionResponseTypes=["ReportBatchItemFailures"],  # '
        + gettext("retry only the failed ones")
        + "\n"
        ")\n"
    )
    return [Snippet("Amazon SQS (boto3)", "python", sqs), Snippet("AWS Lambda", "python", mapping)]
