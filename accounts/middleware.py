"""Send someone who logged in with a one-time password to choose their own first."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from accounts.models import Profile


class PasswordChangeRequiredMiddleware:
    """Every page but the password change, the language switch, logout and health checks
    redirects there."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if self._must_change(request):
            return redirect("password_change")
        return self.get_response(request)

    def _must_change(self, request: HttpRequest) -> bool:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return False
        # Static files never get here (WhiteNoise answers them first).
        # The language switch too: the change page should be readable in their language.
        allowed = (
            reverse("password_change"),
            reverse("logout"),
            reverse("set-language"),
            "/healthz",
        )
        if request.path_info.startswith(allowed):
            return False
        return Profile.objects.filter(user=user, must_change_password=True).exists()
