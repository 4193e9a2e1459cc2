"""Chart colours come from one place: `labs/charts/base.py` names them, and no other chart
module writes a colour's code (`"#1f6feb"`, `"rgba(31,111,235,0.08)"`).

So one meaning keeps one colour in every lab (a student learns green, red and amber once),
and a colour changed in base.py changes everywhere it means the same. A chart module is any
module in a `charts` folder or whose file name says chart (`labs/capstone/charts.py`,
`teaching/class_results/charts.py`, and each lab folder's `charts.py`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.nodb  # reads source files only

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("labs", "lessons", "teaching", "accounts", "ops")
HOME = Path("labs/charts/base.py")  # the one module that may write a colour's code
COLOUR = re.compile(r"#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3,4})\b|\b(?:rgba?|hsla?)\(")


def chart_modules(root: Path) -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root)
            in_charts = "charts" in relative.parts[:-1] or "chart" in path.stem
            if in_charts and relative != HOME and "migrations" not in relative.parts:
                yield path


def colour_codes(source: str) -> Iterator[tuple[int, str]]:
    """(line, string) for each string in `source` that holds a colour's code."""
    for node in ast.walk(ast.parse(source)):
        text = node.value if isinstance(node, ast.Constant) else None
        if isinstance(text, str) and (match := COLOUR.search(text)):
            yield node.lineno, match.group(0)


def written_outside_base(root: Path) -> list[str]:
    return [
        f"{path.relative_to(root)}:{line}: {code}"
        for path in chart_modules(root)
        for line, code in colour_codes(path.read_text(encoding="utf-8"))
    ]


def test_no_chart_module_but_base_writes_a_colour() -> None:
    assert written_outside_base(ROOT) == []


def test_the_check_sees_the_chart_modules() -> None:
    found = {str(path.relative_to(ROOT)) for path in chart_modules(ROOT)}
    assert {
        "labs/capstone/charts.py",
        "teaching/class_results/charts.py",
        "labs/course/lesson_13/breaker/charts.py",
    } <= found
    assert str(HOME) not in found


def test_it_names_a_colour_written_in_a_chart_module(tmp_path: Path) -> None:
    planted = tmp_path / "labs" / "course" / "demo" / "charts.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(
        '"""A chart."""\n'
        'LINE = "#1F6FEB"  # a comment saying #abcdef is not a string\n'
        'BAND = {"fillcolor": "rgba(31,111,235,0.08)"}\n'
        'TITLE = f"{LINE} run #12"\n',
        encoding="utf-8",
    )
    (tmp_path / "labs" / "charts").mkdir(parents=True)
    (tmp_path / HOME).write_text('BLUE = "#1f6feb"\n', encoding="utf-8")
    assert written_outside_base(tmp_path) == [
        "labs/course/demo/charts.py:2: #1F6FEB",
        "labs/course/demo/charts.py:3: rgba(",
    ]
