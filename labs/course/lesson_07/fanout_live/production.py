"""The live fan-out lab in production: redelivery after the visibility timeout.

Celery's `worker_concurrency`, `task_acks_late` and the Redis transport's
`visibility_timeout`; Amazon SQS's `VisibilityTimeout` (whole seconds).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import QUEUE_URL, whole_seconds
from labs.text import gettext, given


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The live fan-out lab: redelivery after the visibility timeout, in Celery and SQS."""
    seconds = whole_seconds(values["visibility_timeout_s"])
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
