"""The provider-outage lab in production: an alarm on the oldest job's age, and a consumer
held to the provider's limit on calls at once.

CloudWatch's `put_metric_alarm` (`ApproximateAgeOfOldestMessage`, `TreatMissingData`),
Amazon SQS's `RedrivePolicy` (`maxReceiveCount`) and Lambda's
`ScalingConfig.MaximumConcurrency` (2 to 1000).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import DLQ_ARN, QUEUE_ARN, QUEUE_URL, lambda_concurrency
from labs.text import gettext, ngettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The provider-outage lab: a CloudWatch alarm on the oldest message's age, and a Lambda
    consumer held to the provider's limit on calls at once."""
    minutes = int(values["alarm_age_min"])
    threshold_s = minutes * 60
    alarm = (
        "import boto3\n\n"
        'boto3.client("cloudwatch").put_metric_alarm(\n'
        '    AlarmName="urgent-sms-oldest-job",\n'
        '    Namespace="AWS/SQS",\n'
        '    MetricName="ApproximateAgeOfOldestMessage",  # ' + gettext("seconds") + "\n"
        '    Dimensions=[{"Name": "QueueName", "Value": "urgent-sms"}],\n'
        '    Statistic="Maximum",\n'
        "    Period=60,\n"
        "    EvaluationPeriods=1,\n"
        f"    Threshold={threshold_s},  # "
        + ngettext("%(n)s minute", "%(n)s minutes", minutes)
        % {"n": minutes}
        + "\n"
        '    ComparisonOperator="GreaterThanOrEqualToThreshold",\n'
        '    TreatMissingData="notBreaching",  # ' + gettext("an empty queue sends no age") + "\n"
        '    AlarmActions=["arn:aws:sns:REGION:ACCOUNT_ID:on-call"],\n'
        ")\n"
    )
    most = lambda_concurrency(int(values["provider_limit"]))
    policy = json.dumps(
        {"deadLetterTargetArn": DLQ_ARN, "maxReceiveCount": int(values["max_receives"])}
    )
    mapping = (
        'boto3.client("sqs").set_queue_attributes(\n'
        f'    QueueUrl="{QUEUE_URL}",\n'
        f"    Attributes={{\"RedrivePolicy\": '{policy}'}},  # "
        + gettext("outlast an outage")
        + "\n"
        ")\n"
        'boto3.client("lambda").create_event_source_mapping(\n'
        '    FunctionName="send-sms",\n'
        f'    EventSourceArn="{QUEUE_ARN}",\n'
        '    FunctionResponseTypes=["ReportBatchItemFailures"],\n'
        f'    ScalingConfig={{"MaximumConcurrency": {most}}},  # '
        + gettext("no more than the provider allows")
        + "\n"
        ")\n"
    )
    return [
        Snippet("Amazon CloudWatch (boto3)", "python", alarm),
        Snippet("AWS Lambda", "python", mapping),
    ]
