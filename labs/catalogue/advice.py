"""What a lab suggests after a result: "try next" changes, and the same settings as
real systems spell them ("in production").

A lab declares its suggestions once, in its catalogue entry; the run page turns them into
links that open the lab's form filled with the run's values plus the change, so one
click answers the question (`labs.web.try_next`). Django-free, like the whole catalogue.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TryNext:
    """One suggested change and the question it answers (a msgid, said where shown)."""

    question: str
    changes: Mapping[str, Any]


@dataclass(frozen=True)
class Snippet:
    """One real system's configuration, written from the student's values."""

    system: str  # "Amazon SQS", "KEDA", "botocore": a name, not translated
    language: str  # "json", "yaml", "python": for the code block's class
    text: str


Production = Callable[[Mapping[str, Any]], list[Snippet]]
