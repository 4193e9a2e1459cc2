"""A figure's label with its unit, said once (the Marathi crawl read "calls (calls)",
"workers (workers)" and "Redis keys (keys)" on the teacher's figures table)."""

from __future__ import annotations

from django.utils import translation

from labs.interface.figures import Figure
from labs.templatetags.labtext import with_unit


def test_a_unit_the_label_says_already_is_not_said_again():
    in_time = Figure("calls_in_time", "Calls answered in time", "int", "calls")
    peak = Figure("peak_backlog", "Peak backlog", "int", "requests")
    with translation.override("en"):
        assert with_unit(in_time) == "Calls answered in time"
        assert with_unit(peak) == "Peak backlog (requests)"
    with translation.override("mr"):
        assert with_unit(in_time) == "वेळेत उत्तर मिळालेले calls"
        assert with_unit(peak).endswith("(विनंत्या)")
