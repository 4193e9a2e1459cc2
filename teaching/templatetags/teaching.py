"""`{{ user|shown_username }}`: a student's username, or "removed student"."""

from __future__ import annotations

from django import template

from teaching.people import shown_username as _shown_username

register = template.Library()


@register.filter
def shown_username(user) -> str:
    return _shown_username(user)
