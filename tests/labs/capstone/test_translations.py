"""Assignment 05's report and operator view read in Marathi when Marathi is asked for.

The before/after report is written while the page renders (the runs keep numbers and
keys), so every sentence of it, its print view, its charts and its Markdown export come
in the reader's language; the JSON keeps its English keys and verdicts.
"""

from __future__ import annotations

import copy
import json
import re

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from tests.labs.capstone.test_views import finished_pair, report_url
from tests.test_translations import DEVANAGARI, VisibleText, visible_text

# English the report's pages must not show in Marathi: whole phrases the report writes.
KNOWN_ENGLISH = (
    # the outcome, the comparison and the procedure
    "After the controls went on at",
    "no payment was lost",
    "Backlog at the end",
    "Useful answers, last 30 s",
    "Completions wasted after the controls",
    "Stop the amplification",
    "retries per new request",
    "Reconcile payments, never drop them",
    "Admit less than the safe useful capacity",
    "Reopen gradually",
    "requests/s let in",
    "The queue drained at",
    "Tried:",
    "admission limit of",
    "reconcile timed-out payments",
    "of workers kept for fresh work",
    # the drain, and why its estimate missed
    "never drained: admitted work stayed",
    "expired work was discarded at the dequeue check",
    # what was simulated
    "Everything is simulated in one process",
    "Every recovery control starts at the second set in",
)
# Only in the Markdown export: its own headings and lines.
MARKDOWN_ENGLISH = (
    "## Before and after",
    "## Recovery procedure",
    "- Measured:",
    "## Drain: estimate and actual",
    "| estimate held |",
    "## Backlog timeline",
    "## Operator view",
    "## What was simulated",
    "Before (seed",
    "Changed: `",
    "controls on: none",
)
# The report's charts: titles, legends and notes.
CHART_ENGLISH = (
    "Backlog: requests waiting or in service",
    "before (controls off)",
    "after (controls on)",
    "controls on at 150 s",
    "Retries each second",
    "Payments with no owner (unknown), lost, and reconciled",
    "safe useful capacity",
    "admission limit (after)",
)
# The operator view of the trapped run, and the picker of the pair.
OPERATOR_ENGLISH = (
    "Unresolved: someone still has to find the outcome",
    "Payments by state",
    "unknown (nobody owns it)",
    "Showing 25 of 865.",
    "nobody",
)
PICKER_ENGLISH = (
    "Before (the trapped run)",
    "controls: none",
    "Select an option",
)


class PrintedText(VisibleText):
    """What the printed page shows: the visible text without `.no-print` parts."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        if tag in self.VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        self.stack.append("no-print" in classes)

    def handle_endtag(self, tag):
        super().handle_endtag(tag)
        if tag not in self.VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not any(self.stack):
            super().handle_data(data)


def printed_text(html: str) -> str:
    parser = PrintedText()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def chart_words(html: str) -> str:
    """Every title, axis title, legend name and note of the page's charts, one per line."""
    words = []
    for raw in re.findall(r'<script[^>]*type="application/json"[^>]*>(.*?)</script>', html, re.S):
        fig = json.loads(raw)
        layout = fig.get("layout", {})
        words.append(layout.get("title", {}).get("text", ""))
        for axis in ("xaxis", "yaxis"):
            words.append(layout.get(axis, {}).get("title", {}).get("text", ""))
        words += [trace.get("name", "") for trace in fig.get("data", [])]
        words += [note.get("text", "") for note in layout.get("annotations", [])]
    return "\n".join(w for w in words if w)


@pytest.fixture
def pages(client, people):
    """The texts of the report's pages for `language`: (what, text, English phrases)."""
    before, after = finished_pair(people.alice)
    client.force_login(people.alice)

    def read(language: str) -> list[tuple[str, str, tuple[str, ...]]]:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        report = client.get(report_url(before, after)).content.decode()
        markdown = client.get(report_url(before, after, "report-markdown")).content.decode()
        operator = client.get(reverse("run-obligations", args=[before.id])).content.decode()
        picker = client.get(reverse("report-pick"), {"before": before.id}).content.decode()
        return [
            ("report", visible_text(report), KNOWN_ENGLISH),
            ("print view", printed_text(report), KNOWN_ENGLISH),
            ("report charts", chart_words(report), CHART_ENGLISH),
            ("Markdown", markdown, KNOWN_ENGLISH + MARKDOWN_ENGLISH),
            ("operator view", visible_text(operator), OPERATOR_ENGLISH),
            ("report picker", visible_text(picker), PICKER_ENGLISH),
        ]

    return read


