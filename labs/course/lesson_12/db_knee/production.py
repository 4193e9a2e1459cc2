"""The database-knee lab in production: no more workers, and no more queries at once, than the
database's knee.

Lambda's `ScalingConfig.MaximumConcurrency` (2 to 1000), KEDA's `maxReplicaCount`,
PgBouncer's `default_pool_size` and `max_client_conn`, and CloudWatch's `put_metric_alarm`
on RDS's `DatabaseConnections`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import keda, lambda_concurrency
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The database-knee lab's cap: Lambda's maximum concurrency, KEDA's ceiling, and a
    PgBouncer pool that lets no more than the knee's queries reach the database."""
    cap = int(values["cap"])
    most = lambda_concurrency(cap)
    mapping = (
        'boto3.client("lambda").update_event_source_mapping(\n'
        '    UUID="EVENT_SOURCE_MAPPING_UUID",\n'
        f'    ScalingConfig={{"MaximumConcurrency": {most}}},  # '
        + gettext("allowed: 2 to 1000")
        + "\n"
        ")\n"
    )
    pgbouncer = (
        "[databases]\n"
        "jobs = host=DB_HOST dbname=jobs\n\n"
        "[pgbouncer]\n"
        "pool_mode = transaction\n"
        f"default_pool_size = {int(values['knee'])}  # "
        + gettext("queries the database runs at once")
        + "\n"
        f"max_client_conn = {max(int(values['max_workers']), cap)}"
        "  # " + gettext("workers that may connect; past the pool they wait here") + "\n"
    )
    near_limit = max(1, int(values["max_connections"]) * 8 // 10)
    alarm = (
        'boto3.client("cloudwatch").put_metric_alarm(\n'
        '    AlarmName="jobs-db-connections-near-limit",\n'
        '    Namespace="AWS/RDS",\n'
        '    MetricName="DatabaseConnections",\n'
        '    Dimensions=[{"Name": "DBInstanceIdentifier", "Value": "jobs-db"}],\n'
        '    Statistic="Maximum",\n'
        "    Period=60,\n"
        "    EvaluationPeriods=1,\n"
        f"    Threshold={near_limit},  # "
        + gettext("%(pct)s%% of max_connections")
        % {"pct": 80}
        + "\n"
        '    ComparisonOperator="GreaterThanThreshold",\n'
        ")\n"
    )
    return [
        Snippet("AWS Lambda", "python", mapping),
        keda(
            int(values["per_waiting"]),
            1,
            cap,
            name="workers-within-the-database",
            per_worker_note=False,
            high_note=gettext("no more than the database's knee"),
        ),
        Snippet("PgBouncer", "ini", pgbouncer),
        Snippet("Amazon CloudWatch (boto3)", "python", alarm),
    ]
