""" "In production": every lab with a real-world setting shows it, spelled from the
student's values, and the Python snippets run against the real libraries."""

from __future__ import annotations

import json
import re

import pytest
from django.http import HttpResponse

from labs.catalogue.entries import LABS, get_lab

# Labs whose idea is no setting of any real system, each with the reason.
NO_REAL_SETTING = {
    "busy-minute": "backlog arithmetic for a fixed capacity",
    "at-least-once": "idempotency is code (check before acting), not a setting",
    "idempotent-charges": "idempotency is code (check before acting), not a setting",
    "availability": "the arithmetic of copies and chains",
    "drain-math": "the drain estimate is arithmetic",
    "job-cost": "an estimate made by counting work, not a setting",
    "queued-read": "its advice is to leave the queue out: the view answers the read itself",
}


def snippets(slug, **changes):
    lab = get_lab(slug)
    return lab.in_production(lab.defaults() | changes)


def text(slug, **changes):
    return "\n".join(s.text for s in snippets(slug, **changes))


def test_every_lab_shows_its_settings_or_says_why_it_has_none():
    missing = [lab.slug for lab in LABS if lab.in_production is None]
    assert sorted(missing) == sorted(NO_REAL_SETTING), (
        "give these labs an in_production (labs/catalogue/production*.py) "
        "or add them to NO_REAL_SETTING with the reason"
    )


@pytest.mark.parametrize(
    "lab", [lab for lab in LABS if lab.in_production], ids=lambda lab: lab.slug
)
def test_every_python_snippet_compiles(lab):
    for snippet in lab.in_production(lab.defaults()):
        assert snippet.text.strip()
        if snippet.language == "python":
            compile(snippet.text, f"{lab.slug}: {snippet.system}", "exec")


@pytest.mark.parametrize(
    ("slug", "changes", "expected"),
    [
        # 5,000,000 jobs at 50/s each within 30 minutes: ceil(5e6 / (50 × 1800)) = 56.
        ("fanout", {"deadline_min": 30.0}, 'ScalingConfig={"MaximumConcurrency": 56}'),
        ("fanout", {"deadline_min": 30.0}, "  replicas: 56"),
        ("fanout", {"deadline_min": 1.0}, '{"MaximumConcurrency": 1000}'),  # Lambda's most
        ("batching", {"batch": 500}, "    BatchSize=500,"),
        ("batching", {"batch": 500}, "    MaximumBatchingWindowInSeconds=1,"),
        # 10,000/s allowed, a call of 500 takes 20 + 50 ms: 2 workers keep the provider full.
        ("batching", {"batch": 500}, '{"MaximumConcurrency": 2}'),
        ("fanout-live", {"workers": 7}, "worker_concurrency = 7"),
        ("fanout-live", {"visibility_timeout_s": 2.5}, '{"visibility_timeout": 3}'),
        ("drain-compare", {"per_waiting": [40, 100], "max_workers": [12, 20]}, 'queueLength: "40"'),
        (
            "drain-compare",
            {"per_waiting": [40, 100], "max_workers": [12, 20]},
            "maxReplicaCount: 12",
        ),
        ("burst-live", {"per_waiting": 50, "fixed_workers": 5}, 'queueLength: "50"'),
        ("burst-live", {"per_waiting": 50, "fixed_workers": 5}, "  replicas: 5"),
        ("poison-live", {"workers": 6}, '{"MaximumConcurrency": 6}'),
        ("retries-live", {"max_receives": 4}, '"maxReceiveCount": 4'),
        ("retries-live", {"attempts": 5, "base_s": 0.02}, "stop_after_attempt(5)"),
        ("retries-live", {"attempts": 5, "base_s": 0.02}, "multiplier=0.02"),
        ("retried-payment", {"retries": 2}, "    stop=stop_after_attempt(3),"),
        ("retried-payment", {"timeout_ms": 1_500}, "        timeout=1.5,"),
        ("retried-payment", {}, '        headers={"Idempotency-Key": key},'),
        ("timeouts", {"timeout_ms": 200.0}, "timeout=(0.2, 0.2)"),
        ("timeouts", {"timeout_ms": 200.0}, "read_timeout=0.2"),
        ("deadline", {"connect_s": 0.5, "read_s": 1.5}, "timeout=(0.5, 1.5)"),
        ("deadline", {"deadline_s": 8.0}, "stop_after_delay(8)"),
        ("deadline", {"callee_timeout_s": 1.5}, "timeout = 2"),
        ("degradation", {"limit_age": True, "max_stale_s": 120}, "stale_if_error=120"),
        ("health-checks", {"interval_s": 10}, "HealthCheckIntervalSeconds=10,"),
        ("health-checks", {"interval_s": 10}, "  periodSeconds: 10"),
        ("health-checks", {"healthy_after": 1}, "  successThreshold: 1"),
        ("health-checks", {"healthy_after": 1}, "HealthyThresholdCount=2,"),  # ALB's least
        ("health-checks", {"balance": "least_outstanding"}, '"least_outstanding_requests"'),
        ("breaker-live", {"fail_max": 2, "reset_timeout_s": 2.0}, "fail_max=2,"),
        ("breaker-live", {"fail_max": 2, "reset_timeout_s": 2.0}, "reset_timeout=2,"),
        ("trapped-service", {"max_attempts": 4}, '"total_max_attempts": 4'),
        ("trapped-service", {"retry_layers": 3}, "up to 27 a call"),
        ("trapped-service", {"retry_budget": 0.2}, "budget_percent: {value: 20}"),
        ("trapped-service", {"client_timeout_ms": 2000.0}, "read_timeout=2,"),
        ("trapped-live", {"max_attempts": 2}, '"total_max_attempts": 2'),
        ("phase-map", {"max_attempts": 1}, '"total_max_attempts": 1'),
        ("cold-cache", {"ttl_s": 45.0}, "proxy_cache_valid 200 45s;"),
        ("cold-cache", {"stale_max_s": 90.0}, "stale-while-revalidate=90"),
        ("retry-storm", {"jitter": "equal"}, "wait_exponential(multiplier=0.05, max=1.6)"),
    ],
)
def test_the_snippets_follow_the_students_values(slug, changes, expected):
    assert expected in text(slug, **changes)


