"""What a prediction prompt is, and how a guess is held against a run's figures.

A prompt asks a student, before they run a lab, for one of the lab's summary figures:
a number ("how deep will the backlog get?") or a choice ("will the service recover?").
After the run, `judge` compares the guess with the figure and says why it came out as it
did, in a sentence built from this run's own figures and parameters (`because`), not a
canned answer. Each lab's prompts are in its folder's `lab.py` (`PROMPTS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from labs.text import gettext, listed, num, parse_decimal

Values = Mapping[str, Any]
# Where a sentence's values come from: the summary, then the params, then `extra`.
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@dataclass(frozen=True)
class Choice:
    """One answer a choice prompt offers: the figure's value, and its words (a msgid)."""

    value: bool | str
    words: str


@dataclass(frozen=True)
class Prompt:
    """One question asked before a run, answered by the run's summary figure `figure`."""

    figure: str
    question: str  # a msgid
    # Why it came out so: a msgid whose %(name)s are the run's summary figures, its
    # params, or what `extra` works out from them (a difference, a product).
    because: str
    choices: tuple[Choice, ...] = ()  # a choice prompt; none: a number
    low: float = 0  # a number prompt's slider range and step
    high: float = 100
    step: float = 1
    unit: str = ""  # a msgid, shown after the number box
    # A share (0..1) asked and shown as a percentage.
    percent: bool = False
    # A guess within this fraction of the outcome counts as right (at least half a step).
    tolerance: float = 0.1
    extra: Callable[[Values, Values], dict[str, Any]] | None = None

    @property
    def kind(self) -> str:
        return "choice" if self.choices else "number"

    @property
    def name(self) -> str:
        """The form field's name for this prompt's answer."""
        return f"predict-{self.figure}"

    def names_used(self) -> set[str]:
        """Every %(name)s the `because` sentence reads."""
        return set(PLACEHOLDER.findall(self.because))

    def read(self, text: str) -> float | bool | str | None:
        """The guess sent in a form ('' is none); ValueError for one that is not allowed."""
        text = text.strip()
        if not text:
            return None
        if self.choices:
            for choice in self.choices:
                if token(choice.value) == text:
                    return choice.value
            raise ValueError("not one of the choices")
        value = parse_decimal(text)
        if not self.low <= value <= self.high:
            raise ValueError("out of range")
        return value

    def outcome(self, summary: Values) -> Any:
        """The run's answer to this prompt, in the prompt's own terms (a share as %)."""
        value = summary.get(self.figure)
        if self.percent and isinstance(value, int | float) and not isinstance(value, bool):
            return round(100 * value, 2)
        return value

    def words(self, value: Any) -> str:
        """A value of this prompt as the student reads it."""
        if self.choices:
            for choice in self.choices:
                if choice.value == value:
                    return gettext(choice.words)
            return said_value(value)
        if value is None:
            return gettext("it never happened")
        unit = "%" if self.percent else (gettext(self.unit) if self.unit else "")
        return f"{num(value)}{unit}" if unit == "%" else f"{num(value)} {unit}".strip()


def token(value: bool | str) -> str:
    """How a choice's value is sent in a form."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def said_value(value: Any) -> str:
    """A figure or parameter written into a sentence for a student."""
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if value is None:
        return "—"
    if _number(value):
        return num(value)
    if isinstance(value, list | tuple):
        return listed([said_value(v) for v in value], gettext("and"))
    return str(value)


@dataclass(frozen=True)
class Verdict:
    """A guess held against the run: right or not, and the sentences that say why."""

    prompt: Prompt
    guess: Any
    actual: Any
    right: bool
    compared: str  # "You expected …; it was …"
    because: str  # why, from this run's figures
    late: bool = False  # made after a result for these values was shown: never right

    @property
    def question(self) -> str:
        return gettext(self.prompt.question)

    @property
    def guess_words(self) -> str:
        return self.prompt.words(self.guess)

    @property
    def actual_words(self) -> str:
        return self.prompt.words(self.actual)

    @property
    def off_by(self) -> float | None:
        """How far a number guess was from the outcome (positive: guessed too high)."""
        if self.prompt.choices or not _number(self.guess) or not _number(self.actual):
            return None
        return self.guess - self.actual


def is_right(prompt: Prompt, guess: Any, actual: Any) -> bool:
    if prompt.choices:
        return guess == actual
    if not _number(guess) or not _number(actual):
        return False
    return abs(guess - actual) <= max(prompt.tolerance * abs(actual), prompt.step / 2)


def judge(prompt: Prompt, guess: Any, summary: Values, params: Values) -> Verdict:
    """The guess against this run's figure, and why, in the reader's language."""
    actual = prompt.outcome(summary)
    right = is_right(prompt, guess, actual)
    values = {"guess": prompt.words(guess), "actual": prompt.words(actual)}
    if prompt.choices:
        compared = (
            gettext("You expected “%(guess)s”, and so it was.")
            if right
            else gettext("You expected “%(guess)s”; it came out “%(actual)s”.")
        ) % values
    elif actual is None:
        compared = gettext("You expected %(guess)s; in this run it never happened.") % values
    elif right:
        compared = gettext("You expected %(guess)s; it was %(actual)s: close enough.") % values
    else:
        gap = prompt.words(abs(guess - actual))
        message = (
            gettext("You expected %(guess)s; it was %(actual)s, %(gap)s below your guess.")
            if guess > actual
            else gettext("You expected %(guess)s; it was %(actual)s, %(gap)s above your guess.")
        )
        compared = message % {**values, "gap": gap}
    return Verdict(prompt, guess, actual, right, compared, because(prompt, summary, params))


def because(prompt: Prompt, summary: Values, params: Values) -> str:
    """The prompt's `because` sentence, filled with this run's figures and params."""
    values: dict[str, Any] = {**params, **summary}
    if prompt.extra is not None:
        values.update(prompt.extra(summary, params))
    return gettext(prompt.because) % {
        name: said_value(values.get(name)) for name in prompt.names_used()
    }


def yes_no(yes: str, no: str) -> tuple[Choice, Choice]:
    """A choice prompt on a yes/no figure: the words for each answer (msgids)."""
    return (Choice(True, yes), Choice(False, no))
