"""Charts for the delivery labs: for each message, deliveries and what each consumer did."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import FAILED, GREY, OK, bar, figure


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    words = result["tables"]["words"]
    data = result["tables"]["per_message_data"]
    x = data["message"]
    return [
        figure(
            title=f"Each {words['noun']}: deliveries and {words['effect']}",
            x_title=words["noun"],
            y_title="times",
            traces=[
                bar(x, data["delivered"], "delivered", color=GREY),
                bar(x, data["plain"], f"{words['effect']}: plain consumer", color=FAILED),
                bar(x, data["idempotent"], f"{words['effect']}: idempotent consumer", color=OK),
            ],
            barmode="group",
            x_category=True,
            hovermode="x unified",
        )
    ]
