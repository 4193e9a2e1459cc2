"""Known devices: the right password from a device someone has logged in from always works.

Failed-login pauses (`accounts.throttle`) are what let one student lock a class out: five
wrong passwords for each classmate's username, and the right one then waited 15 minutes.
This is OWASP's "device cookie" answer to that: at every successful login the browser gets
a signed, HttpOnly cookie naming the accounts that logged in on it (a random device id and
up to `MOST_USERS` user ids; a school computer is shared). A login for one of those
accounts from that browser skips the pauses that others' guesses put on the username and
the address; only its own wrong passwords (`OWN_FAILURES`, counted per device and
username) pause it, like any unknown device. A script without the cookie, the attacker,
stays paused. The cookie names no username and cannot be forged without SECRET_KEY.
"""

from __future__ import annotations

import contextlib
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

COOKIE = "known_device"
SALT = "accounts.devices"
MOST_USERS = 8
MAX_AGE_S = 180 * 24 * 3600  # a school year and a half


def _read(request: HttpRequest) -> dict[str, Any] | None:
    raw = request.COOKIES.get(COOKIE)
    if not raw:
        return None
    try:
        value = signing.loads(raw, salt=SALT, max_age=MAX_AGE_S)
    except signing.BadSignature:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("d"), str):
        return None
    if not isinstance(value.get("u"), list):
        return None
    return value


def _user_pk(username: str | None) -> int | None:
    if not username:
        return None
    return get_user_model().objects.filter(username=username).values_list("pk", flat=True).first()


def _failures_key(device: str, user_pk: int) -> str:
    return f"login-fail:{device}:{user_pk}"


def known_device(request: HttpRequest | None, username: str | None) -> str | None:
    """This browser's device id if `username` has logged in on it and it has not used up
    its own failures; None otherwise."""
    if request is None:
        return None
    value = _read(request)
    user_pk = _user_pk(username)
    if value is None or user_pk is None or user_pk not in value["u"]:
        return None
    try:
        failures = cache.get(_failures_key(value["d"], user_pk), 0)
    except Exception:  # noqa: BLE001 - no cache, no exemption: the ordinary pauses apply
        return None
    if failures >= settings.LOGIN_FAILURES_PER_USERNAME:
        return None
    return value["d"]


def count_failure(request: HttpRequest | None, username: str | None) -> None:
    """A wrong password from a known device: counted against that device alone."""
    device = known_device(request, username)
    user_pk = _user_pk(username)
    if device is None or user_pk is None:
        return
    key = _failures_key(device, user_pk)
    timeout = int(settings.AXES_COOLOFF_TIME.total_seconds())
    with contextlib.suppress(Exception):  # no cache: the device is unknown from now on
        if not cache.add(key, 1, timeout):
            cache.incr(key)


def remember(sender, request, user, **kwargs) -> None:
    """At login: mark the request so the response names `user` on this device's cookie.
    Connected to Django's `user_logged_in` by `AccountsConfig.ready`."""
    if request is None:
        return
    value = _read(request) or {"d": secrets.token_urlsafe(12), "u": []}
    users = [pk for pk in value["u"] if pk != user.pk] + [user.pk]
    value["u"] = users[-MOST_USERS:]
    with contextlib.suppress(Exception):
        cache.delete(_failures_key(value["d"], user.pk))
    request._known_device = signing.dumps(value, salt=SALT)


class KnownDeviceMiddleware:
    """Sets the cookie `remember` prepared (a login answers with a redirect)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        value = getattr(request, "_known_device", None)
        if value:
            response.set_cookie(
                COOKIE,
                value,
                max_age=MAX_AGE_S,
                httponly=True,
                secure=settings.SESSION_COOKIE_SECURE,
                samesite="Lax",
            )
        return response
