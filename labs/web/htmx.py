"""The request types of our views: `request.htmx` (set by django-htmx's middleware), and a
signed-in user.

django-htmx documents this subclass rather than shipping it: annotating a view's request
with it lets the type checker see `request.htmx` instead of switching the check off.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


class SignedInRequest(HtmxHttpRequest):
    """The request of a view behind `@login_required`: its user is a real account."""

    user: User
