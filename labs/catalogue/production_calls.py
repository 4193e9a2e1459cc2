""" "In production" for the calling labs (lesson 13 and Assignment 05): timeouts, retries,
breakers, health checks and caches, from the student's values.

Names as each project documents them: botocore's `Config(connect_timeout=,
read_timeout=, retries={"total_max_attempts", "mode"})`; requests' `timeout=(connect,
read)`; tenacity's `stop_after_attempt`, `stop_after_delay` and `wait_random_exponential`
(full jitter); gunicorn's `timeout`; pybreaker's `CircuitBreaker(fail_max, reset_timeout,
state_storage=CircuitRedisStorage(...))`; an Application Load Balancer's target group
(`HealthCheckIntervalSeconds` 5 to 300, `HealthyThresholdCount` and
`UnhealthyThresholdCount` 2 to 10, `load_balancing.algorithm.type`); Kubernetes'
`readinessProbe` (`periodSeconds`, `failureThreshold`, `successThreshold`); Envoy's
`circuit_breakers.thresholds.retry_budget` (`budget_percent`, `min_retry_concurrency`);
nginx's `proxy_cache_valid`, `proxy_cache_lock`, `proxy_cache_lock_timeout`,
`proxy_cache_use_stale` and `proxy_cache_background_update`; and the Cache-Control
extensions `stale-while-revalidate` and `stale-if-error` (RFC 5861). The comments are for
the student, so they are translated; the code stays as the systems take it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.production_queues import redrive
from labs.text import gettext, num

URL = "https://results.example/api/results"
TARGET_GROUP_ARN = "arn:aws:elasticloadbalancing:REGION:ACCOUNT_ID:targetgroup/api/ID"
# An Application Load Balancer's limits for these fields.
ALB_INTERVAL_S = (5, 300)
ALB_THRESHOLD = (2, 10)


def _s(seconds: float) -> str:
    """Seconds as Python code writes them: 1, 0.5, 2.25."""
    return f"{seconds:g}"


def _within(value: int, bounds: tuple[int, int]) -> int:
    return min(max(value, bounds[0]), bounds[1])


def timeouts(values: Mapping[str, Any]) -> list[Snippet]:
    """The timeouts lab: the caller stops waiting after this long, in two clients."""
    t = _s(values["timeout_ms"] / 1000)
    requests = (
        "import requests\n\n"
        "# "
        + gettext("(connect, read) in seconds; without a timeout requests waits forever")
        + "\n"
        f'requests.get("{URL}", timeout=({t}, {t}))\n'
    )
    botocore = (
        "from botocore.config import Config\n\n"
        f"config = Config(connect_timeout={t}, read_timeout={t})\n"
    )
    return [Snippet("requests", "python", requests), Snippet("botocore", "python", botocore)]


def deadline(values: Mapping[str, Any]) -> list[Snippet]:
    """The deadline lab: connect and read timeouts, tries and waits inside one deadline,
    and a service that gives up by itself."""
    attempts = int(values["attempts"])
    connect, read = _s(values["connect_s"]), _s(values["read_s"])
    whole_s = _s(values["deadline_s"])
    client = (
        "import requests\n"
        "from tenacity import retry, stop_after_attempt, stop_after_delay, "
        "wait_random_exponential\n\n"
        "# " + gettext("stop at the last try or at the deadline, whichever comes first") + "\n"
        f"@retry(stop=stop_after_attempt({attempts}) | stop_after_delay({whole_s}),\n"
        f"       wait=wait_random_exponential(multiplier={_s(values['base_s'])}, "
        f"max={_s(values['cap_s'])}))\n"
        "def get_results():\n"
        f'    return requests.get("{URL}", timeout=({connect}, {read}))\n'
    )
    callee_s = max(1, math.ceil(values["callee_timeout_s"]))
    server = (
        "# gunicorn.conf.py\n"
        "# "
        + gettext("a request still running after this many seconds is stopped (sync workers)")
        + "\n"
        f"timeout = {callee_s}\n"
    )
    if values["callee_timeout_s"] > values["deadline_s"]:
        server += (
            "# "
            + gettext("longer than the caller's deadline: work goes on after the caller left")
            + "\n"
        )
    return [Snippet("tenacity + requests", "python", client), Snippet("gunicorn", "python", server)]


def degradation(values: Mapping[str, Any]) -> list[Snippet]:
    """The degradation lab: serve the last saved page while the service fails."""
    nginx = (
        "proxy_cache_path /var/cache/nginx keys_zone=results:10m inactive=1d;\n\n"
        "location /results/ {\n"
        "    proxy_pass http://results-service;\n"
        "    proxy_cache results;\n"
        "    proxy_cache_valid 200 1m;\n"
        "    # " + gettext("while the service fails, answer with the saved page") + "\n"
        "    proxy_cache_use_stale error timeout http_500 http_502 http_503 http_504;\n"
        "}\n"
    )
    snippets = [Snippet("nginx", "nginx", nginx)]
    if values["limit_age"]:
        limit = int(values["max_stale_s"])
        django = (
            "from django.utils.cache import patch_cache_control\n\n"
            "# "
            + gettext("no page older than %(n)s s past its freshness (RFC 5861)")
            % {"n": num(limit)}
            + "\n"
            f"patch_cache_control(response, max_age=60, stale_if_error={limit})\n"
        )
        snippets.append(Snippet("Django", "python", django))
    return snippets


def health_checks(values: Mapping[str, Any]) -> list[Snippet]:
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


def breaker_live(values: Mapping[str, Any]) -> list[Snippet]:
    """The live breaker: one breaker state in Redis for every worker, and the queue's redrive."""
    text = (
        "import pybreaker\n"
        "import redis\n\n"
        "# " + gettext("the state lives in Redis, so it opens for every worker at once") + "\n"
        "payments_breaker = pybreaker.CircuitBreaker(\n"
        f"    fail_max={int(values['fail_max'])},\n"
        f"    reset_timeout={_s(values['reset_timeout_s'])},\n"
        "    state_storage=pybreaker.CircuitRedisStorage(\n"
        '        pybreaker.STATE_CLOSED, redis.Redis(), namespace="payments"\n'
        "    ),\n"
        ")\n"
    )
    return [
        Snippet("pybreaker", "python", text),
        redrive(int(values["max_receives"]), values["visibility_timeout_s"]),
    ]


