"""The target-tracking lab in production: an EC2 Auto Scaling group that target-tracks the
queue's backlog per instance (metric math: `ApproximateNumberOfMessagesVisible` ÷
`GroupInServiceInstances`), with the group's `MinSize` and `MaxSize`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.sim.target_tracking import backlog_target
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """Target tracking on backlog per instance, at the target the student's values give."""
    target = backlog_target(values["acceptable_latency_s"], values["per_worker"])
    text = (
        'autoscaling = boto3.client("autoscaling")\n'
        "autoscaling.update_auto_scaling_group(\n"
        '    AutoScalingGroupName="workers",\n'
        f"    MinSize={int(values['min_workers'])},\n"
        f"    MaxSize={int(values['max_workers'])},\n"
        ")\n"
        "autoscaling.put_scaling_policy(\n"
        '    AutoScalingGroupName="workers",\n'
        '    PolicyName="workers-on-backlog-per-instance",\n'
        '    PolicyType="TargetTrackingScaling",\n'
        "    TargetTrackingConfiguration={\n"
        '        "CustomizedMetricSpecification": {\n'
        '            "Metrics": [\n'
        '                {"Id": "waiting", "ReturnData": False, "MetricStat": {\n'
        '                    "Metric": {"Namespace": "AWS/SQS",\n'
        '                               "MetricName": "ApproximateNumberOfMessagesVisible",\n'
        '                               "Dimensions": [{"Name": "QueueName", "Value": "jobs"}]},\n'
        '                    "Stat": "Sum"}},\n'
        '                {"Id": "instances", "ReturnData": False, "MetricStat": {\n'
        '                    "Metric": {"Namespace": "AWS/AutoScaling",\n'
        '                               "MetricName": "GroupInServiceInstances",\n'
        '                               "Dimensions": [{"Name": "AutoScalingGroupName",\n'
        '                                               "Value": "workers"}]},\n'
        '                    "Stat": "Average"}},\n'
        '                {"Id": "per_instance", "Expression": "waiting / instances",\n'
        '                 "Label": "backlog per instance", "ReturnData": True},\n'
        "            ]\n"
        "        },\n"
        f'        "TargetValue": {target},  # '
        + gettext("acceptable wait ÷ time per message")
        + "\n"
        "    },\n"
        ")\n"
    )
    return [Snippet("EC2 Auto Scaling (boto3)", "python", text)]
