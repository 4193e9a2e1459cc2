"""Each lesson page, in English and in Marathi: its explanation, its labs in order, its figures."""

from __future__ import annotations

import itertools
import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from labs.sim.capstone import RECOMMENDED_CONTROLS
from labs.text import num
from tests.lab_helpers import run

LESSON_LABS = {
    "lesson-07": [
        "answer-fast",
        "fanout",
        "batching",
        "busy-minute",
        "at-least-once",
        "fanout-live",
        "provider-outage",
        "queued-read",
    ],
    "lesson-12": [
        "drain",
        "drain-compare",
        "scaling-signal",
        "target-tracking",
        "db-knee",
        "burst-live",
        "fifo-live",
        "retention",
        "no-dlq",
    ],
    "lesson-13": [
        "timeouts",
        "deadline",
        "backoff",
        "retry-storm",
        "layered-retries",
        "breaker",
        "degradation",
        "cascade",
        "idempotent-charges",
        "retried-payment",
        "poison-messages",
        "health-checks",
        "availability",
        "poison-live",
        "retries-live",
        "breaker-live",
    ],
    "assignment-05": [
        "drain-math",
        "trapped-service",
        "trapped-live",
        "phase-map",
        "cold-cache",
        "job-cost",
        "pool-trap",
    ],
}


LANGUAGES = ("en", "mr")
DEVANAGARI = re.compile("[\u0900-\u097f]")


def page(client, unit: str, language: str) -> str:
    client.cookies["django_language"] = language
    response = client.get(reverse("unit-detail", args=[unit]))
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("unit", "slugs"), LESSON_LABS.items())
def test_it_shows_the_labs_in_the_lessons_order(client, db, unit, slugs, language):
    html = page(client, unit, language)
    positions = [html.index(f'<h3 id="{slug}">') for slug in slugs]
    assert positions == sorted(positions)
    for slug in slugs:
        assert f'href="{reverse("lab-detail", args=[slug])}"' in html
    # Each lab is a link to its own page, not its whole form again (Lesson 13 had 15 forms).
    assert 'class="lab-form"' not in html


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("unit", LESSON_LABS)
def test_it_never_skips_a_heading_level(client, db, unit, language):
    levels = [int(n) for n in re.findall(r"<h([1-6])[\s>]", page(client, unit, language))]
    assert levels[0] == 1 and levels.count(1) == 1
    for before, after in itertools.pairwise(levels):
        assert after <= before + 1, levels


@pytest.mark.parametrize("unit", LESSON_LABS)
def test_it_counts_the_labs_it_lists(client, db, unit):
    html = page(client, unit, "en")
    assert f"This unit has {len(LESSON_LABS[unit])} labs." in html


@pytest.mark.parametrize("unit", LESSON_LABS)
def test_it_writes_the_explanation_in_the_readers_language(client, db, unit):
    english, marathi = page(client, unit, "en"), page(client, unit, "mr")
    explanation = re.compile(r'<section class="explanation"[^>]*>(.*?)</section>', re.S)
    (en_text,), (mr_text,) = explanation.findall(english), explanation.findall(marathi)
    en_text, mr_text = (re.sub(r"<[^>]*>", " ", text) for text in (en_text, mr_text))
    assert not DEVANAGARI.search(en_text)
    assert len(DEVANAGARI.findall(mr_text)) > 0.5 * len(re.findall(r"\w", mr_text))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    ("unit", "figures"),
    [
        ("lesson-07", ["33", "16.7", "333.3", "30,000", "12", "10", "429"]),
        ("lesson-12", ["1,500", "150", "800", "8", "14", "700", "30", "4", "14"]),
        (
            "lesson-13",
            ["60,000", "2,000", "400", "3,200", "81", "7", "27", "34", "17", "99.999988%"],
        ),
    ],
)
def test_it_explains_each_lesson_with_its_figures(client, db, unit, figures, language):
    html = page(client, unit, language)
    numbers = set(re.findall(r"\d+(?:[,.]\d+)*%?", html))
    for figure in figures:
        assert figure in numbers, figure


@pytest.mark.parametrize("language", LANGUAGES)
def test_it_quotes_the_figures_the_capstone_labs_give_today(client, db, language):
    """The page's numbers are written out by hand: check them against the labs."""
    html = page(client, "assignment-05", language)
    trapped = run("trapped-service")["summary"]
    freed = run("trapped-service", **RECOMMENDED_CONTROLS)["summary"]
    naive = run("trapped-service", drop_expired=True, limit_retries=True, drop_payments=True)[
        "summary"
    ]
    cache = run("cold-cache", horizon_s=10)["summary"]
    jobs = run("job-cost")["summary"]
    quoted = [
        num(trapped["final_backlog"]),
        f"{num(round(trapped['final_oldest_age_s'], 1))} s",
        num(trapped["amplification"]),
        f"{num(round(100 * trapped['wasted_share']))}%",
        num(round(trapped["goodput_before_rps"])),
        f"{freed['recovered_at_s']} s",
        num(freed["obligations_reconciled"]),
        num(naive["obligations_lost"]),
        f"{num(round(freed['drain_estimate_s']))} s",
        f"{num(round(freed['actual_drain_s']))} s",
        num(round(cache["first_10s_fetched_rps"])),
        num(cache["origin_peak_rps"]),
        num(round(cache["first_10s_hit_rps"])),
        num(round(cache["first_10s_rejected_rps"])),
        num(jobs["backlog_jobs_at_estimate"]),
        f"{num(round(jobs['count_estimate_s']))} s",
        f"{num(round(jobs['work_estimate_s']))} s",
        f"{num(round(jobs['actual_drain_s']))} s",
    ]
    for text in quoted:
        assert f"<strong>{text}</strong>" in html, text