def trapped(values: Mapping[str, Any]) -> list[Snippet]:
    """Assignment 05's clients: one retrying layer with the caller's timeout, and a retry
    budget where every caller passes through one proxy."""
    attempts, layers = int(values["max_attempts"]), int(values["retry_layers"])
    timeout = _s(values["client_timeout_ms"] / 1000)
    now = gettext("now %(layers)s layers × %(n)s attempts: up to %(cap)s a call") % {
        "layers": layers,
        "n": attempts,
        "cap": num(attempts**layers),
    }
    botocore = (
        "from botocore.config import Config\n\n"
        "# " + gettext("the layer next to the service: the only one that retries") + "\n"
        "nearest = Config(\n"
        f"    read_timeout={timeout},\n"
        f'    retries={{"total_max_attempts": {attempts}, "mode": "standard"}},\n'
        ")\n"
        "# " + gettext("every layer above it: one try, the failure goes up at once") + "\n"
        'above = Config(retries={"total_max_attempts": 1})\n'
    )
    if layers > 1:
        botocore += f"# {now}\n"
    percent = round(float(values["retry_budget"]) * 100, 1)
    envoy = (
        "# " + gettext("Envoy cluster: retries may be at most this share of active requests") + "\n"
        "circuit_breakers:\n"
        "  thresholds:\n"
        "    - retry_budget:\n"
        f"        budget_percent: {{value: {percent:g}}}\n"
        "        min_retry_concurrency: 3\n"
    )
    return [Snippet("botocore", "python", botocore), Snippet("Envoy", "yaml", envoy)]


