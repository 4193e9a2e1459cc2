"""A lab's "try next" suggestions as links that open its form filled in, and the form's
reading of those links back (`initial_from_query`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import QueryDict
from django.urls import reverse

from labs.catalogue.advice import TryNext
from labs.interface.params import Param
from labs.text import gettext, parse_decimal, parse_whole, plain


def try_next_links(
    slug: str,
    params: tuple[Param, ...],
    suggestions: tuple[TryNext, ...],
    values: Mapping[str, Any],
) -> list[tuple[str, str]]:
    """(question, url) for each suggestion whose changed values the lab accepts.

    A suggestion that would change nothing (the run already used those values) or that
    a bound refuses is left out rather than offered as a link that fails.
    """
    by_name = {p.name: p for p in params}
    links = []
    for suggestion in suggestions:
        merged = {name: values.get(name, p.default) for name, p in by_name.items()}
        changed = {k: v for k, v in suggestion.changes.items() if merged.get(k) != v}
        if not changed or any(
            k not in by_name or by_name[k].refusal(v) for k, v in suggestion.changes.items()
        ):
            continue
        merged.update(suggestion.changes)
        query = QueryDict(mutable=True)
        for name, value in merged.items():
            query[name] = _query_value(value)
        links.append(
            (
                gettext(suggestion.question),
                f"{reverse('lab-detail', args=[slug])}?{query.urlencode()}",
            )
        )
    return links


def _query_value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(plain(v) for v in value)
    return plain(value)


def initial_from_query(params: tuple[Param, ...], query: Mapping[str, str]) -> dict[str, Any]:
    """The values a "try next" link carries, parsed by kind; a bad or unknown one is ignored
    (the form then offers the default), so a hand-edited link never breaks the page."""
    initial: dict[str, Any] = {}
    for p in params:
        raw = query.get(p.name)
        if raw is None:
            continue
        value = _parse(p, raw.strip())
        if value is not None and p.refusal(value) is None:
            initial[p.name] = value
    return initial


def _parse(p: Param, raw: str) -> Any:
    try:
        if p.kind == "bool":
            return {"true": True, "false": False}.get(raw.lower())
        if p.kind == "choice":
            return raw
        if p.kind.endswith("_list"):
            number = parse_whole if p.kind == "int_list" else parse_decimal
            return [number(part) for part in raw.split(",") if part.strip()]
        return parse_whole(raw) if p.kind == "int" else parse_decimal(raw)
    except ValueError:
        return None
