"""The cascade lab in production: a timeout, a breaker and a cached page in one service, and
the callers' jittered retries.

pybreaker's `fail_max` and `reset_timeout`, requests' `timeout=(connect, read)`, tenacity's
`stop_after_attempt` and `wait_random_exponential` (full jitter).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import RESULTS_URL, seconds_code
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The cascade's four tools in one service: a timeout on the call, a breaker in front of
    it, a cached page when either fails; and the callers' jittered retries."""
    timeout = seconds_code(values["dependency_timeout_ms"] / 1000)
    service = (
        "import pybreaker\n"
        "import requests\n\n"
        "grades_breaker = pybreaker.CircuitBreaker(\n"
        f"    fail_max={int(values['breaker_threshold'])},\n"
        f"    reset_timeout={int(values['breaker_open_s'])},\n"
        ")\n\n\n"
        "@grades_breaker\n"
        "def fetch_grades(student_id):\n"
        "    # " + gettext("a thread waits at most this long for the grades service") + "\n"
        f'    answer = requests.get("{RESULTS_URL}", params={{"student": student_id}}, '
        f"timeout=({timeout}, {timeout}))\n"
        "    answer.raise_for_status()\n"
        "    return answer.json()\n\n\n"
        "def grades_page(student_id, cache):\n"
        "    try:\n"
        "        return fetch_grades(student_id)\n"
        "    except (requests.RequestException, pybreaker.CircuitBreakerError):\n"
        "        # " + gettext("the fallback: the last saved page, shown with its age") + "\n"
        '        return cache.get(f"grades:{student_id}")\n'
    )
    attempts = int(values["caller_retries"]) + 1
    caller = (
        "from tenacity import retry, stop_after_attempt, wait_random_exponential\n\n\n"
        "# " + gettext("full jitter: a random wait up to 0.1 × 2^attempt s, at most 3.2 s") + "\n"
        f"@retry(stop=stop_after_attempt({attempts}), "
        "wait=wait_random_exponential(multiplier=0.1, max=3.2))\n"
        "def open_results_page(session, url):\n"
        f"    return session.get(url, timeout={seconds_code(values['caller_timeout_ms'] / 1000)})\n"
    )
    return [
        Snippet("pybreaker + requests", "python", service),
        Snippet("tenacity", "python", caller),
    ]
