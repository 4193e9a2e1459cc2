"""Each lesson page: its own explanation, then its labs in the lesson's order."""

from __future__ import annotations

import pytest
from django.urls import reverse

from labs.sim.capstone import RECOMMENDED_CONTROLS
from labs.text import num
from tests.lab_helpers import run

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
    "assignment-05": ["trapped-service", "phase-map", "cold-cache", "job-cost"],
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
        ("assignment-05", ["feedback loop", "<strong>2,008</strong>", "<strong>151 s</strong>"]),
    ],
)
def test_it_explains_each_lesson_with_its_figures(client, db, unit, figures):
    html = client.get(reverse("unit-detail", args=[unit])).content.decode()
    assert "being written" not in html
    for figure in figures:
        assert figure in html


def test_it_quotes_the_figures_the_capstone_labs_give_today(client, db):
    """The page's numbers are written out by hand: check them against the labs."""
    html = client.get(reverse("unit-detail", args=["assignment-05"])).content.decode()
    trapped = run("trapped-service")["summary"]
    freed = run("trapped-service", **RECOMMENDED_CONTROLS)["summary"]
    naive = run("trapped-service", drop_expired=True, limit_retries=True, drop_payments=True)[
        "summary"
    ]
    cache = run("cold-cache", horizon_s=10)["summary"]
    jobs = run("job-cost")["summary"]
    quoted = [
        f"<strong>{num(trapped['final_backlog'])}</strong>",
        f"<strong>{num(round(trapped['final_oldest_age_s'], 1))} s</strong>",
        f"<strong>{num(trapped['amplification'])} attempts</strong>",
        f"<strong>{num(round(100 * trapped['wasted_share']))}%</strong>",
        f"from {num(round(trapped['goodput_before_rps']))} a second to 0",
        f"recovers at <strong>{freed['recovered_at_s']} s</strong>",
        f"<strong>{num(freed['obligations_reconciled'])}</strong> timed-out payments",
        f"<strong>{naive['obligations_lost']} payments</strong> vanish",
        f"estimate says {num(round(freed['drain_estimate_s']))} s",
        f"empties in {num(round(freed['actual_drain_s']))} s",
        f"about {num(round(cache['first_10s_fetched_rps']))} fetches a second",
        f"never more than {cache['origin_peak_rps']}",
        f"about {num(round(cache['first_10s_hit_rps']))} hits",
        f"{num(round(cache['first_10s_rejected_rps']))} fast 429s",
        f"{num(jobs['backlog_jobs_at_estimate'])} jobs are waiting",
        f"<strong>{num(round(jobs['count_estimate_s']))} s</strong>",
        f"<strong>{num(round(jobs['work_estimate_s']))} s</strong>",
        f"<strong>{num(round(jobs['actual_drain_s']))} s</strong>",
    ]
    for text in quoted:
        assert text in html
