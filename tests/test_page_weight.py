"""What a page costs to fetch: plotly.js only where charts are drawn, in the smallest bundle
that has every trace the charts use; pages and fragments compressed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from labs.catalogue.entries import LABS
from tests.lab_helpers import run

BUNDLE = "plotly-lab-4.1.1-3.min.js"
BUNDLE_PATH = Path(settings.BASE_DIR) / "static" / "vendor" / BUNDLE
# Where figures are built: every chart a student or a teacher sees comes from these.
FIGURE_CODE = ["labs", "teaching", "ops", "lessons"]


# Layout components plotly.js has and the bundle leaves out (vendor-src/plotly/entry.js):
# a figure that names one would draw without it.
DROPPED = {"updatemenus", "sliders", "rangeslider", "rangeselector", "images", "grid"}


def bundle_components() -> set[str]:
    head = BUNDLE_PATH.read_text(encoding="utf-8")
    return set(re.findall(r'moduleType:"component",name:"(\w+)"', head))


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


def plotly_trace_types() -> set[str]:
    """Every trace type plotly knows (from the Python package's schema)."""
    import plotly.graph_objects as go
    from plotly.basedatatypes import BaseTraceType

    classes = [getattr(go, name) for name in dir(go)]
    return {
        c.__name__.lower()
        for c in classes
        if isinstance(c, type) and issubclass(c, BaseTraceType) and c is not BaseTraceType
    }


def named_trace_types(source: str, known: set[str]) -> set[str]:
    """Trace types a module names as a `"type"`: in a dict, a `type=` argument or
    `trace["type"] = ...` (shapes' and axes' types, `rect`, `line`, `log`, are not traces)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        values: list[ast.expr] = []
        if isinstance(node, ast.Dict):
            values = [v for k, v in zip(node.keys, node.values, strict=True) if _is_type(k)]
        elif (isinstance(node, ast.keyword) and node.arg == "type") or (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Subscript) and _is_type(t.slice) for t in node.targets)
        ):
            values = [node.value]
        found |= {v.value for v in values if isinstance(v, ast.Constant) and v.value in known}
    return found


def _is_type(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == "type"


def test_every_trace_type_the_code_names_is_in_the_bundle():
    """Live, compare, capstone and class charts too: any trace type named in the code that
    builds figures must be drawable by the bundle the pages load."""
    known = plotly_trace_types()
    root = Path(settings.BASE_DIR)
    named: dict[str, set[str]] = {}
    for package in FIGURE_CODE:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" not in path.parts:
                types = named_trace_types(path.read_text(encoding="utf-8"), known)
                named |= {str(path.relative_to(root)): types} if types else {}
    used = set().union(*named.values())
    assert {"scatter", "bar", "box", "heatmap"} <= used  # the scan finds what is there
    missing = {path: types - bundle_traces() for path, types in named.items()}
    assert not any(missing.values()), {p: t for p, t in missing.items() if t}


def layout_keys(source: str) -> set[str]:
    """Every string key of a dict literal in a module."""
    return {
        key.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Dict)
        for key in node.keys
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    }


def test_no_chart_names_a_component_the_bundle_left_out():
    root = Path(settings.BASE_DIR)
    chart_code = [*sorted((root / "labs" / "charts").glob("*.py"))]
    chart_code += [p for pkg in FIGURE_CODE for p in (root / pkg).rglob("*chart*.py")]
    assert len(chart_code) > 30
    named = {
        str(path.relative_to(root)): layout_keys(path.read_text(encoding="utf-8")) & DROPPED
        for path in chart_code
    }
    assert not any(named.values()), {p: k for p, k in named.items() if k}
    assert layout_keys('layout = {"xaxis": {"rangeslider": {"visible": True}}}') & DROPPED


def test_the_scan_finds_a_trace_type_the_bundle_lacks():
    source = 'def chart():\n    return {"data": [{"type": "violin", "y": [1]}], "layout": {}}\n'
    assert named_trace_types(source, plotly_trace_types()) == {"violin"}
    assert "violin" not in bundle_traces()


def test_the_bundle_is_plotlys_own_source_with_only_the_traces_we_draw():
    head = BUNDLE_PATH.read_text(encoding="utf-8")[:300]
    assert "plotly.js (lab: scatter, bar, box, heatmap; fewer components" in head
    assert "v4.1.1-3 |" in head
    assert bundle_traces() == {"scatter", "bar", "box", "heatmap"}
    assert not DROPPED & bundle_components()
    licence = BUNDLE_PATH.with_name("plotly-lab-4.1.1.LICENSE.txt").read_text(encoding="utf-8")
    assert "Plotly" in licence and "MIT" in licence or "Permission is hereby granted" in licence


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


def test_charts_js_names_every_part_of_itself():
    """charts.js is an ES module: a part named only by another part would be fetched a round
    trip later on a slow link, holding up DOMContentLoaded."""
    source = (Path(settings.BASE_DIR) / "static/labs/charts.js").read_text(encoding="utf-8")
    named = set(re.findall(r'^import [^;]*"\./charts/(\w+)\.js";$', source, re.MULTILINE))
    parts = {path.stem for path in (Path(settings.BASE_DIR) / "static/labs/charts").glob("*.js")}
    assert len(parts) > 10 and named == parts, parts ^ named


def test_charts_js_is_a_module(client, db):
    html = client.get(reverse("home")).content.decode()
    assert '<script type="module" src="/static/labs/charts.js"' in html
