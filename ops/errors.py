"""The site's own page for a refused form (CSRF), in the reader's language and the site's
look, instead of Django's English default (whose Marathi said more was "available with
DEBUG=True"). A bad request (400) gets `templates/400.html` through Django's own handler."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """`CSRF_FAILURE_VIEW`: a form the site could not tie to this browser's session.

    The reason (a missing cookie, a wrong token) is for the logs, never the page: it names
    Django's internals and helps nobody who only pressed a button on a stale page.
    """
    template = "403_csrf.html#csrf-words" if getattr(request, "htmx", False) else "403_csrf.html"
    return render(request, template, status=403)
