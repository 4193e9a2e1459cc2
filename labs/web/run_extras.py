"""What a feature of one lab adds to the shared run page: links under a finished run's
facts, and the owner's controls beside a live run.

The run page asks here by the run's lab; a feature fills it in when the site starts (the
capstone's `labs.capstone.run_page.install`, from `LabsConfig.ready`), so neither the
catalogue nor the run page names the features that exist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# (run) -> (words, url) pairs; (run, user) -> the panel's context, or None to show none.
Links = Callable[[Any], list[tuple[str, str]]]
Panel = Callable[[Any, Any], dict[str, Any] | None]

_links: dict[str, Links] = {}
_panels: dict[str, Panel] = {}


def add(slug: str, *, links: Links | None = None, panel: Panel | None = None) -> None:
    """Show `links` under every finished run of lab `slug`, and `panel` beside its runs."""
    if links is not None:
        _links[slug] = links
    if panel is not None:
        _panels[slug] = panel


def links_for(run: Any) -> list[tuple[str, str]]:
    """The links a feature adds under `run`'s facts (none for most labs; the capstone's
    report and operator view: `labs.capstone.run_page`)."""
    links = _links.get(run.lab)
    return links(run) if links is not None else []


def panel_for(run: Any, user: Any) -> dict[str, Any] | None:
    """The live controls `user` may switch on `run`, or None (the capstone's live lab:
    `labs.capstone.run_page`)."""
    panel = _panels.get(run.lab)
    return panel(run, user) if panel is not None else None
