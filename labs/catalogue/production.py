"""The "in production" snippets: a lab's current values as real systems configure them.

Each function takes the lab's values (defaults filled in) and returns `Snippet`s. Field
names follow each project's documentation: Amazon SQS `RedrivePolicy` (`maxReceiveCount`),
KEDA's `aws-sqs-queue` trigger (`queueLength`), Lambda's event source mapping
(`FunctionResponseTypes`, `ScalingConfig.MaximumConcurrency`), botocore's `retries`
(`total_max_attempts` counts the first call), pybreaker (`fail_max`, `reset_timeout`) and
resilience4j (`slidingWindowSize`, `waitDurationInOpenState`; a thread-pool bulkhead's
`queueCapacity`), CloudWatch's `put_metric_alarm` (`ApproximateAgeOfOldestMessage`,
`DatabaseConnections`), Application Auto Scaling's target tracking (`ScaleOutCooldown`),
SQLAlchemy's `pool_timeout` (seconds), HikariCP's `connectionTimeout` (milliseconds, 250 at
least) and PgBouncer's `default_pool_size`. Names, ARNs and URLs are placeholders; the page
marks every snippet as an example.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.text import gettext, ngettext

QUEUE_URL = "https://sqs.REGION.amazonaws.com/ACCOUNT_ID/jobs"
QUEUE_ARN = "arn:aws:sqs:REGION:ACCOUNT_ID:jobs"
DLQ_ARN = QUEUE_ARN + "-dlq"
# Lambda's MaximumConcurrency for an SQS source takes 2 to 1000.
LAMBDA_CONCURRENCY = (2, 1000)


def sqs_redrive(values: Mapping[str, Any]) -> list[Snippet]:
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


def keda_backlog(values: Mapping[str, Any]) -> list[Snippet]:
    """The drain lab's rule: KEDA for the backlog rule, a plain Deployment for a fixed pool."""
    if values["rule"] == "fixed":
        fixed = (
            "apiVersion: apps/v1\n"
            "kind: Deployment\n"
            "metadata:\n"
            "  name: workers\n"
            "spec:\n"
            f"  replicas: {int(values['fixed_workers'])}\n"
        )
        return [Snippet("Kubernetes", "yaml", fixed)]
    low, high = int(values["min_workers"]), int(values["max_workers"])
    most = min(max(high, LAMBDA_CONCURRENCY[0]), LAMBDA_CONCURRENCY[1])
    mapping = (
        'boto3.client("lambda").create_event_source_mapping(\n'
        '    FunctionName="worker",\n'
        f'    EventSourceArn="{QUEUE_ARN}",\n'
        f'    ScalingConfig={{"MaximumConcurrency": {most}}},  # '
        + gettext("allowed: 2 to 1000")
        + "\n"
        ")\n"
    )
    return [keda(int(values["per_waiting"]), low, high), Snippet("AWS Lambda", "python", mapping)]


# tenacity's waits for the labs' jitters. `wait_random_exponential` is full jitter (a
# uniform draw up to min(max, multiplier * 2 ** n)); `wait_exponential_jitter` is not: it
# adds up to `jitter` seconds (1 by default) to the plain wait. Equal jitter is half the
# plain wait plus a full-jitter draw over the other half; tenacity sums two waits with +.
# It has no decorrelated jitter: full jitter, its nearest, is written for that one.
_TENACITY_IMPORTS = {
    "full": "wait_random_exponential",
    "equal": "wait_exponential, wait_random_exponential",
    "decorrelated": "wait_random_exponential",
}


def _tenacity_wait(jitter: str, base_s: float, cap_s: float) -> str:
    if jitter == "equal":
        half = f"multiplier={base_s / 2:g}, max={cap_s / 2:g}"
        return f"wait_exponential({half}) + wait_random_exponential({half})"
    return f"wait_random_exponential(multiplier={base_s:g}, max={cap_s:g})"


def retries(values: Mapping[str, Any]) -> list[Snippet]:
    """A retrying client: botocore's standard mode and tenacity's capped, jittered waits
    (the retry storm's jitter kind where it has one)."""
    retries_n = int(values["attempts"])
    base_s, cap_s = values["base_ms"] / 1000, values["cap_ms"] / 1000
    jitter = values.get("jitter", "full")  # the backoff lab draws full jitter
    botocore = (
        "from botocore.config import Config\n\n"
        "config = Config(retries={\n"
        f'    "total_max_attempts": {retries_n + 1},  # '
        + ngettext("the first call + %(n)s retry", "the first call + %(n)s retries", retries_n)
        % {"n": retries_n}
        + "\n"
        '    "mode": "standard",  # '
        + gettext('or "adaptive": also slows down when throttled')
        + "\n"
        "})\n"
        "# " + gettext("botocore picks its own waits (full jitter, capped at 20 s).") + "\n"
    )
    tenacity = (
        f"from tenacity import retry, stop_after_attempt, {_TENACITY_IMPORTS[jitter]}\n\n"
        f"@retry(stop=stop_after_attempt({retries_n + 1}),\n"
        f"       wait={_tenacity_wait(jitter, base_s, cap_s)})\n"
        "def call_provider(): ...\n"
    )
    if jitter == "decorrelated":
        tenacity += (
            "# "
            + gettext("tenacity has no decorrelated jitter: full jitter is the nearest.")
            + "\n"
        )
    return [Snippet("botocore", "python", botocore), Snippet("tenacity", "python", tenacity)]


