"""A class's join link for a phone: a short link and its QR code, drawn by the server.

The short link `/j/<code>/` opens sign-up with the code filled in (a visitor), or My
classes with the code in the join form (a signed-in student), so a class joins from a
phone with no LMS and no e-mail: the teacher projects the class page, the room scans.
The QR code is inline SVG (segno), no script and nothing fetched, about 2 KB.
"""

from __future__ import annotations

from urllib.parse import urlencode

import segno
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET

from teaching.models import Classroom


def join_url(request: HttpRequest, classroom: Classroom) -> str:
    """The class's short join link, absolute (what the QR code holds)."""
    return request.build_absolute_uri(reverse("join-short", args=[classroom.join_code]))


def qr_svg(text: str, title: str) -> SafeString:
    """`text` as a QR code in inline SVG, dark on white (a phone in dark mode still reads
    it), sized by CSS from its viewBox."""
    code = segno.make(text, error="m")
    svg = code.svg_inline(
        border=4,  # the quiet zone the standard asks for
        dark="#000",
        light="#fff",
        omitsize=True,
        svgclass="join-qr",
        lineclass=None,
        title=title,  # segno escapes it
    )
    return mark_safe(svg)  # noqa: S308 - segno's own markup, its title escaped by segno


@require_GET
def join_short(request: HttpRequest, code: str) -> HttpResponse:
    """Where the QR code and the short link lead: the join form with the code filled in.
    Only a GET that redirects: joining is the form's POST, so a scan joins nobody."""
    query = urlencode({"code": code.strip().upper()[:32]})
    target = "class-list" if request.user.is_authenticated else "signup"
    return redirect(f"{reverse(target)}?{query}")
