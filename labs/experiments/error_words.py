"""A parked message's last error in the reader's words, from the raw text a worker saved.

A worker saves `repr(error)` with the message (`Queue.fail`): it has no reader, and the raw
text is what an engineer greps logs for. The queue panel says the errors our experiments
raise (`labs.experiments.faults`, `isolation.Throttled`, the FIFO consumer's refusal) in a
few words here while it renders, and keeps the raw text beside them (a `title`); anything
else, from code this version does not know, is shown as saved. Django-free.
"""

from __future__ import annotations

import re

from labs.text import gettext, gettext_noop

# (raw text it matches, English words): the first match wins, so the subclass comes first.
KNOWN = (
    (re.compile(r"^Throttled\("), gettext_noop("the provider refused: too many calls (429)")),
    (
        re.compile(r"^ServiceError\('service unavailable"),
        gettext_noop("the outside service was down"),
    ),
    (re.compile(r"^ServiceError\("), gettext_noop("the outside service failed this call")),
    (
        re.compile(r"^PoisonMessage\("),
        gettext_noop("a poison message: it fails on every receive"),
    ),
    (re.compile(r"^cannot apply this update$"), gettext_noop("this update cannot be applied")),
    (re.compile(r"^WorkerCrash\("), gettext_noop("the worker died while handling it")),
)


def error_words(raw: str) -> str:
    """`raw` (a saved `repr(error)`) in the reader's words; `raw` itself when unknown."""
    for pattern, english in KNOWN:
        if pattern.search(raw):
            return gettext(english)
    return raw
