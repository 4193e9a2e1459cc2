"""The layers of docs/ARCHITECTURE.md, held by reading every module's imports.

A module may import only from the layers below it; these are the rules that keep
`labs.sim` pure, `labs.experiments` Django-free, charts drawing only, and the `Run` model
free of the kept queue.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.nodb  # reads source files only: once is enough

ROOT = Path(__file__).resolve().parent.parent

# (modules under this folder, imports they may not make: a prefix of the imported name)
RULES = [
    ("labs/sim", ("django", "redis", "labs.experiments", "labs.runners", "labs.charts",
                  "labs.catalogue", "labs.runs", "labs.web", "labs.capstone", "labs.text")),
    ("labs/experiments", ("django", "labs.runners", "labs.charts", "labs.catalogue",
                          "labs.runs", "labs.web", "labs.capstone")),
    ("labs/text.py", ("django", "labs.")),
    ("labs/charts", ("django", "labs.sim", "labs.experiments", "labs.runners", "labs.runs",
                     "labs.web")),
    ("labs/runners", ("django", "labs.charts", "labs.runs.models", "labs.web")),
    ("labs/catalogue/lab.py", ("django", "labs.catalogue.entries")),
    ("labs/runs/models.py", ("labs.runs.kept_queue", "labs.runs.stale", "labs.web",
                             "labs.capstone")),
    ("labs/runs", ("labs.web", "labs.capstone")),
    ("labs/interface", ("django.db", "labs.runners", "labs.charts", "labs.catalogue", "labs.runs",
                        "labs.web", "labs.capstone")),
    ("labs/words", ("django", "labs.runners", "labs.charts", "labs.catalogue", "labs.runs",
                    "labs.web", "labs.capstone")),
    ("labs/catalogue", ("labs.capstone", "labs.runs", "labs.web")),
]  # fmt: skip


# Words a student reads are translated wherever they are written, so above the pure
# layers (sim, experiments) Django's translation functions are the one Django import allowed.
TRANSLATION = "django.utils.translation"
PURE = ("labs/sim", "labs/experiments")


def imported_names(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def modules(where: str) -> list[Path]:
    path = ROOT / where
    return [path] if path.suffix == ".py" else sorted(path.rglob("*.py"))


@pytest.mark.parametrize(("where", "forbidden"), RULES, ids=[where for where, _ in RULES])
def test_a_layer_imports_nothing_above_it(where, forbidden):
    found = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in modules(where)
        for name in imported_names(path)
        if any(name == f.rstrip(".") or name.startswith(f.rstrip(".") + ".") for f in forbidden)
        and (where in PURE or not name.startswith(TRANSLATION))
    ]
    assert found == []


def test_the_rules_see_a_forbidden_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from django.db import models\nimport labs.runs.models\n")
    assert imported_names(probe) == ["django.db", "django.db.models", "labs.runs.models"]
