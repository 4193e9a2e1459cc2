""" "In production" for the queue labs (lessons 07 and 12): workers, batches and redelivery.

The same settings as Amazon SQS, Lambda's event source mapping, KEDA and Celery spell
them, from the student's values. Field names as each project documents them: Lambda's
`BatchSize` (more than 10 needs `MaximumBatchingWindowInSeconds` of at least 1),
`FunctionResponseTypes` and `ScalingConfig.MaximumConcurrency` (2 to 1000); SQS's
`VisibilityTimeout` (whole seconds) and `RedrivePolicy.maxReceiveCount`; KEDA's
`aws-sqs-queue` trigger (`queueLength`); Celery's `worker_concurrency`, `task_acks_late`
and the Redis transport's `visibility_timeout`. The comments are for the student, so they
are translated; the code stays as the systems take it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.production import DLQ_ARN, LAMBDA_CONCURRENCY, QUEUE_ARN, QUEUE_URL, keda
from labs.text import gettext, given, num

# Lambda takes up to 10,000 messages a batch from a standard queue.
LAMBDA_MAX_BATCH = 10_000


def _concurrency(workers: int) -> int:
    return min(max(workers, LAMBDA_CONCURRENCY[0]), LAMBDA_CONCURRENCY[1])


def _whole_seconds(seconds: float) -> int:
    """SQS and Celery take whole seconds; the live labs run faster than life."""
    return max(1, math.ceil(seconds))


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
    most = _concurrency(workers)
    note = gettext("%(n)s workers at once (Lambda allows 2 to 1000)") % {"n": num(most)}
    lines.append(f'    ScalingConfig={{"MaximumConcurrency": {most}}},  # {note}')
    lines.append(")")
    return Snippet("AWS Lambda (boto3)", "python", "\n".join(lines) + "\n")


def _deployment(name: str, replicas: int) -> Snippet:
    text = (
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata:\n"
        f"  name: {name}\n"
        "spec:\n"
        f"  replicas: {replicas}\n"
    )
    return Snippet("Kubernetes", "yaml", text)


def workers_needed(jobs: int, rate_per_s: float, deadline_min: float) -> int:
    """Workers that finish `jobs` at `rate_per_s` each within the deadline: N / (R × T)."""
    return max(1, math.ceil(jobs / (rate_per_s * deadline_min * 60)))


def fanout(values: Mapping[str, Any]) -> list[Snippet]:
    """The fan-out lab's deadline as a worker count, for Lambda and for a fixed pool."""
    needed = workers_needed(int(values["jobs"]), values["rates"][0], values["deadline_min"])
    return [lambda_mapping("send-sms", workers=needed), _deployment("sms-workers", needed)]


def batching(values: Mapping[str, Any]) -> list[Snippet]:
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


def fanout_live(values: Mapping[str, Any]) -> list[Snippet]:
    """The live fan-out lab: redelivery after the visibility timeout, in Celery and SQS."""
    seconds = _whole_seconds(values["visibility_timeout_s"])
    lab = gettext("the lab's %(s)s s, in whole seconds") % {
        "s": given(values["visibility_timeout_s"])
    }
    celery = (
        "# celeryconfig.py\n"
        f"worker_concurrency = {int(values['workers'])}\n"
        "task_acks_late = True  # " + gettext("acknowledge after the work, not before") + "\n"
        f'broker_transport_options = {{"visibility_timeout": {seconds}}}  # {lab}\n'
    )
    sqs = (
        'boto3.client("sqs").set_queue_attributes(\n'
        f'    QueueUrl="{QUEUE_URL}",\n'
        f'    Attributes={{"VisibilityTimeout": "{seconds}"}},  # {lab}\n'
        ")\n"
    )
    return [Snippet("Celery", "python", celery), Snippet("Amazon SQS (boto3)", "python", sqs)]


def drain_compare(values: Mapping[str, Any]) -> list[Snippet]:
    """The first backlog rule of the comparison, as KEDA runs it."""
    return [
        keda(
            int(values["per_waiting"][0]),
            int(values["min_workers"]),
            int(values["max_workers"][0]),
        )
    ]


def burst_live(values: Mapping[str, Any]) -> list[Snippet]:
    """The live burst: the scaled pool as KEDA, the fixed pool as a Deployment."""
    return [
        keda(int(values["per_waiting"]), int(values["min_workers"]), int(values["max_workers"])),
        _deployment("workers-fixed", int(values["fixed_workers"])),
    ]


def redrive(receives: int, visibility_s: float) -> Snippet:
    """The queue's redrive policy and visibility timeout, as SQS takes them."""
    seconds = _whole_seconds(visibility_s)
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


def poison_live(values: Mapping[str, Any]) -> list[Snippet]:
    """The live poison lab (it tries maxReceiveCount 1, 3 and 5; 3 is shown)."""
    return [
        redrive(3, values["visibility_timeout_s"]),
        lambda_mapping("make-pdf", workers=int(values["workers"])),
    ]


def retries_live(values: Mapping[str, Any]) -> list[Snippet]:
    """The live retries lab: tries inside one receive (tenacity), receives before the DLQ."""
    attempts = int(values["attempts"])
    tenacity = (
        "from tenacity import retry, stop_after_attempt, wait_random_exponential\n\n"
        "# " + gettext("full jitter: a random wait up to the doubling backoff") + "\n"
        f"@retry(stop=stop_after_attempt({attempts}),\n"
        f"       wait=wait_random_exponential(multiplier={values['base_s']:g}, "
        f"max={values['cap_s']:g}))\n"
        "def charge_fee(payment): ...\n"
    )
    return [
        Snippet("tenacity", "python", tenacity),
        redrive(int(values["max_receives"]), values["visibility_timeout_s"]),
    ]


def answer_fast(values: Mapping[str, Any]) -> list[Snippet]:
    """The queued way in Django and Celery: save, queue once the row is committed, answer 201;
    the task sends the batches and retries with jittered backoff while the provider is down."""
    timeout = f"{values['call_timeout_ms'] / 1000:g}"
    code = (
        "from celery import shared_task\n"
        "from django.http import JsonResponse\n\n\n"
        "@shared_task(\n"
        "    acks_late=True,\n"
        "    autoretry_for=(ProviderDown,),\n"
        "    retry_backoff=True,  # "
        + gettext("a pause that doubles after each failure, jittered")
        + "\n"
        "    retry_backoff_max=30,\n"
        "    max_retries=None,\n"
        ")\n"
        "def send_notice(notice_id):\n"
        "    notice = Notice.objects.get(pk=notice_id)\n"
        "    for batch in notice.unsent_batches(size=500):\n"
        f"        provider.send(batch, timeout={timeout})\n"
        "        batch.mark_sent()  # "
        + gettext("a retry skips the batches already sent")
        + "\n\n\n"
        "def post_notice(request):\n"
        '    notice = Notice.objects.create(text=request.POST["text"])\n'
        "    # " + gettext("queued only once the notice is committed; then answer at once") + "\n"
        "    send_notice.delay_on_commit(notice.pk)\n"
        '    return JsonResponse({"id": notice.pk}, status=201)\n'
    )
    return [Snippet("Django + Celery", "python", code)]