def test_the_report_and_the_operator_view_read_in_marathi(pages):
    problems = []
    for what, text, english in pages("mr"):
        if not DEVANAGARI.search(text):
            problems.append(f"{what}: no Devanagari at all")
        problems += [f"{what}: {e!r}" for e in english if e in text]
    assert not problems, "\n".join(problems)


def test_the_english_they_look_for_is_there_in_english(pages):
    """Guards the check above: each phrase does appear where it is looked for, in English."""
    missing = [
        f"{what}: {e!r}" for what, text, english in pages("en") for e in english if e not in text
    ]
    assert not missing, "\n".join(missing)


def test_the_json_export_keeps_its_keys_and_verdicts_in_english(client, people):
    before, after = finished_pair(people.alice)
    client.force_login(people.alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    data = json.loads(client.get(report_url(before, after, "report-json")).content)
    assert [s["key"] for s in data["procedure"]][0] == "stop-amplification"
    assert {s["verdict"] for s in data["procedure"]} == {"worked"}
    assert DEVANAGARI.search(data["procedure"][0]["verdict_text"])
    assert DEVANAGARI.search(data["outcome"])
    assert data["compared"][0]["key"] == "recovered"
    assert data["drain"]["after"]["estimate_s"] == 167.333


def test_the_markdown_export_keeps_param_names_and_values_as_the_cli_takes_them(client, people):
    before, after = finished_pair(people.alice)
    client.force_login(people.alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    text = client.get(report_url(before, after, "report-markdown")).content.decode()
    assert "`admission_limit` false → true" in text
    assert "(seed 5): `horizon_s=300`, `base_rps=80`" in text
    assert "| 2,008 | 14 |" in text  # Western digits in both languages


PANEL_ENGLISH = ("Operator panel", "Switch on", "Admitted a second", "req/s")
REFUSALS = {
    "admission_limit": ("0", "must be between 1 and 10000, got 0."),
    "drop_expired": ("2", "takes no value."),
    "retry_budget": ("lots", "must be a number, got lots."),
}


@pytest.fixture
def live_run(people):
    """Alice's trapped-live run, running: its page shows her the operator panel."""
    from labs.runs.models import Run

    return Run.objects.create(
        owner=people.alice, lab="trapped-live", params={}, seed=5, status="running"
    )


@pytest.mark.parametrize("language", ["mr", "en"])
def test_the_live_runs_operator_panel_reads_in_the_readers_language(client, live_run, language):
    client.force_login(live_run.owner)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    page = client.get(live_run.get_absolute_url()).content.decode()
    panel = visible_text(page[page.index('id="control-panel"') :])
    said = []
    for control, (value, words) in REFUSALS.items():
        response = client.post(
            reverse("run-control", args=[live_run.pk]),
            {"control": control, "state": "on", "value": value},
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code == 400  # refused before anything reaches Redis
        said.append((words, visible_text(response.content.decode())))
    if language == "mr":
        assert DEVANAGARI.search(panel)
        assert not [e for e in PANEL_ENGLISH if e in panel]
        assert all(DEVANAGARI.search(text) and words not in text for words, text in said)
    else:
        assert all(e in panel for e in PANEL_ENGLISH)
        assert all(words in text for words, text in said)


# Words that stay in Latin script in the Marathi (the course speaks them so) and the
# param names, slugs and units a sentence may quote.
LATIN_KEPT = re.compile(
    r"\b(controls?|queue|workers?|retry|retries|callers?|read|reads|backlog|timeout|budget|"
    r"seed|params|process|network|database|simulate|operation|id|dequeue|drain|jobs?|runs?|"
    r"admission|limit|payments?|reconciliation|requests?|trigger|cost|redis|time|scale|operator|"
    r"panel|"
    r"recover_at_s|horizon_s|s|x|vs)\b",
    re.IGNORECASE,
)


def report_sentences(built: dict) -> list[str]:
    """Every piece of text `labs.capstone.report.build` wrote for a person to read."""
    texts = [built["outcome"], *built["simulated"]]
    for row in built["compared"]:
        texts += [row["figure"], row["before_text"], row["after_text"]]
    for step in built["procedure"]:
        texts += [step[k] for k in ("title", "action", "figure", "before", "tried_text")]
        texts += [step["verdict_text"], *step["controls"], *step["not_tried"]]
    texts += [built["drain"][side]["gap"] for side in ("before", "after")]
    for side in ("before", "after"):
        texts += built["runs"][side]["controls_on"]
    return [t for t in texts if t]


def english_left(text: str) -> bool:
    """True if `text` still has English words once the kept Latin words are taken out."""
    return bool(re.search(r"[A-Za-z]{3,}", LATIN_KEPT.sub("", text)))


def pairs_to_report() -> dict[str, tuple[dict, dict]]:
    """Before/after pairs whose reports take every branch of the sentences."""
    from tests.labs.capstone.test_report import NAIVE, pair, run

    before, after = pair()
    changed = copy.deepcopy(after)
    changed["series"]["admitted"][150:] = [150] * len(changed["series"]["admitted"][150:])
    changed["summary"]["actual_drain_s"] = None
    live = [copy.deepcopy(r) | {"lab": "trapped-live"} for r in (before, after)]
    return {
        "freed": (before, after),
        "live pair": (live[0], live[1]),
        "trapped twice": (before, before),
        "naive drop": (before, run("trapped-service", **NAIVE)),
        "controls never on": (before, run("trapped-service", recover_at_s=300.0)),
        "too much let in, never drained": (before, changed),
        "no admission limit": (
            before,
            run("trapped-service", drop_expired=True, limit_retries=True, cost_spread=4.0),
        ),
    }


@pytest.mark.parametrize("case", list(pairs_to_report()))
def test_every_sentence_of_the_report_is_made_in_marathi(case):
    from tests.labs.capstone.test_report import report

    before, after = pairs_to_report()[case]
    with translation.override("mr"):
        marathi = report_sentences(report(before, after))
    english = report_sentences(report(before, after))
    assert [t for t in english if english_left(t)], "the check finds English in English"
    left = [t for t in marathi if english_left(t)]
    assert not left, "\n".join(left)


QUEUE_PANEL_ENGLISH = (
    "Queue panel",
    "Depth (visible)",
    "Oldest message age",
    "DLQ depth",
    "kept for about",
    "Redrive all",
    "Purge the DLQ",
    "Purge the queue",
)


@pytest.mark.redis
@pytest.mark.parametrize("language", ["mr", "en"])
def test_the_queue_panel_reads_in_the_readers_language(client, people, language):
    """The kept DLQ of a finished experiment, what a redrive says, and a queue that is gone."""
    from labs.runs import retained_queue
    from labs.runs.models import Run
    from tests.live_helpers import keep_parked

    run = Run.objects.create(
        owner=people.alice, lab="poison-live", params={}, seed=0, status="succeeded"
    )
    keep_parked(run.pk, ["pdf-3", "pdf-5"])
    client.force_login(people.alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    try:
        hx = {"HTTP_HX_REQUEST": "true"}
        panel = visible_text(client.get(reverse("run-queue", args=[run.pk]), **hx).content.decode())
        refused = visible_text(
            client.post(
                reverse("run-queue-redrive", args=[run.pk]), {"message": "pdf-9"}, **hx
            ).content.decode()
        )
    finally:
        retained_queue.clean_run_keys(run.pk)
    gone = visible_text(client.get(reverse("run-queue", args=[run.pk]), **hx).content.decode())
    if language == "mr":
        assert all(DEVANAGARI.search(text) for text in (panel, refused, gone))
        assert not [e for e in QUEUE_PANEL_ENGLISH if e in panel]
        assert "is not in the dead-letter queue" not in refused
        assert "This run's queue is gone" not in gone
    else:
        assert all(e in panel for e in QUEUE_PANEL_ENGLISH)
        assert "pdf-9 is not in the dead-letter queue" in refused
        assert "This run's queue is gone" in gone


@pytest.mark.parametrize(
    ("status", "english"),
    [
        ("running", "The report is written once both runs have finished."),
        ("failed", "A run of this pair failed, so there is no report"),
    ],
)
def test_a_report_not_yet_written_says_why_in_marathi(client, people, status, english):
    from labs.runs.models import Run

    before, after = finished_pair(people.alice)
    Run.objects.filter(pk=after.pk).update(status=status, own_result=None, error="boom")
    client.force_login(people.alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    assert english in visible_text(client.get(report_url(before, after)).content.decode())
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    body = client.get(report_url(before, after), HTTP_HX_REQUEST="true").content.decode()
    text = visible_text(body)
    assert DEVANAGARI.search(text) and english not in text
