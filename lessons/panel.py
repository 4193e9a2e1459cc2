"""Rendering the self-check panel, alone (htmx) or inside its own page (no JavaScript)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from lessons.forms import SelfCheckForm
from lessons.marking import Mark


def panel_context(unit, form: SelfCheckForm, marks: list[Mark] | None) -> dict:
    by_key = {m.question.key: m for m in marks or []}
    rows = [(q, field, by_key.get(q.key)) for q, field in form.rows()]
    right = sum(m.right for m in marks) if marks else 0
    return {"unit": unit, "form": form, "rows": rows, "marked": marks is not None, "right": right}


def render_panel(
    request: HttpRequest, unit, form: SelfCheckForm, marks: list[Mark] | None, status: int = 200
) -> HttpResponse:
    template = "lessons/selfcheck.html"
    if getattr(request, "htmx", False):
        template += "#selfcheck-panel"
    return render(request, template, panel_context(unit, form, marks), status=status)
