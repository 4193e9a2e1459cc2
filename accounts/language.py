"""The language a person reads the site in: picked once, remembered, applied on every page.

Visitors: Django's `LocaleMiddleware` reads the language cookie, else the browser's
Accept-Language. Signed-in people: `Profile.language` wins over both. It is copied into the
session at login (so pages cost no extra query) and into the cookie on the way out, so the
site stays in that language after logging out and on the login page next time.
"""

from __future__ import annotations

from typing import TypeGuard

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts.models import Profile

SESSION_KEY = "profile_language"  # "" = the profile follows the browser


def supported(code: str | None) -> TypeGuard[str]:
    return bool(code) and code in dict(settings.LANGUAGES)


def profile_language(user) -> str:
    """The profile's language, or '' when the person never picked one (no row is made)."""
    found = Profile.objects.filter(user=user).values_list("language", flat=True).first()
    return found if supported(found) else ""


def remember_at_login(sender, request, user, **kwargs) -> None:
    """Copy the profile's language into the session at login (connected to Django's
    `user_logged_in` by `AccountsConfig.ready`)."""
    if request is not None and hasattr(request, "session"):
        request.session[SESSION_KEY] = profile_language(user)


def set_cookie(response: HttpResponse, code: str) -> None:
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE or 365 * 24 * 3600,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE or "Lax",
    )


class ProfileLanguageMiddleware:
    """After `AuthenticationMiddleware`: a signed-in person's own language wins.

    Sessions made before this existed (no key yet) look the profile up once.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        code = request.session.get(SESSION_KEY)
        if code is None and request.user.is_authenticated:
            code = request.session[SESSION_KEY] = profile_language(request.user)
        if supported(code):
            translation.activate(code)
            request.LANGUAGE_CODE = code
        response = self.get_response(request)
        # Read again: this request may have been the login that set it.
        code = request.session.get(SESSION_KEY)
        if supported(code) and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != code:
            set_cookie(response, code)
        return response


def safe_next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.headers.get("referer") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("home")


@require_POST
def switch_language(request: HttpRequest) -> HttpResponse:
    """The मराठी / English buttons: remember the choice, then go back to the same page."""
    code = request.POST.get("language", "")
    if not supported(code):
        return HttpResponseBadRequest("Unknown language.")
    if request.user.is_authenticated:
        Profile.objects.update_or_create(user=request.user, defaults={"language": code})
        request.session[SESSION_KEY] = code
    translation.activate(code)
    response = HttpResponseRedirect(safe_next(request))
    set_cookie(response, code)
    return response
