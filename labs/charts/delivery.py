"""Charts for the delivery labs: for each message, deliveries and what each consumer did."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import FAILED, GREY, OK, bar, figure
from labs.text import gettext_noop


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    words = result["tables"]["words"]
    if "title" not in words:  # a result saved before the words were msgids
        words = {
            "title": f"Each {words['noun']}: deliveries and {words['effect']}",
            "x": words["noun"],
            "plain": f"{words['effect']}: plain consumer",
            "idempotent": f"{words['effect']}: idempotent consumer",
        }
    data = result["tables"]["per_message_data"]
    x = data["message"]
    # The figure builders translate these English msgids into the reader's language.
    return [
        figure(
            title=words["title"],
            x_title=words["x"],
            y_title=gettext_noop("times"),
            traces=[
                bar(x, data["delivered"], gettext_noop("delivered"), color=GREY),
                bar(x, data["plain"], words["plain"], color=FAILED),
                bar(x, data["idempotent"], words["idempotent"], color=OK),
            ],
            barmode="group",
            x_category=True,
            hovermode="x unified",
        )
    ]
