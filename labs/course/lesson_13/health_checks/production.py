"""The health-check lab in production: how often, how many failures out and passes back in,
and how the balancer picks an instance.

An Application Load Balancer's target group (`HealthCheckIntervalSeconds` 5 to 300,
`HealthyThresholdCount` and `UnhealthyThresholdCount` 2 to 10,
`load_balancing.algorithm.type`) and Kubernetes' `readinessProbe` (`periodSeconds`,
`failureThreshold`, `successThreshold`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.text import gettext

TARGET_GROUP_ARN = "arn:aws:elasticloadbalancing:REGION:ACCOUNT_ID:targetgroup/api/ID"
# An Application Load Balancer's limits for these fields.
ALB_INTERVAL_S = (5, 300)
ALB_THRESHOLD = (2, 10)


def _within(value: int, bounds: tuple[int, int]) -> int:
    return min(max(value, bounds[0]), bounds[1])


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The health-check lab: how often, how many failures out and passes back in, and how
    the balancer picks an instance."""
    interval = int(values["interval_s"])
    down, up = int(values["unhealthy_after"]), int(values["healthy_after"])
    algorithm = (
        "least_outstanding_requests" if values["balance"] == "least_outstanding" else "round_robin"
    )
    alb_interval = _within(interval, ALB_INTERVAL_S)
    alb_down, alb_up = _within(down, ALB_THRESHOLD), _within(up, ALB_THRESHOLD)
    lines = [
        'elbv2 = boto3.client("elbv2")',
        "elbv2.modify_target_group(",
        f'    TargetGroupArn="{TARGET_GROUP_ARN}",',
        '    HealthCheckPath="/healthz",  # '
        + gettext("shallow: is the process up, not the database"),
        f"    HealthCheckIntervalSeconds={alb_interval},",
        f"    UnhealthyThresholdCount={alb_down},",
        f"    HealthyThresholdCount={alb_up},",
        ")",
        "elbv2.modify_target_group_attributes(",
        f'    TargetGroupArn="{TARGET_GROUP_ARN}",',
        f'    Attributes=[{{"Key": "load_balancing.algorithm.type", "Value": "{algorithm}"}}],',
        ")",
    ]
    if (alb_interval, alb_down, alb_up) != (interval, down, up):
        lines.append(
            "# "
            + gettext("a load balancer takes 5 to 300 s and 2 to 10 checks: nearest values shown")
        )
    probe = (
        "readinessProbe:\n"
        "  httpGet:\n"
        "    path: /healthz\n"
        "    port: 8000\n"
        f"  periodSeconds: {interval}\n"
        f"  failureThreshold: {down}\n"
        f"  successThreshold: {up}\n"
    )
    return [
        Snippet("Elastic Load Balancing (boto3)", "python", "\n".join(lines) + "\n"),
        Snippet("Kubernetes", "yaml", probe),
    ]
