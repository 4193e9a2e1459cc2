"""What a run page shows: the headline, the display tables and the charts."""

from __future__ import annotations

from labs.presenters import shown_tables


def test_it_shows_only_the_tables_made_for_the_page():
    shown = {"title": "Each rule", "columns": ["rule"], "rows": [["fixed 3"]]}
    assert shown_tables({"rule": "fixed 3", "per_second": {"second": [0]}, "rules": shown}) == [
        shown
    ]
