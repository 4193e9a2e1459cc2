"""Send someone who logged in with a one-time password to choose their own first."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import HASH_SESSION_KEY
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from accounts.models import Profile
from accounts.throttle import client_address
from labs.runs.turns import pressed_from


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
        # Asked once per password, not on every request (a class's polls): a one-time
        # password, the only way the flag is set, changes the password's hash, and with it
        # the hash the session holds (Django checked it against the user's on this request).
        password = request.session.get(HASH_SESSION_KEY)
        if password and request.session.get(CHECKED_KEY) == password:
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
        return not _remember_if_free(request, user)


# The session's password hash for which no change was required.
CHECKED_KEY = "_password_change_checked_for"


def _remember_if_free(request: HttpRequest, user) -> bool:
    """Whether `user` may go on without changing their password; if so, the session keeps
    that answer for its password's hash."""
    if Profile.objects.filter(user=user, must_change_password=True).exists():
        return False
    password = request.session.get(HASH_SESSION_KEY)
    if password:
        request.session[CHECKED_KEY] = password
    return True


def check_at_login(sender, request, user, **kwargs) -> None:
    """Ask at login, when the session is written anyway: a signed-in person's first page
    then costs the same queries as every later one (no profile read, no session write).
    Connected to Django's `user_logged_in` by `AccountsConfig.ready`."""
    if request is not None and hasattr(request, "session"):
        _remember_if_free(request, user)


class RunAddressMiddleware:
    """Runs made while answering a request are recorded as pressed from its address, so a
    person's experiments take turns however many accounts they use (labs.runs.turns)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with pressed_from(client_address(request)):
            return self.get_response(request)
