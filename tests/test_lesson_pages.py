"""Each lesson page: its own explanation, then its labs in the lesson's order."""

from __future__ import annotations

import pytest
from django.urls import reverse

LESSON_LABS = {
    "lesson-07": ["fanout", "busy-minute", "at-least-once", "fanout-live"],
    "lesson-12": ["drain", "drain-compare", "burst-live"],
    "lesson-13": [
        "timeouts",
        "backoff",
        "retry-storm",
        "breaker",
        "degradation",
        "idempotent-charges",
        "poison-messages",
        "availability",
        "poison-live",
        "retries-live",
        "breaker-live",
    ],
}


@pytest.mark.parametrize(("unit", "slugs"), LESSON_LABS.items())
def test_it_shows_the_labs_in_the_lessons_order(client, db, unit, slugs):
    html = client.get(reverse("unit-detail", args=[unit])).content.decode()
    positions = [html.index(f'<h2 id="{slug}">') for slug in slugs]
    assert positions == sorted(positions)
    assert html.count('<h2 id="') == len(slugs)


@pytest.mark.parametrize(
    ("unit", "figures"),
    [
        ("lesson-07", ["33.3 minutes", "30,000 jobs are waiting", "12 seconds"]),
        ("lesson-12", ["five rules", "700"]),
        ("lesson-13", ["60,000 stuck requests", "Only 7 calls reach", "99.999988%"]),
    ],
)
def test_it_explains_each_lesson_with_its_figures(client, db, unit, figures):
    html = client.get(reverse("unit-detail", args=[unit])).content.decode()
    assert "being written" not in html
    for figure in figures:
        assert figure in html
