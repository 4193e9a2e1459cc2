"""Marking a self-check: read what a student typed, compare it with the model's answer."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from lessons.questions import CHOICE, Question

# Students may type Devanagari digits; they mean the same numbers.
DEVANAGARI_DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")


def read_number(raw: str) -> float | None:
    """The number in `raw` ("30,000", "३०", " 16.7 "), or None if it is not one."""
    cleaned = raw.translate(DEVANAGARI_DIGITS).replace(",", "").replace("%", "").strip()
    if not cleaned or len(cleaned) > 30:
        return None
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        return None
    return float(value) if value.is_finite() else None


@dataclass(frozen=True)
class Mark:
    question: Question
    given: str
    right: bool

    @property
    def answered(self) -> bool:
        return self.given != ""


def mark(question: Question, given: str) -> Mark:
    given = (given or "").strip()
    if question.kind == CHOICE:
        return Mark(question, given, given == question.answer)
    number = read_number(given)
    right = number is not None and abs(number - float(question.answer)) <= question.tolerance + 1e-9
    return Mark(question, given, right)


def mark_all(questions: tuple[Question, ...], answers: dict[str, str]) -> list[Mark]:
    return [mark(q, answers.get(q.key, "")) for q in questions]
