"""Who is a teacher: members of the 'teachers' group (made by a migration)."""

from __future__ import annotations

TEACHERS_GROUP = "teachers"


def is_teacher(user) -> bool:
    if not user.is_authenticated:
        return False
    return user.groups.filter(name=TEACHERS_GROUP).exists()
