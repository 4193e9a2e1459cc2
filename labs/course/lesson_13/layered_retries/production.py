"""The layered-retries lab in production: retries at the layer next to the service only.

botocore's `retries` (`total_max_attempts` counts the first call; `standard` mode keeps a
retry quota).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The layered retries lab's advice: retries at the layer next to the service only."""
    attempts = int(values["attempts"])
    text = (
        "from botocore.config import Config\n\n"
        "# " + gettext("The layer next to the service: the only one that retries.") + "\n"
        "nearest = Config(retries={\n"
        f'    "total_max_attempts": {attempts},\n'
        '    "mode": "standard",  # '
        + gettext("stops retrying when its retry quota runs out")
        + "\n"
        "})\n"
        "# " + gettext("Every layer above it: one try, and the failure goes up at once.") + "\n"
        'above = Config(retries={"total_max_attempts": 1})\n'
    )
    return [Snippet("botocore", "python", text)]
