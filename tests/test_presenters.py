"""What a run page shows: the headline, the display tables and the charts."""

from __future__ import annotations

from django.urls import reverse

from labs.catalogue.entries import get_lab
from labs.runs.execution import run_lab
from labs.runs.models import Run
from labs.runs.progress import SilentProgress
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
