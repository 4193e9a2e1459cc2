"""/metrics for the monitoring a school's IT already runs (Prometheus's text format).

Two kinds of figures, kept two ways (both through `prometheus_client`):

- **The queues** (depth, oldest waiting run, workers alive, runs started and finished by
  lab and status, failures by reason, run time and latency percentiles) are facts about
  the whole site, sampled once a second by the sweeper into Redis
  (`labs.runs.telemetry`). A custom collector reads them from there when scraped, so
  every web process on every machine answers the same figures and none keeps a copy.
- **HTTP requests** (count and latency by view) happen in each web process. Under
  gunicorn they are counted in `prometheus_client`'s multiprocess mode: each process
  writes its own memory-mapped files in `PROMETHEUS_MULTIPROC_DIR` (`./dev serve` makes
  it fresh at start) and a scrape adds them up; no network call per request, so a slow
  Redis never slows a page. Without that directory (runserver: one process) the
  process's own registry is read. Scrape each machine: its requests are its own, its
  queue figures the site's (aggregate them with max, not sum).

The token (`METRICS_TOKEN`, sent as `Authorization: Bearer <token>`) keeps the figures
for the monitor: with no token set the endpoint does not exist (404), and a wrong one is
answered the same way, so nothing tells a prober it is there.
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Callable, Iterator

import redis
from django.conf import settings
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from labs.runs import redis_clients, telemetry_store
from labs.runs.models import Run
from labs.runs.redis_memory import SHORT_OF_MEMORY_AT

REQUESTS = Counter(
    "qlab_http_requests_total", "HTTP requests answered, by view", ["view", "method", "status"]
)
LATENCY = Histogram(
    "qlab_http_request_seconds",
    "Time to answer an HTTP request, by view",
    ["view"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)


# HTTP's methods (RFC 9110, and PATCH): any other is counted as "other", or every made-up
# method a client sends would add a series of its own, without bound.
KNOWN_METHODS = frozenset(
    ("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH")
)


def method_label(method: str | None) -> str:
    return method if method in KNOWN_METHODS else "other"


class RequestMetrics:
    """Middleware: count every request and time it, labelled by the view's URL name (a
    bounded set, never the path, which holds run ids)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = (match.view_name if match else "") or "unmatched"
        LATENCY.labels(view).observe(time.perf_counter() - started)
        REQUESTS.labels(view, method_label(request.method), str(response.status_code)).inc()
        return response


class QueueCollector:
    """The queue figures, read from the sampler's snapshot in Redis when scraped."""

    def collect(self) -> Iterator[Metric]:
        snap = telemetry_store.snapshot()
        age = GaugeMetricFamily(
            "qlab_telemetry_snapshot_age_seconds",
            "Seconds since the sweeper's sampler last wrote the queue figures",
        )
        if snap is None:
            age.add_metric([], float("inf"))
            yield age
            return
        age.add_metric([], max(0.0, time.time() - snap["t"]))
        yield age
        yield from gauges(snap["queues"])
        yield from counters(telemetry_store.totals())
        active = GaugeMetricFamily(
            "qlab_runs_active",
            "Runs queued or running now, by lab and status",
            labels=["lab", "status"],
        )
        rows = Run.objects.active().values("lab", "status").annotate(n=Count("pk"))
        for row in rows:
            active.add_metric([row["lab"], row["status"]], row["n"])
        yield active


GAUGES = {
    "depth": ("qlab_queue_depth", "Runs waiting in the queue for a worker"),
    "oldest_s": ("qlab_queue_oldest_age_seconds", "Age of the oldest run waiting in the queue"),
    "front_oldest_s": (
        "qlab_queue_front_age_seconds",
        "Age of the oldest run sent at priority 0 (every class's next run waits behind it)",
    ),
    "messages": ("qlab_queue_messages", "Messages in the queue's lists on the broker"),
    "workers": ("qlab_workers_alive", "Workers that beat for the queue in the last 3 s"),
    "arrived_per_s": ("qlab_queue_arrived_per_second", "Runs queued per second (last 10 s)"),
    "started_per_s": ("qlab_queue_started_per_second", "Runs taken per second (last 10 s)"),
    "finished_per_s": ("qlab_queue_finished_per_second", "Runs ended per second (last 10 s)"),
}
QUANTILES = {
    "run_s": ("qlab_run_seconds", "Run time (start to finish) over a window, by quantile"),
    "latency_s": ("qlab_run_latency_seconds", "Submit to finish over a window, by quantile"),
}


