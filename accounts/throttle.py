"""Failed-login throttling on top of django-axes: one limit per username, one per address.

Axes compares the larger of the two failure counts with one limit. A school's whole class
usually reaches the site from one address, so that address needs a higher limit than a
single username, or a few typos by thirty students would lock the class out. This handler
scales the address's count down so each has its own limit (settings
LOGIN_FAILURES_PER_USERNAME and LOGIN_FAILURES_PER_ADDRESS).

An address's lock alone must not keep a class out: anyone behind the school's address can
send fifty wrong guesses. So when only the address is over its limit, the right password
for an existing account still logs in (its username's own limit, five failures, still
bounds guessing at any one account); wrong ones are refused as locked out. A username over
its limit stays locked whatever is typed, until the lock runs out, the class's teacher
gives the student a new slip, or an admin lifts it (README: "Locked out").
"""

from __future__ import annotations

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Sum
from django.http import HttpRequest


class UsernameAndAddressHandler(AxesDatabaseHandler):
    """Axes' database handler (shared by every web process) with a limit per parameter."""

    def _counts(self, request, credentials: dict | None) -> tuple[int, int]:
        # The querysets come in the order of AXES_LOCKOUT_PARAMETERS: username, address.
        by_username, by_address = (
            attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        )
        return by_username, by_address

    def get_failures(self, request, credentials: dict | None = None) -> int:
        by_username, by_address = self._counts(request, credentials)
        per_username = settings.LOGIN_FAILURES_PER_USERNAME
        per_address = settings.LOGIN_FAILURES_PER_ADDRESS
        # In units of the username limit, which axes compares against.
        return max(by_username, by_address * per_username // per_address)

    def is_locked(self, request, credentials: dict | None = None) -> bool:
        if not super().is_locked(request, credentials):
            return False
        by_username, _by_address = self._counts(request, credentials)
        if by_username >= settings.LOGIN_FAILURES_PER_USERNAME:
            return True
        return not _right_password(credentials)


def client_address(request: HttpRequest) -> str:
    """The address failures are counted against (the proxy's last hop when behind one)."""
    if settings.BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-1]
    return request.META.get("REMOTE_ADDR", "")


def _right_password(credentials: dict | None) -> bool:
    """Whether `credentials` name an existing, active account and its password."""
    credentials = credentials or {}
    username, password = credentials.get("username"), credentials.get("password")
    if not username or not password:
        return False
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    return user is not None and user.check_password(password)
