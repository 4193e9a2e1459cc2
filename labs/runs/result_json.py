"""A run's result and the JSON text it was read from: written out once, not twice.

The worker writes each result out as JSON to check it can be saved (`execution.run_lab`)
and reads it back, so the run holds what the database will hold. Saving it then wrote the
same ~45 KB of JSON out again (a capstone run's): the result keeps the text it was read
from (`ReadFromJSON`), and the result fields' encoder (`SavedAsRead`) hands that text to the
database as it is. The same bytes are saved either way (Django writes a field's JSON with
`json.dumps`' defaults, as `run_lab` does).
"""

from __future__ import annotations

import json
from typing import Any


class ReadFromJSON(dict):
    """A result read back from its JSON `text`, which it keeps. Never changed once read:
    the text is what is saved."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        super().__init__(json.loads(text))
        self.text = text


class SavedAsRead(json.JSONEncoder):
    """A result field's encoder: a `ReadFromJSON` is saved as the text it was read from,
    anything else written out as usual."""

    def encode(self, o: Any) -> str:
        if isinstance(o, ReadFromJSON):
            return o.text
        return super().encode(o)
