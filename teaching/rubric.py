"""A teacher's rubric: the items they score a hand-in on, each out of a number of points.

Written one item per line as `Names the loop that keeps the service down: 5`; parsed into
`[{"item": ..., "max": 5}]` with a message per bad line, like the criteria.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from labs.text import WHOLE
from teaching.criteria import CriteriaError

MAX_ITEMS = 12
MAX_POINTS = 100
MAX_ITEM_LENGTH = 120


def parse_rubric(text: str) -> list[dict[str, Any]]:
    """One item per non-empty line, `description: points`; raises CriteriaError."""
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1)]
    lines = [(n, line) for n, line in lines if line]
    if len(lines) > MAX_ITEMS:
        raise CriteriaError(
            [
                _("At most %(most)d rubric items, got %(got)d.")
                % {"most": MAX_ITEMS, "got": len(lines)}
            ]
        )
    items, problems, seen = [], [], set()
    for number, line in lines:
        item, _colon, points = line.rpartition(":")
        item, points = item.strip(), points.strip()
        problem = ""
        if not item or not WHOLE.fullmatch(points):  # 0-9 only: isdigit() takes "٣" and "²"
            problem = _(
                "write an item as: what you look for, a colon, its points; "
                "for example Names the loop: 5."
            )
        elif not 1 <= int(points) <= MAX_POINTS:
            problem = _("give between 1 and %(most)d points.") % {"most": MAX_POINTS}
        elif len(item) > MAX_ITEM_LENGTH:
            problem = _("too long: at most %(most)d characters.") % {"most": MAX_ITEM_LENGTH}
        elif item in seen:
            problem = _("this item is already in the rubric.")
        if problem:
            problems.append(
                _("Line %(number)d ('%(line)s'): %(problem)s")
                % {"number": number, "line": line[:60], "problem": problem}
            )
            continue
        seen.add(item)
        items.append({"item": item, "max": int(points)})
    if problems:
        raise CriteriaError(problems)
    return items


def rubric_text(rubric: Sequence[dict[str, Any]]) -> str:
    return "\n".join(f"{entry['item']}: {entry['max']}" for entry in rubric)
