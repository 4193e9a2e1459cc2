"""Every page a signed-in person gets is marked `Cache-Control: private`.

Their pages carry their name, their runs, their class's marks, and the exports (gradebook
CSV, a report's Markdown, a class's zip) their data: a shared cache between the school and
the site (a proxy, a CDN) must never keep one and hand it to the next student on the same
address. Browsers still keep them (a private cache is the browser's own). Static files never
come here (WhiteNoise answers them earlier) and stay cacheable for a year.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control


class PrivateCacheMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, private=True)
        return response
