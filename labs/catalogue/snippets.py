"""The pieces several labs' "in production" snippets are built from.

A lab's own snippet lives in its folder (`labs/course/<unit>/<lab>/production.py`); what
two or more of them write the same way is here, so a placeholder or a system's limit is
spelled once: the queue's placeholder names, KEDA's `aws-sqs-queue` ScaledObject
(`queueLength`), a Lambda event source mapping (`BatchSize`, more than 10 needing
`MaximumBatchingWindowInSeconds` of at least 1; `FunctionResponseTypes`;
`ScalingConfig.MaximumConcurrency`, 2 to 1000), a Kubernetes Deployment's `replicas`, and
SQS's `RedrivePolicy` (`maxReceiveCount`) with its `VisibilityTimeout` (whole seconds).
Names, ARNs and URLs are placeholders; the page marks every snippet as an example. The
comments are for the student, so they are translated; the code stays as the systems take it.
"""

from __future__ import annotations

import json
import math

from labs.catalogue.advice import Snippet
from labs.text import gettext, given, num

QUEUE_URL = "https://sqs.REGION.amazonaws.com/ACCOUNT_ID/jobs"
QUEUE_ARN = "arn:aws:sqs:REGION:ACCOUNT_ID:jobs"
DLQ_ARN = QUEUE_ARN + "-dlq"
# The service the calling labs' clients ask (timeouts, deadline, cascade).
RESULTS_URL = "https://results.example/api/results"
# Lambda's MaximumConcurrency for an SQS source takes 2 to 1000.
LAMBDA_CONCURRENCY = (2, 1000)
# Lambda takes up to 10,000 messages a batch from a standard queue.
LAMBDA_MAX_BATCH = 10_000


def lambda_concurrency(workers: int) -> int:
    """`workers` as Lambda's MaximumConcurrency takes it: the nearest value it allows."""
    return min(max(workers, LAMBDA_CONCURRENCY[0]), LAMBDA_CONCURRENCY[1])


def whole_seconds(seconds: float) -> int:
    """SQS and Celery take whole seconds; the live labs run faster than life."""
    return max(1, math.ceil(seconds))


def seconds_code(seconds: float) -> str:
    """Seconds as Python code writes them: 1, 0.5, 2.25."""
    return f"{seconds:g}"


def keda(
    per_waiting: int,
    low: int,
    high: int,
    *,
    name: str = "workers-on-backlog",
    per_worker_note: bool = True,
    high_note: str = "",
) -> Snippet:
    """KEDA's ScaledObject for "one worker per K waiting", between a floor and a ceiling:
    the one backlog rule every lab that scales on its queue writes out."""
    high_line = f"  maxReplicaCount: {high}" + (f"  # {high_note}" if high_note else "")
    length_note = "  # " + gettext("messages per worker") if per_worker_note else ""
    text = (
        "apiVersion: keda.sh/v1alpha1\n"
        "kind: ScaledObject\n"
        "metadata:\n"
        f"  name: {name}\n"
        "spec:\n"
        "  scaleTargetRef:\n"
        "    name: workers\n"
        f"  minReplicaCount: {low}\n"
        f"{high_line}\n"
        "  triggers:\n"
        "    - type: aws-sqs-queue\n"
        "      metadata:\n"
        f"        queueURL: {QUEUE_URL}\n"
        f'        queueLength: "{per_waiting}"{length_note}\n'
        "        awsRegion: REGION\n"
    )
    return Snippet("KEDA", "yaml", text)


def lambda_mapping(
    function: str, *, workers: int, batch: int = 10, report_failures: bool = True
) -> Snippet:
    """A Lambda consumer of the queue: batch size, partial failures, at most `workers`."""
    batch = min(max(batch, 1), LAMBDA_MAX_BATCH)
    lines = [
        'boto3.client("lambda").create_event_source_mapping(',
        f'    FunctionName="{function}",',
        f'    EventSourceArn="{QUEUE_ARN}",',
        f"    BatchSize={batch},",
    ]
    if batch > 10:
        lines.append(
            "    MaximumBatchingWindowInSeconds=1,  # "
            + gettext("needed for a batch of more than 10")
        )
    if report_failures:
        lines.append(
            '    FunctionResponseTypes=["ReportBatchItemFailures"],  # '
            + gettext("only the failed messages come back")
        )
    most = lambda_concurrency(workers)
    note = gettext("%(n)s workers at once (Lambda allows 2 to 1000)") % {"n": num(most)}
    lines.append(f'    ScalingConfig={{"MaximumConcurrency": {most}}},  # {note}')
    lines.append(")")
    return Snippet("AWS Lambda (boto3)", "python", "\n".join(lines) + "\n")


def deployment(name: str, replicas: int) -> Snippet:
    """A fixed pool of workers: a Kubernetes Deployment with this many replicas."""
    text = (
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata:\n"
        f"  name: {name}\n"
        "spec:\n"
        f"  replicas: {replicas}\n"
    )
    return Snippet("Kubernetes", "yaml", text)


def redrive(receives: int, visibility_s: float) -> Snippet:
    """The queue's redrive policy and visibility timeout, as SQS takes them."""
    seconds = whole_seconds(visibility_s)
    policy = json.dumps({"deadLetterTargetArn": DLQ_ARN, "maxReceiveCount": receives})
    lab = gettext("the lab's %(s)s s, in whole seconds") % {"s": given(visibility_s)}
    text = (
        'boto3.client("sqs").set_queue_attributes(\n'
        f'    QueueUrl="{QUEUE_URL}",\n'
        "    Attributes={\n"
        f"        \"RedrivePolicy\": '{policy}',\n"
        f'        "VisibilityTimeout": "{seconds}",  # {lab}\n'
        "    },\n"
        ")\n"
    )
    return Snippet("Amazon SQS (boto3)", "python", text)
