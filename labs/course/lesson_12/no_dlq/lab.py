"""The no-DLQ lab: its entry in the catalogue, the predictions it asks for, and its SQS settings."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet, TryNext
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, Values, yes_no
from labs.catalogue.production import QUEUE_ARN, QUEUE_URL
from labs.course.lesson_12.no_dlq import charts, run
from labs.text import gettext, gettext_noop


def _figures_in_words(summary: Values, params: Values) -> dict[str, Any]:
    return {
        "arrived": params["arrive_per_s"] * params["duration_s"],
        "share_pct": round(100 * summary["poison_worker_share"], 1),
    }


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        "final_backlog",
        gettext_noop("How many good messages will be waiting at the end of the run?"),
        gettext_noop(
            "%(arrived)s good messages arrived and %(good_done)s were done; "
            "%(final_backlog)s were still waiting at the end. The poison messages were "
            "received %(poison_receives)s times and took %(share_pct)s%% of the workers' "
            "time from second %(poison_at_s)s."
        ),
        high=6000,
        step=50,
        unit=gettext_noop("messages"),
        extra=_figures_in_words,
    ),
    Prompt(
        "drained",
        gettext_noop("Will the backlog of good messages be empty at the end?"),
        gettext_noop(
            "%(in_dlq)s poison messages reached the DLQ and they took %(share_pct)s%% of "
            "the workers' time from second %(poison_at_s)s; %(final_backlog)s good "
            "messages were waiting at the end."
        ),
        choices=yes_no(
            gettext_noop("Yes, the backlog empties"), gettext_noop("No, messages still wait")
        ),
        extra=_figures_in_words,
    ),
)


def sqs_settings(values: Mapping[str, Any]) -> list[Snippet]:
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


LAB = Lab.of(
    run.RUNNER,
    slug="no-dlq",
    unit="lesson-12",
    title=gettext_noop("No dead-letter queue: poison messages retried for ever"),
    intro=gettext_noop(
        "A few messages fail on every receive. Without a DLQ they come back after each "
        "visibility timeout and keep the workers from the good messages behind them."
    ),
    charts=charts.build,
    try_next=(
        TryNext(
            gettext_noop(
                "Set maxReceiveCount to 3: do the poison messages leave, and does the "
                "backlog empty?"
            ),
            {"max_receives": 3},
        ),
        TryNext(
            gettext_noop(
                "Make it a FIFO queue with 1 good message a second (one group moves one "
                "message at a time): what happens behind the poison message?"
            ),
            {"fifo": True, "arrive_per_s": 1},
        ),
    ),
    in_production=sqs_settings,
    prompts=PROMPTS,
)
