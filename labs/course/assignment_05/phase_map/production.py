"""The phase map in production: its callers' timeout and attempts, as one client.

botocore's `read_timeout` and `retries` (`total_max_attempts` counts the first call).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import seconds_code


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The phase map's callers: their timeout and attempts, as one client."""
    return [
        Snippet(
            "botocore",
            "python",
            "from botocore.config import Config\n\n"
            "config = Config(\n"
            f"    read_timeout={seconds_code(values['client_timeout_ms'] / 1000)},\n"
            f'    retries={{"total_max_attempts": {int(values["max_attempts"])}, '
            '"mode": "standard"},\n'
            ")\n",
        )
    ]
