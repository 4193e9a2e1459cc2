"""Failed-login throttling on top of django-axes: one limit per username, one per address.

Axes compares the larger of the two failure counts with one limit. A school's whole class
usually reaches the site from one address, so that address needs a higher limit than a
single username, or a few typos by thirty students would lock the class out. This handler
scales the address's count down so each has its own limit (settings
LOGIN_FAILURES_PER_USERNAME and LOGIN_FAILURES_PER_ADDRESS).
"""

from __future__ import annotations

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest


class UsernameAndAddressHandler(AxesDatabaseHandler):
    """Axes' database handler (shared by every web process) with a limit per parameter."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        # The querysets come in the order of AXES_LOCKOUT_PARAMETERS: username, address.
        by_username, by_address = (
            attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        )
        per_username = settings.LOGIN_FAILURES_PER_USERNAME
        per_address = settings.LOGIN_FAILURES_PER_ADDRESS
        # In units of the username limit, which axes compares against.
        return max(by_username, by_address * per_username // per_address)


def client_address(request: HttpRequest) -> str:
    """The address failures are counted against (the proxy's last hop when behind one)."""
    if settings.BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-1]
    return request.META.get("REMOTE_ADDR", "")
