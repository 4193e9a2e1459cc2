"""The deadline lab in production: timeouts, tries and waits inside one deadline, and a
service that gives up by itself.

tenacity's `stop_after_attempt`, `stop_after_delay` and `wait_random_exponential` (full
jitter); requests' `timeout=(connect, read)`; gunicorn's `timeout`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import RESULTS_URL, seconds_code
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The deadline lab: connect and read timeouts, tries and waits inside one deadline,
    and a service that gives up by itself."""
    attempts = int(values["attempts"])
    connect, read = seconds_code(values["connect_s"]), seconds_code(values["read_s"])
    whole_s = seconds_code(values["deadline_s"])
    client = (
        "import requests\n"
        "from tenacity import retry, stop_after_attempt, stop_after_delay, "
        "wait_random_exponential\n\n"
        "# " + gettext("stop at the last try or at the deadline, whichever comes first") + "\n"
        f"@retry(stop=stop_after_attempt({attempts}) | stop_after_delay({whole_s}),\n"
        f"       wait=wait_random_exponential(multiplier={seconds_code(values['base_s'])}, "
        f"max={seconds_code(values['cap_s'])}))\n"
        "def get_results():\n"
        f'    return requests.get("{RESULTS_URL}", timeout=({connect}, {read}))\n'
    )
    callee_s = max(1, math.ceil(values["callee_timeout_s"]))
    server = (
        "# gunicorn.conf.py\n"
        "# "
        + gettext("a request still running after this many seconds is stopped (sync workers)")
        + "\n"
        f"timeout = {callee_s}\n"
    )
    if values["callee_timeout_s"] > values["deadline_s"]:
        server += (
            "# "
            + gettext("longer than the caller's deadline: work goes on after the caller left")
            + "\n"
        )
    return [Snippet("tenacity + requests", "python", client), Snippet("gunicorn", "python", server)]
