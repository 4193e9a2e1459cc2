"""A run's name reaches another student's chart as text, never as a link or markup."""

from __future__ import annotations

import json

import pytest

from labs.charts.base import plotly_text
from labs.web.compare import compare_runs
from tests.base import finished_run
from tests.lab_helpers import lab

NAME = '<a href="https://example.com/x">click</a> & <b>bold</b>'


def test_plotly_text_escapes_the_markup_plotly_reads():
    assert plotly_text(NAME) == (
        '&lt;a href="https://example.com/x"&gt;click&lt;/a&gt; &amp; &lt;b&gt;bold&lt;/b&gt;'
    )
    assert plotly_text("8 workers") == "8 workers"


@pytest.mark.django_db
def test_the_compare_charts_carry_run_names_escaped(people):
    a = finished_run(people.alice)
    a.name = NAME
    a.save()
    b = finished_run(people.alice, per_worker=50)
    charts = compare_runs(a, b, lab("drain")).charts
    assert charts
    names = [trace["name"] for fig in charts for trace in fig["data"]]
    assert plotly_text(NAME) in names
    assert "<a " not in json.dumps(charts)
