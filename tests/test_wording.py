"""Phrases the second language review found unclear in English stay gone (issue 36, item 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = pytest.mark.nodb

MARATHI = Path(settings.BASE_DIR) / "locale" / "mr" / "LC_MESSAGES" / "django.po"
# phrase → why it was rewritten (docs: ../shared/reviews/marathi-english-review-2.md §5)
GONE = {
    "watch for longer": "a student cannot watch a finished run longer: make the run longer",
    "Yes, it is throttled": "the question asks whether the limit holds the workers back",
    "worker-s": "opaque: worker-seconds",
    "your run had %(actual)s": "'your run had no.' with a yes/no figure",
    "Each new request became": "a request does not become attempts: it takes them",
}


def msgids() -> list[str]:
    text = MARATHI.read_text(encoding="utf-8")
    found = []
    for block in re.findall(r'^msgid ((?:".*"\n)+)', text, re.M):
        found.append("".join(re.findall(r'"(.*)"', block)))
    return found


def test_the_rewritten_phrases_are_gone_from_every_string():
    ids = msgids()
    left = [
        (phrase, why)
        for phrase, why in GONE.items()
        if any(re.search(re.escape(phrase) + "(?![a-z])", m) for m in ids)
    ]
    assert left == []
