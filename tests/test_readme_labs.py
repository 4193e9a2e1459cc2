"""README's lab table lists every lab of the catalogue, as the catalogue says it.

A lab added to the catalogue without its row (or a row left for a lab that went) fails here,
naming it; so does a row whose unit, kind (sim or experiment) or title no longer matches.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.nodb  # reads the catalogue and a file only

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(
    r"^\| (?P<unit>[^|]+?) \| `(?P<slug>[a-z0-9-]+)` \| (?P<kind>\w+) \| (?P<title>.+?) \|$"
)


def catalogue_labs() -> tuple[Any, ...]:
    """Every lab, in the catalogue's order (the one line to change if the list moves)."""
    from labs.catalogue.entries import LABS

    return tuple(LABS)


def unit_codes() -> dict[str, str]:
    from labs.catalogue.units import UNITS

    return {unit.slug: unit.code for unit in UNITS}


def readme_rows(text: str) -> dict[str, tuple[str, str, str]]:
    """slug -> (unit, kind, title) from the table under "## The labs"."""
    section = text.split("\n## The labs\n", 1)[1].split("\n## ", 1)[0]
    return {
        match["slug"]: (match["unit"], match["kind"], match["title"])
        for line in section.splitlines()
        if (match := ROW.match(line))
    }


def differences(text: str) -> list[str]:
    rows, codes = readme_rows(text), unit_codes()
    found = []
    for lab in catalogue_labs():
        want = (codes[lab.unit], lab.kind, lab.title)
        if lab.slug not in rows:
            found.append(f"{lab.slug}: missing from README's lab table")
        elif rows[lab.slug] != want:
            found.append(f"{lab.slug}: README says {rows[lab.slug]}, the catalogue {want}")
    slugs = {lab.slug for lab in catalogue_labs()}
    found += [f"{slug}: in README, not in the catalogue" for slug in rows if slug not in slugs]
    return found


def test_readme_lists_every_lab() -> None:
    assert differences((ROOT / "README.md").read_text(encoding="utf-8")) == []


def test_it_names_a_lab_missing_a_row_wrong_and_one_gone() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"^\| [^|]+ \| `drain` \|.*\n", "", text, flags=re.M)
    text = text.replace("| `fanout` | sim |", "| `fanout` | experiment |")
    text = text.replace(
        "| --- | --- | --- | --- |\n", "| --- | --- | --- | --- |\n| X | `gone` | sim | G |\n", 1
    )
    assert differences(text) == [
        "fanout: README says ('Lesson 07', 'experiment', 'Fan-out time: how many workers for 5 "
        "million SMS?'), the catalogue ('Lesson 07', 'sim', 'Fan-out time: how many workers for "
        "5 million SMS?')",
        "drain: missing from README's lab table",
        "gone: in README, not in the catalogue",
    ]