@pytest.mark.parametrize("language", LANGUAGES)
def test_lesson_13_explains_the_cascade_with_the_figures_its_lab_gives_today(client, db, language):
    """The cascade paragraph's figures are written by hand: check them against the lab, with
    the four tools switched on one after another as the paragraph says."""
    html = page(client, "lesson-13", language)
    tools = ("use_timeout", "backoff", "breaker", "fallback")
    bare, timeout, backoff, breaker, every = (
        run("cascade", **dict.fromkeys(tools[:n], True))["summary"] for n in range(5)
    )

    def pct(share: float) -> str:
        return f"{num(round(share * 100))}%"

    quoted = [
        num(bare["dependency_rate_stall"]),
        num(bare["threads_needed"]),
        pct(bare["own_pages_share_stall"]),
        num(timeout["threads_needed"]),
        pct(timeout["own_pages_share_stall"]),
        num(timeout["busiest_retry_slot"]),
        num(backoff["busiest_retry_slot"]),
        pct(backoff["own_pages_share_stall"]),
        num(breaker["dependency_calls_stall"]),
        num(backoff["dependency_calls_stall"]),
        pct(breaker["own_pages_share_stall"]),
        pct(every["usable_share_stall"]),
        num(every["requests_failed"]),
    ]
    start = html.index('id="stuck-dependency"')
    section = html[start : html.index("</section>", start)]
    for text in quoted:
        assert f"<strong>{text}</strong>" in section, text
    assert f'href="{reverse("lab-detail", args=["cascade"])}"' in section
    assert ("Little's law" if language == "en" else "Little चा नियम") in section


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("unit", LESSON_LABS)
def test_it_draws_the_units_diagram_with_a_text_alternative(client, db, unit, language):
    html = page(client, unit, language)
    (label,) = re.findall(r'<svg aria-label="([^"]+)" xmlns=', html)
    assert len(label) > 80
    assert bool(DEVANAGARI.search(label)) == (language == "mr")


def test_it_keeps_the_diagram_files_as_drawn():
    from lessons.diagrams import drawn

    for path, svg in drawn().items():
        assert path.read_text(encoding="utf-8") == svg, f"run python -m lessons.diagrams: {path}"


@pytest.mark.redis
def test_a_unit_pages_prose_and_self_check_are_rendered_once_per_language(
    client, people, monkeypatch
):
    from django.core.cache import cache

    from lessons.templatetags import lessons as tags

    cache.delete_many(
        [key(unit, lang) for key in (tags.prose_key, tags.selfcheck_key) for unit in ("lesson-12",)
         for lang in ("en", "mr")]
    )  # fmt: skip
    rendered = []
    real_select, real_render = tags.select_template, tags.render_to_string

    def select(names, *args, **kwargs):
        rendered.append(names[0])
        return real_select(names, *args, **kwargs)

    def render(name, *args, **kwargs):
        rendered.append(name)
        return real_render(name, *args, **kwargs)

    monkeypatch.setattr(tags, "select_template", select)
    monkeypatch.setattr(tags, "render_to_string", render)
    url = reverse("unit-detail", args=["lesson-12"])
    pages = []
    for person in (None, people.alice, people.bob):
        if person is not None:
            client.force_login(person)
        pages.append(client.get(url).content.decode())
    assert rendered == ["labs/units/en/lesson-12.html", "lessons/selfcheck.html#selfcheck-panel"]
    assert len({page[page.index("<h1>") : page.index('id="labs"')] for page in pages}) == 1
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    marathi = client.get(url).content.decode()
    assert rendered[2:] == [
        "labs/units/mr/lesson-12.html",
        "lessons/selfcheck.html#selfcheck-panel",
    ]
    prose = marathi[marathi.index("<h1>") : marathi.index('id="labs"')]
    assert re.search("[\u0900-\u097f]{4}", prose) and prose not in pages[0]
    # Each view carries its own CSRF token, and it works: the self-check is marked.
    checking = Client(enforce_csrf_checks=True)
    checking.force_login(people.alice)
    page = checking.get(url).content.decode()
    assert tags.CSRF_SLOT not in page
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    marked = checking.post(
        reverse("unit-selfcheck", args=["lesson-12"]), {"csrfmiddlewaretoken": token}
    )
    assert marked.status_code == 200 and "You got" in marked.content.decode()


@pytest.mark.parametrize("language", LANGUAGES)
def test_lesson_07_says_when_not_to_queue_with_the_figures_its_lab_gives_today(
    client, db, language
):
    """The paragraph on a read the user waits for links the queued-read lab and quotes its
    two medians, written by hand: check them against the lab."""
    html = page(client, "lesson-07", language)
    start = html.index('id="not-to-queue"')
    section = html[start : html.index("</section>", start)]
    s = run("queued-read")["summary"]
    assert f'href="{reverse("lab-detail", args=["queued-read"])}"' in section
    for figure in (s["direct_median_ms"], s["queued_median_ms"]):
        assert f"<strong>{num(figure)}</strong>" in section, figure
