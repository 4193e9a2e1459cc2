"""The retrying clients' "in production" snippets, each shown beside two labs.

`retries` is the backoff lab's and the retry storm's (botocore's standard mode, tenacity's
capped, jittered waits); `trapped` is Assignment 05's, the simulated service's and the live
one's (one retrying layer with the caller's timeout, Envoy's retry budget). Names as each
project documents them: botocore's `retries={"total_max_attempts", "mode"}`
(`total_max_attempts` counts the first call) and `read_timeout`; tenacity's
`stop_after_attempt`, `wait_exponential` and `wait_random_exponential`; Envoy's
`circuit_breakers.thresholds.retry_budget` (`budget_percent`, `min_retry_concurrency`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import seconds_code
from labs.text import gettext, ngettext, num

# tenacity's waits for the labs' jitters. `wait_random_exponential` is full jitter (a
# uniform draw up to min(max, multiplier * 2 ** n)); `wait_exponential_jitter` is not: it
# adds up to `jitter` seconds (1 by default) to the plain wait. Equal jitter is half the
# plain wait plus a full-jitter draw over the other half; tenacity sums two waits with +.
# It has no decorrelated jitter: full jitter, its nearest, is written for that one.
TENACITY_IMPORTS = {
    "full": "wait_random_exponential",
    "equal": "wait_exponential, wait_random_exponential",
    "decorrelated": "wait_random_exponential",
}


def tenacity_wait(jitter: str, base_s: float, cap_s: float) -> str:
    """tenacity's `wait=` for one of the labs' jitter kinds."""
    if jitter == "equal":
        half = f"multiplier={base_s / 2:g}, max={cap_s / 2:g}"
        return f"wait_exponential({half}) + wait_random_exponential({half})"
    return f"wait_random_exponential(multiplier={base_s:g}, max={cap_s:g})"


def retries(values: Mapping[str, Any]) -> list[Snippet]:
    """A retrying client: botocore's standard mode and tenacity's capped, jittered waits
    (the retry storm's jitter kind where it has one)."""
    retries_n = int(values["attempts"])
    base_s, cap_s = values["base_ms"] / 1000, values["cap_ms"] / 1000
    jitter = values.get("jitter", "full")  # the backoff lab draws full jitter
    botocore = (
        "from botocore.config import Config\n\n"
        "config = Config(retries={\n"
        f'    "total_max_attempts": {retries_n + 1},  # '
        + ngettext("the first call + %(n)s retry", "the first call + %(n)s retries", retries_n)
        % {"n": retries_n}
        + "\n"
        '    "mode": "standard",  # '
        + gettext('or "adaptive": also slows down when throttled')
        + "\n"
        "})\n"
        "# " + gettext("botocore picks its own waits (full jitter, capped at 20 s).") + "\n"
    )
    tenacity = (
        f"from tenacity import retry, stop_after_attempt, {TENACITY_IMPORTS[jitter]}\n\n"
        f"@retry(stop=stop_after_attempt({retries_n + 1}),\n"
        f"       wait={tenacity_wait(jitter, base_s, cap_s)})\n"
        "def call_provider(): ...\n"
    )
    if jitter == "decorrelated":
        tenacity += (
            "# "
            + gettext("tenacity has no decorrelated jitter: full jitter is the nearest.")
            + "\n"
        )
    return [Snippet("botocore", "python", botocore), Snippet("tenacity", "python", tenacity)]


def trapped(values: Mapping[str, Any]) -> list[Snippet]:
    """Assignment 05's clients: one retrying layer with the caller's timeout, and a retry
    budget where every caller passes through one proxy."""
    attempts, layers = int(values["max_attempts"]), int(values["retry_layers"])
    timeout = seconds_code(values["client_timeout_ms"] / 1000)
    now = gettext("now %(layers)s layers × %(n)s attempts: up to %(cap)s a call") % {
        "layers": layers,
        "n": attempts,
        "cap": num(attempts**layers),
    }
    botocore = (
        "from botocore.config import Config\n\n"
        "# " + gettext("the layer next to the service: the only one that retries") + "\n"
        "nearest = Config(\n"
        f"    read_timeout={timeout},\n"
        f'    retries={{"total_max_attempts": {attempts}, "mode": "standard"}},\n'
        ")\n"
        "# " + gettext("every layer above it: one try, the failure goes up at once") + "\n"
        'above = Config(retries={"total_max_attempts": 1})\n'
    )
    if layers > 1:
        botocore += f"# {now}\n"
    percent = round(float(values["retry_budget"]) * 100, 1)
    envoy = (
        "# " + gettext("Envoy cluster: retries may be at most this share of active requests") + "\n"
        "circuit_breakers:\n"
        "  thresholds:\n"
        "    - retry_budget:\n"
        f"        budget_percent: {{value: {percent:g}}}\n"
        "        min_retry_concurrency: 3\n"
    )
    return [Snippet("botocore", "python", botocore), Snippet("Envoy", "yaml", envoy)]
