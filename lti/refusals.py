"""A launch that fails a check gets a page saying which check, in the reader's language
(4xx, never a 500): PyLTI1p3's English exception messages mapped to our reasons."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

REASONS = {
    "expired": (
        _("The launch has expired."),
        _(
            "The LMS's signed launch is good for a few minutes only. Open the link in the "
            "course again."
        ),
    ),
    "audience": (
        _("The launch was meant for another tool, or this LMS is not registered here."),
        _(
            "Its audience (client id) or issuer matches no registration of this site. An admin "
            "registers the LMS (see the README)."
        ),
    ),
    "deployment": (
        _("This LMS deployment is not known to the site."),
        _(
            "The deployment id in the launch is not one an admin has allowed. An admin of this "
            "site turns it on under LTI deployments in /admin/."
        ),
    ),
    "replayed": (
        _("This launch was already used."),
        _(
            "A launch can be used once: its nonce was seen before. Open the link in the course "
            "again."
        ),
    ),
    "signature": (
        _("The launch's signature does not match the LMS's keys."),
        _(
            "It was not signed by the registered LMS, or was changed on the way. Nothing was "
            "opened."
        ),
    ),
    "state": (
        _("The launch did not start from this browser's login step."),
        _(
            "Its state does not match the one given at login (a cookie the browser did not "
            "keep, or a copied form). Open the link in the course again."
        ),
    ),
    "bad": (
        _("The launch could not be read."),
        _("The LMS sent something that is not an LTI 1.3 launch the site can check."),
    ),
    "login": (
        _("The login request is missing what LTI 1.3 needs."),
        _(
            "It needs the issuer, a login hint and the target link. Start from the link in the "
            "course."
        ),
    ),
    "no-class": (
        _("This course has no class on the site yet."),
        _(
            "The course's teacher opens any link of the site in the course first; that makes "
            "the class."
        ),
    ),
    "other-teacher": (
        _("The course's class on this site has another teacher."),
        _(
            "A class here has one teacher: the course's first instructor to open the site. "
            "Ask them to share the class's results, or a site admin to make you its teacher."
        ),
    ),
    "not-instructor": (
        _("Only a teacher of the course can choose what to link."),
        _("Your role in the course is not instructor."),
    ),
    "continue": (
        _("This link to open the site has expired or was used."),
        _("Open the link in the course again."),
    ),
    "deep-link-expired": (
        _("The choice came too late."),
        _(
            "Choosing a lab or an assignment works for a while after the LMS opens it. Start "
            "again from the LMS."
        ),
    ),
    "deep-link-pick": (
        _("Pick a lab or an assignment."),
        _("Nothing known was chosen."),
    ),
    "staff": (_("Not here."), _("This page is for the site's admins.")),
    "registration": (
        _("The registration could not be made."),
        _(
            "Open this page from the LMS's dynamic registration: it brings the LMS's "
            "configuration and a registration token, and the LMS must answer."
        ),
    ),
}


def reason_of(message: str) -> tuple[str, int]:
    """Our reason (and status) for PyLTI1p3's message."""
    text = message.lower()
    if "expired" in text:
        return "expired", 403
    if any(
        words in text
        for words in ("registration not found", "client id not registered", "registration details")
    ):
        return "audience", 403
    if "nonce" in text:
        return "replayed", 403
    if "state" in text:
        return "state", 403
    if "signature" in text or "public key" in text or "kid" in text:
        return "signature", 403
    if "deployment" in text:
        return "deployment", 403
    return "bad", 400


def refused(request: HttpRequest, exc: Exception) -> HttpResponse:
    reason, status = reason_of(str(exc))
    return refused_page(request, reason, status=status, detail=str(exc))


def refused_page(
    request: HttpRequest, reason: str, *, status: int, detail: str = ""
) -> HttpResponse:
    title, words = REASONS[reason]
    context = {"title": title, "words": words, "reason": reason, "detail": detail}
    return render(request, "lti/refused.html", context, status=status)
