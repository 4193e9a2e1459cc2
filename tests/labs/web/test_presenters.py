"""What a run page shows: the headline, the display tables and the charts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from labs.catalogue.entries import get_lab
from labs.interface.progress import SilentProgress
from labs.runs.execution import run_lab
from labs.runs.models import Run
from labs.web.presenters import present_run, shown_tables


def test_it_shows_only_the_tables_made_for_the_page():
    shown = {"title": "Each rule", "columns": ["rule"], "rows": [["fixed 3"]]}
    tables = {"rule": "fixed 3", "per_second": {"second": [0]}, "rules": shown}
    assert shown_tables({"tables": tables}) == [shown]


def test_it_keeps_the_runners_table_order_whatever_the_database_did():
    first = {"title": "First", "columns": ["a"], "rows": [[1]]}
    second = {"title": "Second", "columns": ["a"], "rows": [[2]]}
    stored = {"tables": {"zz": second, "a": first}, "tables_order": ["a", "zz"]}
    assert shown_tables(stored) == [first, second]


def test_it_renders_a_labs_tables_on_the_run_page(client, people):
    lab = get_lab("drain-compare")
    result = run_lab(lab, lab.defaults(), 0, SilentProgress())
    run = Run.objects.create(
        owner=people.alice, lab=lab.slug, params=lab.defaults(), seed=0, status="succeeded",
        result=result,
    )  # fmt: skip
    assert [t["title"] for t in present_run(run, lab).tables] == ["Each rule"]
    client.force_login(people.alice)
    html = client.get(run.get_absolute_url()).content.decode()
    assert "<caption>Each rule</caption>" in html
    assert "<td>1 per 50 waiting, max 20</td><td>700</td><td>14</td>" in html
    assert "fixed 3: peak backlog 1,500" in html


def test_it_shows_the_lessons_seed_in_a_seeded_labs_form(client, db):
    html = client.get(reverse("lab-detail", args=["retry-storm"])).content.decode()
    assert 'name="seed" value="123"' in html


def test_a_saved_table_is_shown_in_the_readers_words_ids_and_numbers_as_saved():
    from django.utils import translation

    from labs.experiments.trapped.controls import switch_phrase
    from labs.runners.common import table
    from labs.text import phrase

    saved = table(
        phrase("Parked in the DLQ with maxReceiveCount %(n)s", n=5),
        ["try", "receives"],
        [["gave up", 18], ["pdf-3", 2], [switch_phrase("admission_limit on (60)"), 1]],
    )
    old = table("Parked in the DLQ with maxReceiveCount 3", ["receives"], [[1]])
    result = {"tables": {"new": saved, "old": old}, "tables_order": ["new", "old"]}
    with translation.override("mr"):
        new, kept = shown_tables(result)
        words = {
            msgid: translation.gettext(msgid)
            for msgid in ("gave up", "try", "Admission limit", "%(control)s on (%(value)s)")
        }
    assert "maxReceiveCount 5" in new["title"] and "Parked" not in new["title"]
    assert new["columns"][0] == words["try"] != "try"
    assert new["rows"][0] == [words["gave up"], 18] and words["gave up"] != "gave up"
    assert new["rows"][1] == ["pdf-3", 2]  # an id is no msgid: shown as saved
    control = words["%(control)s on (%(value)s)"] % {
        "control": words["Admission limit"],
        "value": "60",
    }
    assert new["rows"][2] == [control, 1] and "admission_limit" not in control
    # A result saved before its title was a phrase still shows, in its English.
    assert kept["title"] == "Parked in the DLQ with maxReceiveCount 3"


def test_an_unknown_switch_label_is_kept_as_it_is():
    from labs.experiments.trapped.controls import switch_phrase

    assert switch_phrase("warp_drive on") == "warp_drive on"
    assert switch_phrase("drop_expired off") == {
        "msgid": "%(control)s off",
        "values": {"control": {"msgid": "Drop expired work", "values": {}}},
    }


def test_every_chart_and_table_title_reads_in_marathi_numbers_in_western_digits():
    """Titles built around a number ("... 5,000,000 jobs", "... at 2,000 req/s") included."""
    import json
    import re

    from django.utils import translation

    from labs.catalogue.entries import LABS
    from tests.base import EXPERIMENT_RESULTS

    devanagari = re.compile("[\u0900-\u097f]")
    missing = []
    for lab in LABS:
        if lab.kind == "experiment":
            result = json.loads((EXPERIMENT_RESULTS / f"{lab.slug}.json").read_text())
        else:
            result = run_lab(lab, lab.defaults(), lab.default_seed, SilentProgress())
        with translation.override("mr"):
            titles = [fig["layout"]["title"]["text"] for fig in lab.charts(result)]
            titles += [t["title"] for t in shown_tables(result)]
        missing += [f"{lab.slug}: {t!r}" for t in titles if t and not devanagari.search(t)]
        assert not any(re.search("[\u0966-\u096f]", t) for t in titles), lab.slug
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize(
    "slug", ["burst-live", "poison-live", "at-least-once", "idempotent-charges"]
)
def test_figures_named_per_pool_or_setting_have_their_marathi(slug):
    """Labels once built with an f-string ("Fixed pool: …", "… maxReceiveCount 3") are msgids."""
    from django.utils import translation

    lab = get_lab(slug)
    with translation.override("mr"):
        untranslated = [f.label for f in lab.figures if translation.gettext(f.label) == f.label]
    assert not untranslated


def test_a_switch_in_the_live_trapped_chart_is_labelled_in_the_readers_words():
    from django.utils import translation

    from labs.course.assignment_05.trapped_live.charts import live_chart
    from labs.course.assignment_05.trapped_live.run import switch_words

    sample = {"second": 12, "switched": "admission_limit on (60); drop_expired on"}
    sample |= switch_words(sample)
    older = {"second": 14, "switched": "drop_expired off"}  # saved before the words
    with translation.override("mr"):
        params = {"trigger_start_s": 5, "trigger_end_s": 10}
        notes = [a["text"] for a in live_chart([sample, older], params)["layout"]["annotations"]]
        limit = translation.gettext("Admission limit")
    assert any(limit in n and "60" in n for n in notes) and "drop_expired off" in notes
    assert not any("admission_limit" in n for n in notes)


def test_a_saved_phrase_never_breaks_a_page():
    from labs.text import phrase, said

    assert said(phrase("%(n)s copies", n=3)) == "3 copies"
    assert said(phrase("%(n)s copies", m=3)) == "%(n)s copies"  # values that do not fit
    assert said({"msgid": "%(n)s copies", "values": None}) == "%(n)s copies"
    assert said(phrase("%(copies)s of each", copies=phrase("%(n)s copies", n=2))) == (
        "2 copies of each"
    )
    assert (said("sms-3"), said(18), said(None), said("")) == ("sms-3", 18, None, "")
