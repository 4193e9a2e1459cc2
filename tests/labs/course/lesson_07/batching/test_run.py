"""The batching lab: 33.3 minutes one at a time; batches until the provider throttles."""

from __future__ import annotations

from tests.lab_helpers import headline, refusal, run


def test_its_defaults_are_the_lessons_33_minutes():
    s = run("batching")["summary"]
    assert s["minutes"] == 33.33
    assert s["calls"] == 5_000_000
    assert s["throttled"] is False


def test_batches_of_500_hit_the_providers_limit():
    result = run("batching", batch=500)
    assert result["summary"]["minutes"] == 8.33
    assert result["summary"]["throttled"] is True
    assert "throttles the rest" in headline("batching", result)


def test_the_batched_line_is_never_slower():
    s = run("batching", batch=500)["series"]
    assert all(b <= one for b, one in zip(s["minutes_batched"], s["minutes_single"], strict=True))


def test_it_refuses_a_zero_batch():
    assert "batch" in refusal("batching", batch=0)
