"""Charts for a retried payment: for each payment, the calls and the charges each way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import FAILED, GREY, OK, bar, figure
from labs.text import gettext_noop


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s = result["series"]
    x = [f"pay-{n}" for n in s["payment"]]
    return [
        figure(
            title=gettext_noop("Each payment: calls made, and charges without and with a key"),
            x_title=gettext_noop("payment"),
            y_title=gettext_noop("times"),
            traces=[
                bar(x, s["calls"], gettext_noop("calls the client made"), color=GREY),
                bar(
                    x, s["charges_without_key"], gettext_noop("charges without a key"), color=FAILED
                ),
                bar(x, s["charges_with_key"], gettext_noop("charges with a key"), color=OK),
            ],
            barmode="group",
            x_category=True,
        )
    ]