def breaker(values: Mapping[str, Any]) -> list[Snippet]:
    """The breaker lab's threshold and open time in pybreaker and resilience4j."""
    threshold, open_s = int(values["threshold"]), int(values["open_s"])
    pybreaker = (
        "import pybreaker\n\n"
        "provider_breaker = pybreaker.CircuitBreaker(\n"
        f"    fail_max={threshold},  # " + gettext("failures in a row before it opens") + "\n"
        f"    reset_timeout={open_s},  # " + gettext("seconds open before one trial call") + "\n"
        ")\n"
    )
    resilience4j = (
        "resilience4j.circuitbreaker:\n"
        "  instances:\n"
        "    provider:\n"
        "      slidingWindowType: COUNT_BASED\n"
        f"      slidingWindowSize: {threshold}\n"
        f"      minimumNumberOfCalls: {threshold}\n"
        "      failureRateThreshold: 100  # "
        + gettext("open when every call in the window failed")
        + "\n"
        f"      waitDurationInOpenState: {open_s}s\n"
        "      permittedNumberOfCallsInHalfOpenState: 1\n"
    )
    return [
        Snippet("pybreaker", "python", pybreaker),
        Snippet("resilience4j", "yaml", resilience4j),
    ]


def one_retrying_layer(values: Mapping[str, Any]) -> list[Snippet]:
    """The layered retries lab's advice: retries at the layer next to the service only."""
    attempts = int(values["attempts"])
    text = (
        "from botocore.config import Config\n\n"
        "# " + gettext("The layer next to the service: the only one that retries.") + "\n"
        "nearest = Config(retries={\n"
        f'    "total_max_attempts": {attempts},\n'
        '    "mode": "standard",  # '
        + gettext("stops retrying when its retry quota runs out")
        + "\n"
        "})\n"
        "# " + gettext("Every layer above it: one try, and the failure goes up at once.") + "\n"
        'above = Config(retries={"total_max_attempts": 1})\n'
    )
    return [Snippet("botocore", "python", text)]


def scaling_signal(values: Mapping[str, Any]) -> list[Snippet]:
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


def _hours(value: Any) -> str:
    """A retention period's comment: "72 hours", in the reader's language."""
    hours = int(value)
    return ngettext("%(n)s hour", "%(n)s hours", hours) % {"n": hours}


def sqs_retention(values: Mapping[str, Any]) -> list[Snippet]:
    """The retention lab's two periods as SQS takes them (seconds), the DLQ created first."""
    fifo = values["queue_type"] == "fifo"
    name = "jobs.fifo" if fifo else "jobs"
    dlq_name = "jobs-dlq.fifo" if fifo else "jobs-dlq"
    extra = '        "FifoQueue": "true",\n' if fifo else ""
    dlq_s, source_s = (
        int(values["dlq_retention_h"]) * 3600,
        int(values["source_retention_h"]) * 3600,
    )
    policy = json.dumps(
        {"deadLetterTargetArn": f"arn:aws:sqs:REGION:ACCOUNT_ID:{dlq_name}", "maxReceiveCount": 5}
    )
    text = (
        "import boto3\n\n"
        'sqs = boto3.client("sqs")\n'
        "# "
        + gettext("MessageRetentionPeriod is in seconds: 60 (1 minute) to 1209600 (14 days).")
        + "\n"
        "sqs.create_queue(\n"
        f'    QueueName="{dlq_name}",\n'
        "    Attributes={\n"
        f"{extra}"
        f'        "MessageRetentionPeriod": "{dlq_s}",  # '
        + _hours(values["dlq_retention_h"])
        + "\n"
        "    },\n"
        ")\n"
        "sqs.create_queue(\n"
        f'    QueueName="{name}",\n'
        "    Attributes={\n"
        f"{extra}"
        f'        "MessageRetentionPeriod": "{source_s}",  # '
        + _hours(values["source_retention_h"])
        + "\n"
        f"        \"RedrivePolicy\": '{policy}',\n"
        "    },\n"
        ")\n"
    )
    if not fifo:
        text += (
            "# "
            + gettext(
                "A standard queue's DLQ counts from the first enqueue: keep its period longer."
            )
            + "\n"
        )
    return [Snippet("Amazon SQS (boto3)", "python", text)]


