"""The scaling-signal lab in production: scale on backlog per worker, alarm on the oldest
message's age, and the CPU policy that I/O-bound workers never trip.

KEDA's `aws-sqs-queue` trigger (`queueLength`), CloudWatch's `put_metric_alarm`
(`ApproximateAgeOfOldestMessage`) and Application Auto Scaling's target tracking
(`TargetValue`, `ScaleOutCooldown`, `ScaleInCooldown`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import keda
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The scaling-signal lab: KEDA on backlog per worker, an alarm on the oldest message's
    age, and the CPU target-tracking policy that I/O-bound workers never trip."""
    low, high = int(values["min_workers"]), int(values["max_workers"])
    age_s = max(1, round(values["age_target_s"]))
    alarm = (
        'boto3.client("cloudwatch").put_metric_alarm(\n'
        '    AlarmName="jobs-oldest-message-too-old",\n'
        '    Namespace="AWS/SQS",\n'
        '    MetricName="ApproximateAgeOfOldestMessage",\n'
        '    Dimensions=[{"Name": "QueueName", "Value": "jobs"}],\n'
        '    Statistic="Maximum",\n'
        "    Period=60,\n"
        "    EvaluationPeriods=1,\n"
        f"    Threshold={age_s},  # " + gettext("seconds the oldest message has waited") + "\n"
        '    ComparisonOperator="GreaterThanThreshold",\n'
        ")\n"
    )
    cooldown = int(values["cooldown_s"])
    cpu = (
        "# " + gettext("For CPU-bound work only: I/O-bound workers never reach the target.") + "\n"
        'boto3.client("application-autoscaling").put_scaling_policy(\n'
        '    PolicyName="workers-on-cpu",\n'
        '    ServiceNamespace="ecs",\n'
        '    ResourceId="service/CLUSTER/workers",\n'
        '    ScalableDimension="ecs:service:DesiredCount",\n'
        '    PolicyType="TargetTrackingScaling",\n'
        "    TargetTrackingScalingPolicyConfiguration={\n"
        f'        "TargetValue": {float(values["cpu_target_pct"]):g},\n'
        '        "PredefinedMetricSpecification": {\n'
        '            "PredefinedMetricType": "ECSServiceAverageCPUUtilization"\n'
        "        },\n"
        f'        "ScaleOutCooldown": {cooldown},\n'
        f'        "ScaleInCooldown": {cooldown},\n'
        "    },\n"
        ")\n"
    )
    return [
        keda(int(values["per_waiting"]), low, high, name="workers-on-backlog-per-worker"),
        Snippet("Amazon CloudWatch (boto3)", "python", alarm),
        Snippet("Application Auto Scaling (boto3)", "python", cpu),
    ]
