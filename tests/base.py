"""People the tests share: a teacher and two students, built in code."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group

from labs.roles import TEACHERS_GROUP

PASSWORD = "test-password-123"


@dataclass
class People:
    teacher: object
    alice: object
    bob: object


@cache
def password_hash() -> str:
    """Hash PASSWORD once: the real hasher is slow on purpose, and tests make many users."""
    return make_password(PASSWORD)


def make_user(username: str, *, teacher: bool = False):
    user = get_user_model().objects.create(username=username, password=password_hash())
    if teacher:
        user.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])
    return user


def make_people() -> People:
    return People(
        teacher=make_user("tara", teacher=True), alice=make_user("alice"), bob=make_user("bob")
    )
