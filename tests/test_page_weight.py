"""What a page costs to fetch: plotly.js only where charts are drawn, in a bundle that has
every trace the charts use; pages and fragments compressed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from labs.catalogue.entries import LABS
from tests.lab_helpers import run

BUNDLE = "plotly-cartesian-4.1.1.min.js"
BUNDLE_PATH = Path(settings.BASE_DIR) / "static" / "vendor" / BUNDLE


def bundle_traces() -> set[str]:
    """The trace types the bundle registers, from its own source."""
    head = BUNDLE_PATH.read_text(encoding="utf-8")
    # Each trace module declares itself with moduleType:"trace",name:"<type>".
    return set(re.findall(r'moduleType:"trace",name:"(\w+)"', head))


@pytest.mark.parametrize(
    "lab", [lab for lab in LABS if lab.kind == "sim"], ids=lambda entry: entry.slug
)
def test_every_chart_trace_is_in_the_bundle(lab):
    traces = {t.get("type", "scatter") for fig in lab.charts(run(lab.slug)) for t in fig["data"]}
    assert traces <= bundle_traces(), f"{lab.slug} draws {traces - bundle_traces()}"


def test_the_bundle_is_the_official_cartesian_one():
    head = BUNDLE_PATH.read_text(encoding="utf-8")[:200]
    assert "plotly.js (cartesian - minified) v4.1.1" in head
    assert {"scatter", "bar", "heatmap"} <= bundle_traces()


def test_plotly_is_named_once_and_only_fetched_by_charts_js(client, db):
    html = client.get(reverse("home")).content.decode()
    assert f'data-plotly="/static/vendor/{BUNDLE}"' in html
    assert f'<script src="/static/vendor/{BUNDLE}"' not in html


def test_pages_go_out_compressed(client, db):
    page = client.get(reverse("lab-detail", args=["drain"]), HTTP_ACCEPT_ENCODING="gzip")
    assert page["Content-Encoding"] == "gzip"
    plain = client.get(reverse("lab-detail", args=["drain"]))
    assert len(page.content) < len(plain.content) / 2


def test_no_lesson_page_has_a_chart_so_none_fetches_plotly(client, db):
    from labs.catalogue.units import UNITS

    for unit in UNITS:
        html = client.get(reverse("unit-detail", args=[unit.slug])).content.decode()
        assert 'class="chart"' not in html, unit.slug
