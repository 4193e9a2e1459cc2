"""Unit-page tags: the lesson's prose in the reader's language, and its self-check."""

from __future__ import annotations

from pathlib import Path

from django import template
from django.conf import settings
from django.contrib.staticfiles import finders
from django.middleware.csrf import get_token
from django.template.loader import render_to_string, select_template
from django.utils.html import escape
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from labs.web import fragment_cache
from lessons.forms import SelfCheckForm
from lessons.models import Attempt
from lessons.panel import panel_context
from lessons.questions import questions_for

register = template.Library()

FALLBACK_LANGUAGE = "en"


# A unit page's prose and its unmarked self-check are the same for every reader of a
# language: rendered once per unit, language and code release (the key names the code's
# version, `fragment_cache.render_version`) into the cache every web process shares. What
# is a reader's own (the header, the challenges met, a marked self-check) is rendered
# around them on each view. With DEBUG on (a writer at work) they are rendered every time.


@register.simple_tag(takes_context=True)
def unit_prose(context: template.Context, unit_slug: str) -> SafeString:
    """The unit's explanation written for the active language, English when there is none."""
    language = (get_language() or FALLBACK_LANGUAGE).split("-")[0]

    def render() -> str:
        prose = select_template(
            [
                f"labs/units/{language}/{unit_slug}.html",
                f"labs/units/{FALLBACK_LANGUAGE}/{unit_slug}.html",
            ]
        )
        return prose.render(context.flatten(), context.get("request"))

    if settings.DEBUG:  # a writer editing the prose sees it at once
        return SafeString(render())  # noqa: S704 - our template
    return SafeString(fragment_cache.cached_html(prose_key(unit_slug, language), render))  # noqa: S704 - our template


def prose_key(unit_slug: str, language: str) -> str:
    return f"unit-prose:{fragment_cache.render_version()}:{unit_slug}:{language}"


def selfcheck_key(unit_slug: str, language: str) -> str:
    return f"unit-selfcheck:{fragment_cache.render_version()}:{unit_slug}:{language}"


# What the cached self-check carries in place of the CSRF token: each view writes its own.
CSRF_SLOT = "CSRF-SLOT-51d0e2"


@register.simple_tag(takes_context=True)
def selfcheck_panel(context: template.Context, unit) -> SafeString:
    questions = questions_for(unit.slug)
    if not questions:
        return SafeString("")
    request = context.get("request")

    def render() -> str:
        form = SelfCheckForm(questions=questions)
        return render_to_string(
            "lessons/selfcheck.html#selfcheck-panel",
            panel_context(unit, form, marks=None) | {"csrf_token": CSRF_SLOT},
            request=request,
        )

    language = (get_language() or FALLBACK_LANGUAGE).split("-")[0]
    key = selfcheck_key(unit.slug, language)
    html = render() if settings.DEBUG else fragment_cache.cached_html(key, render)
    token = get_token(request) if request is not None else ""
    return SafeString(html.replace(CSRF_SLOT, token))  # noqa: S704 - our template, a token


@register.simple_tag
def inline_svg(path: str, description: str) -> SafeString:
    """A diagram from static/, drawn inline so its labels use the page's (Devanagari) font.

    An SVG shown through <img> cannot use the page's fonts, and the Marathi labels
    would fall back to whatever the phone has. `description` is its text alternative.
    It is drawn at its own width, in a box that scrolls sideways on a phone.
    """
    found = finders.find(path)
    if not found:
        raise template.TemplateSyntaxError(f"No diagram at static/{path}")
    svg = Path(found).read_text(encoding="utf-8")
    label = f'<svg aria-label="{escape(description)}" '
    # Drawn at its own size, never shrunk: on a phone its 12-14 px labels were 7-9 px high.
    # A narrow screen scrolls it sideways in its box (focusable, so a keyboard can too).
    return SafeString(
        f'<div class="scroll diagram-box" tabindex="0">{svg.replace("<svg ", label, 1)}</div>'
    )


@register.simple_tag
def latest_selfcheck(user, unit_slug: str) -> Attempt | None:
    """The student's latest try at a unit's self-check, or None (also for visitors)."""
    if not unit_slug or not getattr(user, "is_authenticated", False):
        return None
    return Attempt.objects.filter(student=user, unit=unit_slug).first()