def phase_map(values: Mapping[str, Any]) -> list[Snippet]:
    """The phase map's callers: their timeout and attempts, as one client."""
    return [
        Snippet(
            "botocore",
            "python",
            "from botocore.config import Config\n\n"
            "config = Config(\n"
            f"    read_timeout={_s(values['client_timeout_ms'] / 1000)},\n"
            f'    retries={{"total_max_attempts": {int(values["max_attempts"])}, '
            '"mode": "standard"},\n'
            ")\n",
        )
    ]


def cold_cache(values: Mapping[str, Any]) -> list[Snippet]:
    """The cold-cache lab in nginx: freshness, one fetch per key, stale copies."""
    ttl = max(1, math.ceil(values["ttl_s"]))
    lines = [
        "location /reading-list/ {",
        "    proxy_pass http://origin;",
        "    proxy_cache lists;",
        f"    proxy_cache_valid 200 {ttl}s;",
    ]
    if values["coalescing"] != "none":
        lock_ms = int(values["client_timeout_ms"])
        lines += [
            "    # " + gettext("one fetch per key; the others wait for it (within one server)"),
            "    proxy_cache_lock on;",
            f"    proxy_cache_lock_timeout {lock_ms}ms;",
        ]
    if values["serve_stale"]:
        lines += [
            "    # " + gettext("serve the expired copy while one fetch renews it"),
            "    proxy_cache_use_stale updating error timeout;",
            "    proxy_cache_background_update on;",
        ]
    lines.append("}")
    snippets = [Snippet("nginx", "nginx", "\n".join(lines) + "\n")]
    if values["serve_stale"]:
        header = (
            f"Cache-Control: max-age={ttl}, stale-while-revalidate={int(values['stale_max_s'])}\n"
        )
        snippets.append(Snippet("HTTP (RFC 5861)", "http", header))
    return snippets


def cascade(values: Mapping[str, Any]) -> list[Snippet]:
    """The cascade's four tools in one service: a timeout on the call, a breaker in front of
    it, a cached page when either fails; and the callers' jittered retries."""
    timeout = _s(values["dependency_timeout_ms"] / 1000)
    service = (
        "import pybreaker\n"
        "import requests\n\n"
        "grades_breaker = pybreaker.CircuitBreaker(\n"
        f"    fail_max={int(values['breaker_threshold'])},\n"
        f"    reset_timeout={int(values['breaker_open_s'])},\n"
        ")\n\n\n"
        "@grades_breaker\n"
        "def fetch_grades(student_id):\n"
        "    # " + gettext("a thread waits at most this long for the grades service") + "\n"
        f'    answer = requests.get("{URL}", params={{"student": student_id}}, '
        f"timeout=({timeout}, {timeout}))\n"
        "    answer.raise_for_status()\n"
        "    return answer.json()\n\n\n"
        "def grades_page(student_id, cache):\n"
        "    try:\n"
        "        return fetch_grades(student_id)\n"
        "    except (requests.RequestException, pybreaker.CircuitBreakerError):\n"
        "        # " + gettext("the fallback: the last saved page, shown with its age") + "\n"
        '        return cache.get(f"grades:{student_id}")\n'
    )
    attempts = int(values["caller_retries"]) + 1
    caller = (
        "from tenacity import retry, stop_after_attempt, wait_random_exponential\n\n\n"
        "# " + gettext("full jitter: a random wait up to 0.1 × 2^attempt s, at most 3.2 s") + "\n"
        f"@retry(stop=stop_after_attempt({attempts}), "
        "wait=wait_random_exponential(multiplier=0.1, max=3.2))\n"
        "def open_results_page(session, url):\n"
        f"    return session.get(url, timeout={_s(values['caller_timeout_ms'] / 1000)})\n"
    )
    return [
        Snippet("pybreaker + requests", "python", service),
        Snippet("tenacity", "python", caller),
    ]
