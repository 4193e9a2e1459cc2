"""retries-live asks about the figure it measures (issue 36, item 6)."""

from __future__ import annotations

import pytest
from django.utils import translation

from labs.catalogue.prediction import because
from labs.course.lesson_13.retries_live.lab import LAB
from labs.text import num
from tests.lab_helpers import default_result


@pytest.mark.redis
def test_the_first_try_prompt_asks_about_receives_and_counts_them():
    (prompt,) = LAB.prompts
    assert prompt.figure == "first_try_ok_share"  # receives that worked first time
    assert "share of receives" in prompt.question and "message" not in prompt.question
    result = default_result("retries-live")
    s = result["summary"]
    assert s["receives"] > s["messages"]  # payments come back, so the two differ
    with translation.override("en"):
        text = because(prompt, s, result["params"])
    assert f"received {num(s['receives'])} times" in text, text
