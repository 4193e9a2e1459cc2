"""The timeouts lab in production: how long the caller waits, in two clients.

requests' `timeout=(connect, read)` and botocore's `connect_timeout` / `read_timeout`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import RESULTS_URL, seconds_code
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The timeouts lab: the caller stops waiting after this long, in two clients."""
    t = seconds_code(values["timeout_ms"] / 1000)
    requests = (
        "import requests\n\n"
        "# "
        + gettext("(connect, read) in seconds; without a timeout requests waits forever")
        + "\n"
        f'requests.get("{RESULTS_URL}", timeout=({t}, {t}))\n'
    )
    botocore = (
        "from botocore.config import Config\n\n"
        f"config = Config(connect_timeout={t}, read_timeout={t})\n"
    )
    return [Snippet("requests", "python", requests), Snippet("botocore", "python", botocore)]
