"""Locked parameters and criteria in words where a student or the projector reads them
(issue 36, item 8); the teacher may still see the rule."""

from __future__ import annotations

import json
import re

from django.urls import reverse
from django.utils import translation

from labs.catalogue.entries import get_lab
from teaching.criteria_words import criterion_words
from tests.teaching.class_results.test_views import small_class  # noqa: F401 - a fixture
from tests.test_translations import visible_text

CODE = re.compile(r"\b(per_worker|arrivals|left_at_end|peak_backlog|worker_seconds)\b")


def test_a_student_reads_the_locked_parameters_by_their_labels(client, school):
    client.force_login(school.alice)
    with translation.override("en"):
        html = client.get(reverse("assignment-detail", args=[school.assignment_a.pk]))
    facts = html.content.decode().split('<dl class="run-facts">')[1].split("</dl>")[0]
    text = visible_text(facts)
    assert not CODE.findall(text), text
    assert "Jobs one worker finishes per second: 100 jobs/s" in text, text
    client.force_login(school.teacher)
    teacher = client.get(reverse("assignment-detail", args=[school.assignment_a.pk]))
    assert "per_worker=100" in visible_text(teacher.content.decode())  # the rule, for the teacher


def _chart_labels(html: str) -> list[str]:
    """Every category label of the page's Plotly charts (their JSON data blocks)."""
    labels = []
    for block in re.findall(r'<script id="[^"]*" type="application/json">(.*?)</script>', html):
        for trace in json.loads(block).get("data", []):
            labels += [str(y) for y in trace.get("y") or [] if isinstance(y, str)]
    return labels


def test_the_projector_and_the_results_chart_say_the_criteria_in_words(client, small_class):  # noqa: F811
    lab = get_lab("drain")
    client.force_login(small_class.teacher)
    with translation.override("en"):
        words = [criterion_words(c, lab.figures) for c in small_class.assignment_a.checks()]
        projector = client.get(
            reverse("assignment-results-projector", args=[small_class.assignment_a.pk])
        ).content.decode()
        results = client.get(
            reverse("assignment-results", args=[small_class.assignment_a.pk])
        ).content.decode()
    assert not CODE.findall(visible_text(projector)), CODE.findall(visible_text(projector))
    for html in (projector, results):
        labels = " ".join(_chart_labels(html)).replace("<br>", " ")
        assert not CODE.findall(labels), labels
        for sentence in words:
            assert sentence in visible_text(html) or sentence in labels, sentence


def test_a_check_says_a_share_as_a_percentage_and_no_delay_as_at_once():
    """The Lesson 13 challenges' checks (second review §7, fix 4): 'at least 99%', not
    'at least 0.99'; '0 s (at once)', not 'at most 0 s'; in both languages."""
    from teaching.criteria import parse_criteria

    cascade, breaker = get_lab("cascade"), get_lab("breaker")
    share = parse_criteria("own_pages_share_stall >= 0.99", cascade.figures)[0]
    late = parse_criteria("late_by_s <= 0", breaker.figures)[0]
    with translation.override("en"):
        assert criterion_words(share, cascade.figures).endswith(": at least 99%")
        assert criterion_words(late, breaker.figures) == (
            "How late the breaker noticed the recovery: 0 s (at once)"
        )
    with translation.override("mr"):
        assert criterion_words(share, cascade.figures).endswith(": किमान 99%")
        assert criterion_words(late, breaker.figures).endswith(": 0 s (लगेच)")
