"""A finished run's values and figures in words, for "what changed" under its headline.

The run's body carries them (`data-facts`); the lab page's `drafts.js` compares the run it
lands with the one shown before it and writes, under the headline, the values that differ
and what each figure did ("jitter (none → full) — busiest 10 ms slot (500 → 81 jobs)"). Every
word and number comes from here, in the reader's language: the script only sets two runs'
words side by side. Kept with the body (rendered once per run and language).
"""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext as _

from labs.catalogue.lab import Lab
from labs.interface.params import Param
from labs.runs.models import Run
from labs.text import plain, said
from labs.web.presenters import figure_words


def facts_json(run: Run, lab: Lab) -> str:
    """`{"params": [[name, label, words]], "figures": [[name, label, words]]}` as JSON."""
    summary = (run.result or {}).get("summary") or {}
    params = [
        [p.name, _(p.label), value_words(p, run.params[p.name])]
        for p in lab.params
        if p.name in run.params
    ]
    if lab.uses_seed:
        params.append(["seed", _("Seed"), str(run.seed)])
    figures = [
        [f.name, str(said(f.label)), figure_words(f, summary[f.name])]
        for f in lab.figures
        if f.name in summary
    ]
    return json.dumps({"params": params, "figures": figures}, ensure_ascii=False)


def value_words(param: Param, value: Any) -> str:
    """A parameter's value as the form shows it: a choice's label, yes or no, 50, 800."""
    if param.choices:
        for choice, label in param.choices:
            if choice == value:
                return _(label)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list | tuple):
        return ", ".join(plain(v) for v in value)
    return "—" if value is None else plain(value)