def sqs_fifo(values: Mapping[str, Any]) -> list[Snippet]:
    """The FIFO lab's queue: a FIFO queue with a FIFO DLQ, and a send with a group and a
    deduplication id (SQS keeps one for 5 minutes; the lab's window is shorter)."""
    receives = int(values["max_receives"])
    visibility = max(1, round(float(values["visibility_timeout_s"])))
    policy = json.dumps(
        {
            "deadLetterTargetArn": "arn:aws:sqs:REGION:ACCOUNT_ID:updates-dlq.fifo",
            "maxReceiveCount": receives,
        }
    )
    text = (
        "import boto3\n\n"
        'sqs = boto3.client("sqs")\n'
        "# " + gettext("A FIFO queue's DLQ must be a FIFO queue too.") + "\n"
        'sqs.create_queue(QueueName="updates-dlq.fifo", Attributes={"FifoQueue": "true"})\n'
        "sqs.create_queue(\n"
        '    QueueName="updates.fifo",\n'
        "    Attributes={\n"
        '        "FifoQueue": "true",\n'
        '        "ContentBasedDeduplication": "false",  # ' + gettext("we send our own ids") + "\n"
        f'        "VisibilityTimeout": "{visibility}",  # ' + gettext("whole seconds in SQS") + "\n"
        f"        \"RedrivePolicy\": '{policy}',\n"
        "    },\n"
        ")\n"
        "sqs.send_message(\n"
        f'    QueueUrl="{QUEUE_URL.replace("/jobs", "/updates.fifo")}",\n'
        '    MessageBody=\'{"student": 1, "update": 2}\',\n'
        '    MessageGroupId="student-1",  # ' + gettext("order is kept within one student") + "\n"
        '    MessageDeduplicationId="student-1#2",  # '
        + gettext("a resend within 5 minutes is dropped")
        + "\n"
        ")\n"
    )
    return [Snippet("Amazon SQS FIFO (boto3)", "python", text)]


def worker_cap(values: Mapping[str, Any]) -> list[Snippet]:
    """The database-knee lab's cap: Lambda's maximum concurrency, KEDA's ceiling, and a
    PgBouncer pool that lets no more than the knee's queries reach the database."""
    cap = int(values["cap"])
    most = min(max(cap, LAMBDA_CONCURRENCY[0]), LAMBDA_CONCURRENCY[1])
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


def pool_wait(values: Mapping[str, Any]) -> list[Snippet]:
    """The pool-trap lab's pool: its size and the longest wait for a connection in
    SQLAlchemy and HikariCP, and a bulkhead's waiting room in resilience4j."""
    size = int(values["pool_size"])
    wait_ms = float(
        values["short_wait_ms"] if values["control"] == "short_wait" else values["pool_wait_ms"]
    )
    sqlalchemy = (
        "from sqlalchemy import create_engine\n\n"
        "engine = create_engine(\n"
        '    "postgresql+psycopg://USER@DB_HOST/jobs",\n'
        f"    pool_size={size},\n"
        "    max_overflow=0,  # " + gettext("never more connections than the pool") + "\n"
        f"    pool_timeout={wait_ms / 1000:g},  # "
        + gettext("seconds to wait for a connection")
        + "\n"
        ")\n"
    )
    hikari_ms = max(250, round(wait_ms))
    hikari = (
        f"maximumPoolSize={size}\n"
        "# " + gettext("milliseconds to wait for a connection; HikariCP accepts 250 or more") + "\n"
        f"connectionTimeout={hikari_ms}\n"
    )
    bulkhead = (
        "resilience4j.thread-pool-bulkhead:\n"
        "  instances:\n"
        "    database:\n"
        f"      maxThreadPoolSize: {size}\n"
        f"      coreThreadPoolSize: {size}\n"
        f"      queueCapacity: {int(values['bulkhead_waiters'])}  # "
        + gettext("more waiting are refused")
        + "\n"
    )
    return [
        Snippet("SQLAlchemy", "python", sqlalchemy),
        Snippet("HikariCP", "properties", hikari),
        Snippet("resilience4j", "yaml", bulkhead),
    ]


def oldest_age_alarm(values: Mapping[str, Any]) -> list[Snippet]:
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
    most = min(max(int(values["provider_limit"]), LAMBDA_CONCURRENCY[0]), LAMBDA_CONCURRENCY[1])
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