def test_settings_a_student_switched_off_are_not_shown():
    assert "proxy_cache_lock" not in text("cold-cache", coalescing="none")
    assert "proxy_cache_use_stale" not in text("cold-cache", serve_stale=False)
    assert "stale_if_error" not in text("degradation", limit_age=False)
    assert "MaximumBatchingWindowInSeconds" not in text("batching", batch=10)
    assert "up to" not in text("trapped-service", retry_layers=1)


def test_the_sqs_redrive_policies_are_json_with_the_students_count():
    for slug, count in (("retries-live", 2), ("breaker-live", 50), ("poison-live", 3)):
        sqs = next(s for s in snippets(slug) if s.system == "Amazon SQS (boto3)")
        policy = json.loads(sqs.text.split("'")[1])
        assert policy["maxReceiveCount"] == count
        assert policy["deadLetterTargetArn"].endswith("-dlq")


def _run(snippet_text, **names):
    scope = dict(names)
    exec(snippet_text, scope)  # the snippet as a student would paste it
    return scope


def test_the_tenacity_snippets_build_the_waits_the_labs_draw():
    backoff = _run(snippets("backoff", attempts=4)[1].text)["call_provider"].retry
    assert type(backoff.wait).__name__ == "wait_random_exponential"  # full jitter
    assert (backoff.wait.multiplier, backoff.wait.max, backoff.stop.max_attempt_number) == (
        0.1,
        3.2,
        5,
    )
    equal = _run(snippets("retry-storm", jitter="equal")[1].text)["call_provider"].retry.wait
    assert [type(w).__name__ for w in equal.wait_funcs] == [
        "wait_exponential",
        "wait_random_exponential",
    ]
    client = text("deadline").split("# gunicorn")[0].replace("import requests\n", "")
    deadline = _run(client, requests=None)["get_results"].retry  # requests: not needed here
    assert {type(s).__name__ for s in deadline.stop.stops} == {
        "stop_after_attempt",
        "stop_after_delay",
    }


