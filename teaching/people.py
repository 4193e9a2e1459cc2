"""How a student is named on teaching's pages, including one whose data was removed.

A removed student's account stays as an empty shell (`accounts.removal`), so their runs'
figures still count in the class's statistics; its username starts with a character no
sign-up, roster or admin form accepts (Django's username validator refuses `~`), so no
real person can ever be mistaken for one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext_lazy

REMOVED_PREFIX = "~removed-"
REMOVED = gettext_lazy("removed student")


def is_removed(user) -> bool:
    return user.get_username().startswith(REMOVED_PREFIX)


def shown_username(user) -> str:
    """The username, or "removed student" in the reader's language."""
    return str(REMOVED) if is_removed(user) else user.get_username()


def shown_username_en(user) -> str:
    """The same for a file a teacher downloads (CSV headers and values stay English)."""
    return "removed student" if is_removed(user) else user.get_username()


def natural_key(username: str) -> tuple[tuple[int, int, str], ...]:
    """Order names as people count: student2 before student10, case aside."""
    parts = (p for p in re.split(r"(\d+)", username.casefold()) if p)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)


def in_natural_order(items: Iterable[Any], user=lambda item: item) -> list[Any]:
    """`items` sorted by their user's username in natural order (`user` finds the user)."""
    return sorted(items, key=lambda item: natural_key(user(item).get_username()))
