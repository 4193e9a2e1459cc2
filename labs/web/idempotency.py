"""An action sent twice is done once: the `Idempotency-Key` a phone sends with each action.

A student's phone keeps an action made while the link is down (a Run with its prediction, a
slider's draft, a hand-in) and sends it again until an answer comes back
(`static/labs/outbox/`). An answer can be lost after the server acted on the request, so the
phone cannot tell "never arrived" from "done, but the answer was lost": it sends again, with
the key it made when the action was made. The first request with a key does the work and
its answer is remembered; a later one with the same key gets that answer back
(`Idempotent-Replayed: true`) and changes nothing. One still being worked on gets a 409 with
`Retry-After`, and the phone asks again (the IETF draft "The Idempotency-Key HTTP Header
Field" says the same).

The keys live in Django's cache, the Redis every web process shares (`SET NX` with a TTL,
`IDEMPOTENCY_TTL_S`), per user and URL: a key cannot replay someone else's answer. The
answer's body is kept apart for a shorter time (`IDEMPOTENCY_BODY_TTL_S`): past it, a
replay carries the status and headers only, and the phone reloads the page to show the
result (every slider move carries a key, and a class's bodies would otherwise fill Redis). Answers
that say "not now" (429, 503, a 5xx) are not remembered: the next try runs afresh, as a
retry of a refusal should. A plain HTML form cannot send a header, so the same key may come
as the POST field `idempotency_key` (the outbox adds it to a form it lets through).
If the cache does not answer, the action is done without the check (logged): refusing every
press while Redis is away would lose more than it saves, and runs need Redis anyway.
"""

from __future__ import annotations

import functools
import logging
import re
import zlib
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

log = logging.getLogger(__name__)

HEADER = "Idempotency-Key"
FIELD = "idempotency_key"
REPLAYED = "Idempotent-Replayed"
# A UUID as the phone makes it (crypto.randomUUID or its fallback), any case.
KEY_SHAPE = re.compile(
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)
# A request being worked on holds its key this long at most (a press waits about a second
# for its run): a web process killed mid-request does not block the key for the whole TTL.
IN_FLIGHT_S = 120
# Answers not remembered: "not now", so a retry should run again.
NOT_NOW = frozenset({408, 425, 429, 502, 503, 504})
# Headers an answer's meaning depends on (a redirect, htmx's instructions, a draft's
# "superseded": labs.web.views.drafts).
KEPT_HEADERS = ("Location", "Content-Type", "Vary", "Draft-Superseded")
# The largest answer body kept, compressed: a lab's panel is ~10 KB so; more is not kept
# (the replay then carries the status and headers, and no body).
MAX_KEPT_BODY = 256 * 1024
PENDING = "pending"


def key_of(request: HttpRequest) -> str | None:
    """The request's idempotency key (header first, then the form field), or None."""
    key = request.headers.get(HEADER) or request.POST.get(FIELD) or ""
    return key.strip() or None


def cache_key(request: HttpRequest, key: str) -> str:
    user = request.user.pk if request.user.is_authenticated else "anon"
    return f"idem:{user}:{request.path}:{key.lower()}"


def summary(response: HttpResponse) -> dict[str, Any]:
    """What is remembered of an answer: its status and the headers that matter."""
    headers = {name: response[name] for name in KEPT_HEADERS if response.has_header(name)}
    headers |= {name: value for name, value in response.items() if name.startswith("HX-")}
    return {"status": response.status_code, "headers": headers}


def remember(name: str, response: HttpResponse) -> None:
    """Keep the answer's body (compressed, for a shorter time) and its summary, both in one
    round trip to Redis: every slider move's draft is remembered (it was two)."""
    kept: list[tuple[str, Any, int]] = [(name, summary(response), settings.IDEMPOTENCY_TTL_S)]
    if not response.streaming:
        body = zlib.compress(response.content, 6)
        if len(body) <= MAX_KEPT_BODY:
            kept.insert(0, (name + ":body", body, settings.IDEMPOTENCY_BODY_TTL_S))
    # Django's cache has no pipeline: its own key and serializer, on its client's pool.
    backend = cache._cache  # type: ignore[attr-defined]
    pipe = backend.get_client(write=True).pipeline(transaction=False)
    for key, value, ttl_s in kept:
        ex = cache.get_backend_timeout(ttl_s)
        pipe.set(cache.make_and_validate_key(key), backend._serializer.dumps(value), ex=ex)
    pipe.execute()


def replay(name: str, kept: dict[str, Any]) -> HttpResponse:
    body = cache.get(name + ":body")
    response = HttpResponse(zlib.decompress(body) if isinstance(body, bytes) else b"")
    response.status_code = kept["status"]
    for header, value in kept["headers"].items():
        response[header] = value
    response[REPLAYED] = "true" if isinstance(body, bytes) else "no-body"
    return response


def in_flight() -> HttpResponse:
    response = HttpResponse(
        _("This action is already on its way to the site: wait a moment, it is being sent."),
        status=409,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = "1"
    return response


def idempotent(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A POST view whose requests carrying the same key are acted on once (module doc)."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        key = key_of(request) if request.method == "POST" else None
        if key is None:
            return view(request, *args, **kwargs)
        if not KEY_SHAPE.match(key):
            return HttpResponse(
                _("The action's key is not one this site made: reload the page and try again."),
                status=400,
                content_type="text/plain; charset=utf-8",
            )
        name = cache_key(request, key)
        try:
            first = cache.add(name, PENDING, IN_FLIGHT_S)
        except Exception:  # noqa: BLE001 - any cache failure: act without the check
            log.warning("idempotency: the cache did not answer; %s acted on unchecked", name)
            return view(request, *args, **kwargs)
        if not first:
            kept = cache.get(name)
            if isinstance(kept, dict):
                return replay(name, kept)
            return in_flight()  # being worked on (or it just expired: try again soon)
        try:
            response = view(request, *args, **kwargs)
        except BaseException:
            cache.delete(name)
            raise
        try:
            if response.status_code in NOT_NOW or response.status_code >= 500:
                cache.delete(name)
            else:
                remember(name, response)
        except Exception:  # noqa: BLE001 - the action is done; only its memory is lost
            log.warning("idempotency: could not remember the answer of %s", name)
        return response

    return wrapped
