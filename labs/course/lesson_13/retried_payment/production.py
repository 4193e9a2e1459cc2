"""The retried-payment lab in production: one idempotency key per payment, sent on every try.

requests' `timeout=`, tenacity's `stop_after_attempt`, `wait_fixed` and
`retry_if_exception_type`; the `Idempotency-Key` header as Stripe's API takes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.catalogue.snippets import seconds_code
from labs.text import gettext

PROVIDER_URL = "https://api.stripe.com/v1/payment_intents"


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The client's retry on a timeout, with the payment's own id as the key on every try."""
    attempts = int(values["retries"]) + 1
    code = (
        "import requests\n"
        "from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_fixed\n\n\n"
        "@retry(\n"
        f"    stop=stop_after_attempt({attempts}),\n"
        f"    wait=wait_fixed({seconds_code(values['pause_ms'] / 1000)}),\n"
        "    retry=retry_if_exception_type(requests.Timeout),\n"
        ")\n"
        "def charge(session, key, amount):\n"
        "    # " + gettext("the same key on every try: a repeat gets the first charge back") + "\n"
        "    answer = session.post(\n"
        f'        "{PROVIDER_URL}",\n'
        '        data={"amount": amount, "currency": "inr", "confirm": "true"},\n'
        '        headers={"Idempotency-Key": key},\n'
        f"        timeout={seconds_code(values['timeout_ms'] / 1000)},\n"
        "    )\n"
        "    answer.raise_for_status()\n"
        "    return answer.json()\n\n\n"
        "def pay_fee(session, payment_id, amount):\n"
        "    # "
        + gettext("the key is the payment's own id, made once, before the first try")
        + "\n"
        '    return charge(session, f"fee-{payment_id}", amount)\n'
    )
    return [Snippet("requests + tenacity", "python", code)]