def test_the_payment_snippet_sends_the_same_key_on_every_try_after_a_timeout():
    import requests

    class Provider:
        """Times out twice, then answers: what the lab's pay-4 meets at its defaults."""

        def __init__(self):
            self.keys = []

        def post(self, url, data, headers, timeout):
            self.keys.append(headers["Idempotency-Key"])
            if len(self.keys) < 3:
                raise requests.Timeout
            answer = requests.Response()
            answer.status_code, answer._content = 200, b'{"id": "ch-4-1"}'
            return answer

    scope = _run(text("retried-payment", pause_ms=0))
    provider = Provider()
    assert scope["pay_fee"](provider, 4, 500) == {"id": "ch-4-1"}
    assert provider.keys == ["fee-4"] * 3


def test_the_retry_snippet_no_longer_uses_tenacitys_additive_jitter():
    # wait_exponential_jitter adds up to a whole second to a 0.1 s wait and its `initial`
    # is deprecated: full jitter is wait_random_exponential.
    for slug in ("backoff", "retry-storm", "retries-live", "deadline"):
        assert "wait_exponential_jitter" not in text(slug)


def test_the_django_snippet_sets_the_header_the_proxy_reads():
    django = snippets("degradation", limit_age=True, max_stale_s=120)[1].text
    response = HttpResponse()
    _run(django, response=response)
    assert response["Cache-Control"] in (
        "max-age=60, stale-if-error=120",
        "stale-if-error=120, max-age=60",
    )


def test_the_snippets_explain_themselves_in_the_readers_language():
    from django.utils import translation

    with translation.override("mr"):
        marathi = text("trapped-service")
    assert "the only one that retries" in text("trapped-service")
    assert "the only one that retries" not in marathi
    assert '"total_max_attempts": 3' in marathi  # the code itself is never translated


def test_the_lab_page_shows_the_snippets_with_marathi_comments(client, people, settings):
    from django.urls import reverse

    client.force_login(people.alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    page = client.get(reverse("lab-detail", args=["health-checks"]) + "?interval_s=10")
    body = page.content.decode()
    assert page.status_code == 200
    assert "HealthCheckIntervalSeconds=10," in body  # the filled value, spelled as ALB takes it
    assert "फक्त process चालू आहे का" in body  # the comment in the reader's language


# Values that reach the snippets' other branches (a fixed pool, FIFO retention, ...).
VARIANTS = {
    "drain": [{"rule": "fixed"}],
    "retry-storm": [{"jitter": "decorrelated"}, {"jitter": "equal"}],
    "retention": [{"queue_type": "fifo"}],
    "no-dlq": [{"fifo": True, "max_receives": 3}],
}
DEVANAGARI = re.compile("[\u0900-\u097f]")
FILE_NAME = re.compile(r"[\w.-]+\.(py|conf|ini|yaml)")  # "# celeryconfig.py": a file, not words


def comments_and_code(snippet_text):
    """(comments, code without them): a comment starts at "# " after code or a line's start."""
    comments, code = [], []
    for line in snippet_text.splitlines():
        head, sep, comment = line.partition("# ")
        if sep and (not head.strip() or head.endswith(" ")):
            comments.append(comment)
            code.append(head.rstrip())
        else:
            code.append(line)
    return comments, code


def every_snippet_text():
    for lab in LABS:
        for changes in [{}, *VARIANTS.get(lab.slug, [])]:
            values = lab.defaults() | changes
            if lab.in_production is not None:
                yield lab.slug, values


def test_the_variants_reach_other_branches():
    for slug, variants in VARIANTS.items():
        for changes in variants:
            assert text(slug, **changes) != text(slug), (slug, changes)


@pytest.mark.parametrize(("slug", "values"), list(every_snippet_text()))
def test_every_comment_in_a_snippet_reads_in_marathi_and_the_code_stays(slug, values):
    from django.utils import translation

    lab = get_lab(slug)
    with translation.override("en"):
        english = [s.text for s in lab.in_production(values)]
    with translation.override("mr"):
        marathi = [s.text for s in lab.in_production(values)]
    for en, mr in zip(english, marathi, strict=True):
        en_comments, en_code = comments_and_code(en)
        mr_comments, mr_code = comments_and_code(mr)
        assert mr_code == en_code  # field names and values exactly as the systems take them
        untranslated = [
            c for c in mr_comments if not DEVANAGARI.search(c) and not FILE_NAME.fullmatch(c)
        ]
        assert not untranslated, f"{slug}: {untranslated}"
        assert len(mr_comments) == len(en_comments)
