"""A run's series said in the reader's words on the page; their keys kept in the exports."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from labs.catalogue.entries import LABS, get_lab
from labs.web.series_names import SERIES, chart_words, named, readable, series_names
from tests.base import EXPERIMENT_RESULTS, finished_run

DEVANAGARI = re.compile("[\u0900-\u097f]")


def default_result(lab):
    if lab.kind == "experiment":
        return json.loads((EXPERIMENT_RESULTS / f"{lab.slug}.json").read_text())
    from labs.interface.progress import SilentProgress
    from labs.runs.execution import run_lab

    return run_lab(lab, lab.defaults(), 0, SilentProgress())


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.slug)
def test_every_series_of_every_lab_has_a_name(lab):
    result = default_result(lab)
    charts = chart_words(lab, result)
    named_here = {*SERIES, *lab.series_names, *charts}
    unnamed = [k for k in result.get("series") or {} if k not in named_here]
    where = "the lab's SERIES_NAMES or labs/web/series_names.py"
    assert not unnamed, f"name these in {where}: {unnamed}"


@pytest.mark.parametrize("lab", [lab for lab in LABS if lab.series_names], ids=lambda lab: lab.slug)
def test_a_labs_own_series_names_are_series_it_produces(lab):
    """A lab names only its own series (an experiment's: its stored default run), and a
    name several labs need is shared, not claimed by one of them."""
    produced = set(default_result(lab).get("series") or {})
    assert set(lab.series_names) <= produced, set(lab.series_names) - produced
    assert not set(lab.series_names) & set(SERIES), "shared names are not redefined"


def test_a_lab_that_names_a_series_nobody_produces_is_caught():
    lab = replace(get_lab("breaker"), series_names={"trial": "trial call", "ghost": "ghost"})
    with pytest.raises(AssertionError, match="ghost"):
        test_a_labs_own_series_names_are_series_it_produces(lab)


def test_a_labs_own_name_comes_before_the_shared_one():
    lab = get_lab("breaker")
    assert named("trial", lab) == "trial call"
    assert named("trial") == "trial"  # no lab: nothing names it, so its key in words
    assert named("second", lab) == "second"  # shared
    mine = replace(lab, series_names={"second": "clock second"})
    assert named("second", mine) == "clock second"


def test_a_series_is_named_by_the_one_trace_that_draws_it_alone():
    lab = get_lab("trapped-service")
    result = default_result(lab)
    words = chart_words(lab, result)
    series = result["series"]
    for key in words:
        alike = [k for k, v in series.items() if v == series[key]]
        assert alike == [key], f"{key} shares its values with {alike}: its name is a guess"


def test_our_names_read_in_marathi():
    owners = [(key, None) for key in SERIES]
    owners += [(key, lab) for lab in LABS for key in lab.series_names]
    with translation.override("mr"):
        marathi = {key: named(key, lab) for key, lab in owners}
    english = {key: named(key, lab) for key, lab in owners}
    assert len(marathi) == len(owners)  # no key named twice
    assert sum(bool(DEVANAGARI.search(w)) for w in marathi.values()) >= 0.9 * len(owners)
    # The words the course keeps in Latin script (docs/glossary-mr.md: latency is kept too).
    latin = {
        "max_receives",
        "retry",
        "workers",
        "latency_p50_ms",
        "latency_p95_ms",
        "latency_p99_ms",
    }
    assert [k for k in marathi if marathi[k] == english[k] and k not in latin] == []
    assert named("no_such_series_ms") == readable("no_such_series_ms") == "no such series (ms)"


def numbers_page(client, run, language):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client.get(reverse("run-numbers", args=[run.pk])).content.decode()


def test_the_numbers_table_says_its_headings_in_marathi_and_keeps_the_keys(client, people):
    run = finished_run(people.alice, lab="trapped-service")
    client.force_login(people.alice)
    english = numbers_page(client, run, "en")
    marathi = numbers_page(client, run, "mr")
    with translation.override("mr"):
        words = series_names(get_lab("trapped-service"), run.result)
    assert ">admission limit (per second)</th>" in english  # guard: the words are on the page
    assert "admission limit (per second)" not in marathi
    assert f'<th title="admit_limit_rps">{words["admit_limit_rps"]}</th>' in marathi
    assert DEVANAGARI.search(words["admit_limit_rps"])
    assert "<th>admit_limit_rps</th>" not in marathi  # the key is no heading any more
    csv = client.get(reverse("run-csv", args=[run.pk])).content.decode()
    assert "admit_limit_rps" in csv.splitlines()[0]  # the export keeps its English keys
    data = json.loads(client.get(reverse("run-json", args=[run.pk])).content)
    assert "admit_limit_rps" in data["result"]["series"]


def test_the_compare_page_titles_its_charts_in_marathi(client, people):
    a = finished_run(people.alice, lab="phase-map")
    b = finished_run(people.alice, lab="phase-map", seed=1)
    client.force_login(people.alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    page = client.get(reverse("run-compare"), {"run": [a.id, b.id]}).content.decode()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    english = client.get(reverse("run-compare"), {"run": [a.id, b.id]}).content.decode()
    assert "Spike arrivals (per second): both runs" in english  # guard
    assert "spike arrivals" not in page.lower() and "spike rps" not in page.lower()
    with translation.override("mr"):
        words = named("spike_rps", get_lab("phase-map"))  # the phase map's own name
    assert DEVANAGARI.search(words)
    assert words.capitalize() in page or words in page
