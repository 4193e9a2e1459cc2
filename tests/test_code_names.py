"""No help text and no student page names a parameter by its code name (issue 36, item 8).

A student reads "the admission rate", not `admit_rps`: every lab parameter's label, help
and limit, and the words every template (but the operators' pages) writes itself, are
scanned for snake_case names.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from labs.catalogue.entries import LABS

pytestmark = pytest.mark.nodb

TEMPLATES = Path(settings.BASE_DIR) / "templates"
SNAKE = re.compile(r"(?<![\w./%(-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/(-])")
# What a template writes itself: no tags, no variables, no markup, no code samples.
NOT_WORDS = [
    re.compile(pattern, re.S)
    for pattern in (
        r"\{#.*?#\}",
        r"<pre\b.*?</pre>",
        r"<script\b.*?</script>",
        r"<style\b.*?</style>",
        r"\{%.*?%\}",
        r"\{\{.*?\}\}",
        r"<[^>]*>",
    )
]


def code_names(text: str) -> list[str]:
    return SNAKE.findall(text)


def template_words(source: str) -> str:
    for pattern in NOT_WORDS:
        source = pattern.sub(" ", source)
    return source


def test_no_parameter_is_explained_by_a_code_name():
    found = [
        f"{lab.slug}.{p.name} {what}: {name!r} in {text!r}"
        for lab in LABS
        for p in lab.params
        for what, text in (("label", p.label), ("help", p.help), ("limit", p.limit))
        if isinstance(text, str)
        for name in code_names(text)
    ]
    assert found == []


def test_no_lab_says_what_it_leaves_out_with_a_code_name():
    found = [f"{lab.slug}: {name!r}" for lab in LABS for name in code_names(str(lab.leaves_out))]
    assert found == []


def test_no_student_page_writes_a_code_name():
    found = [
        f"{path.relative_to(TEMPLATES)}: {name}"
        for path in sorted(TEMPLATES.rglob("*.html"))
        if path.parts[len(TEMPLATES.parts)] != "ops"  # the operators' own pages
        for name in code_names(template_words(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_a_code_name_is_found_and_a_placeholder_is_not():
    assert code_names("Refuse new work above admit_rps with a fast 429.") == ["admit_rps"]
    assert code_names("%(fail_max)s failures in a row; see labs/sim/trapped.py") == []
    assert template_words("<code>recover_at_s</code> {{ field.name }}").split() == ["recover_at_s"]
