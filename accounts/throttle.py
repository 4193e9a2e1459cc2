"""Failed-login pauses on top of django-axes, that no one can turn into a lockout.

A pause never blocks the right password from a device that has logged in as that user
before (`accounts.devices`: a signed, HttpOnly cookie set at login). From any other device
failures are counted three ways (AXES_LOCKOUT_PARAMETERS, in this order):

- per username and address, LOGIN_FAILURES_PER_USERNAME (5): bounds guessing at one
  account from one place, and pauses only that pair, so a classmate's guesses from the
  school's address pause the classmate's script and any new device there, not the
  student's own phone, and not the student at home;
- per address, LOGIN_FAILURES_PER_ADDRESS (50): bounds spraying many usernames; it refuses
  only wrong passwords (a class shares the school's address, so its right passwords go on);
- per username from anywhere, LOGIN_FAILURES_PER_USERNAME_ANYWHERE (30): bounds guessing
  spread over many addresses; it pauses unknown devices only.

Why it is no oracle: a made-up username is counted and paused exactly like a real one, and
the answers (the same form error, the same 429 page) never depend on whether the account
exists. A teacher lifts the pauses of a class in one click (class accounts page); a new
slip lifts the student's own.
"""

from __future__ import annotations

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Sum
from django.http import HttpRequest
from django.utils import timezone

from accounts.devices import count_failure, known_device


class UsernameAndAddressHandler(AxesDatabaseHandler):
    """Axes' database handler (shared by every web process) with the pauses above."""

    def _counts(self, request, credentials: dict | None) -> tuple[int, int, int]:
        # The querysets come in the order of AXES_LOCKOUT_PARAMETERS.
        by_pair, by_address, by_username = (
            attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        )
        return by_pair, by_address, by_username

    def _paused(self, request, credentials: dict | None) -> bool:
        if known_device(request, get_client_username(request, credentials)):
            return False
        by_pair, by_address, by_username = self._counts(request, credentials)
        if by_pair >= settings.LOGIN_FAILURES_PER_USERNAME:
            return True
        if by_username >= settings.LOGIN_FAILURES_PER_USERNAME_ANYWHERE:
            return True
        return by_address >= settings.LOGIN_FAILURES_PER_ADDRESS and not _right_password(
            credentials
        )

    def get_failures(self, request, credentials: dict | None = None) -> int:
        # Axes compares this with AXES_FAILURE_LIMIT after a failure: at the limit = paused.
        return settings.AXES_FAILURE_LIMIT if self._paused(request, credentials) else 0

    def is_locked(self, request, credentials: dict | None = None) -> bool:
        return self._paused(request, credentials)

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        count_failure(request, get_client_username(request, credentials))
        super().user_login_failed(sender, credentials, request, **kwargs)


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
    if user is None:
        # Hash anyway, as Django's login does: the time taken must not say who exists.
        get_user_model()().set_password(password)
        return False
    return user.check_password(password)


def paused_usernames(usernames: list[str]) -> set[str]:
    """Those of `usernames` with enough recent failures (at any address) to be paused
    somewhere: what a teacher's page marks (one query)."""
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    rows = (
        AccessAttempt.objects.filter(username__in=usernames, attempt_time__gte=since)
        .values("username", "ip_address")
        .annotate(n=Sum("failures_since_start"))
    )
    totals: dict[str, int] = {}
    paused = set()
    for row in rows:
        totals[row["username"]] = totals.get(row["username"], 0) + row["n"]
        if row["n"] >= settings.LOGIN_FAILURES_PER_USERNAME:
            paused.add(row["username"])
    anywhere = settings.LOGIN_FAILURES_PER_USERNAME_ANYWHERE
    return paused | {name for name, n in totals.items() if n >= anywhere}


def lift_pauses_of(usernames: list[str]) -> int:
    """Forget the failures of `usernames`: how many of them were paused."""
    paused = paused_usernames(usernames)
    for username in usernames:
        axes_reset(username=username)
    return len(paused)
