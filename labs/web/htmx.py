"""The request type of a view that reads `request.htmx` (set by django-htmx's middleware).

django-htmx documents this subclass rather than shipping it: annotating a view's request
with it lets the type checker see `request.htmx` instead of switching the check off.
"""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
