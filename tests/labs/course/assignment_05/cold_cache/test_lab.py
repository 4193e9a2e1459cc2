"""cold-cache's hot-key sentence says what the run showed, and a try-next shows it (item 7)."""

from __future__ import annotations

import pytest
from django.utils import translation

from labs.course.assignment_05.cold_cache.lab import LAB
from tests.lab_helpers import headline, run

pytestmark = pytest.mark.nodb

UNPROTECTED = {"keys": 1, "coalescing": "none", "origin_budget": False, "serve_stale": False}
WARNING = "stand between it and the origin"


def _flooded(result) -> bool:
    s = result["summary"]
    return s["origin_peak_after_first_ttl_rps"] > s["origin_capacity_rps"]


def test_the_hot_key_warning_appears_only_when_its_expiry_flooded_the_origin():
    calm = run("cold-cache", **UNPROTECTED)  # a 50 ms fetch: the key is missing briefly
    assert not _flooded(calm)
    with translation.override("en"):
        text = headline("cold-cache", calm)
    assert WARNING not in text, text
    assert "One hot key" in text  # it still says what one key does, with this run's figure


def test_a_try_next_lets_one_hot_key_flood_the_origin_and_warns():
    (hot,) = [t for t in LAB.try_next if t.changes.get("keys") == 1]
    result = run("cold-cache", **hot.changes)
    assert _flooded(result)
    with translation.override("en"):
        assert WARNING in headline("cold-cache", result)