class RedisMemoryCollector:
    """How full each Redis is, read at the scrape: a full one evicts the cache's pages or
    refuses writes, and the site says "short of memory", never "no runner is up"."""

    def collect(self) -> Iterator[Metric]:
        used = GaugeMetricFamily(
            "qlab_redis_used_memory_bytes", "Redis used_memory", labels=["redis"]
        )
        most = GaugeMetricFamily(
            "qlab_redis_maxmemory_bytes", "Redis maxmemory (0: none)", labels=["redis"]
        )
        short = GaugeMetricFamily(
            "qlab_redis_short_of_memory",
            f"1 when used memory is at {SHORT_OF_MEMORY_AT:.0%} of maxmemory or more",
            labels=["redis"],
        )
        evicted = CounterMetricFamily(
            "qlab_redis_evicted_keys", "Keys Redis evicted for memory", labels=["redis"]
        )
        for name, url in (("broker", settings.REDIS_URL), ("cache", settings.CACHE_REDIS_URL)):
            try:
                info = redis_clients.health(url).info()
            except redis.RedisError:
                continue  # /healthz/deep says a Redis is down; here only memory is told
            limit = int(info.get("maxmemory", 0))
            in_use = int(info.get("used_memory", 0))
            used.add_metric([name], in_use)
            most.add_metric([name], limit)
            short.add_metric([name], float(bool(limit) and in_use >= SHORT_OF_MEMORY_AT * limit))
            evicted.add_metric([name], int(info.get("evicted_keys", 0)))
        yield from (used, most, short, evicted)


def gauges(queues: dict) -> Iterator[Metric]:
    for field, (name, help_text) in GAUGES.items():
        family = GaugeMetricFamily(name, help_text, labels=["queue"])
        for queue, figures in sorted(queues.items()):
            value = figures.get(field)
            family.add_metric([queue], 0.0 if value is None else float(value))
        yield family
    for field, (name, help_text) in QUANTILES.items():
        family = GaugeMetricFamily(name, help_text, labels=["queue", "window", "quantile"])
        for queue, figures in sorted(queues.items()):
            for window, spread in (figures.get(field) or {}).items():
                for quantile in ("p50", "p95", "p99"):
                    value = (spread or {}).get(quantile)
                    if value is not None:
                        family.add_metric([queue, window, f"0.{quantile[1:]}"], float(value))
        yield family


def counters(totals: dict[str, int]) -> Iterator[Metric]:
    started = CounterMetricFamily("qlab_runs_started", "Runs taken by a worker", labels=["queue"])
    finished = CounterMetricFamily(
        "qlab_runs_finished", "Runs ended, by lab and status", labels=["queue", "lab", "status"]
    )
    failed = CounterMetricFamily(
        "qlab_run_failures", "Runs failed, by reason", labels=["queue", "reason"]
    )
    for name, value in sorted(totals.items()):
        kind, *labels = name.split("|")
        family = {"started": started, "finished": finished, "failed": failed}.get(kind)
        if family is not None:
            family.add_metric(labels, value)
    yield from (started, finished, failed)


@require_GET
@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    token = settings.METRICS_TOKEN
    sent = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if not token or not hmac.compare_digest(sent.encode(), token.encode()):
        raise Http404("not here")
    queues = CollectorRegistry()
    queues.register(QueueCollector())
    queues.register(RedisMemoryCollector())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        requests = CollectorRegistry()
        MultiProcessCollector(requests)
    else:
        requests = REGISTRY
    body = generate_latest(requests) + generate_latest(queues)
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
