"""The prediction block of a lab's form: the prompts it offers, and the guesses sent with Run.

A guess is kept with the committed run it is sent with (the Run button, an assignment's
run); a draft re-run as a slider moves is not a commitment and never gets one. A draft's
post carries the form's guesses too, and the one let go by a guess given before any result
was on the page says so with an id (`EARLY_FIELD`): that guess is kept with its time
(`keep_early`), so the run that carries it later counts it as given then.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from labs.catalogue.entries import prompts_for
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import Prompt, token
from labs.runs import early_guesses
from labs.text import num


@dataclass(frozen=True)
class Offered:
    """A prompt as the form shows it: its field, its choices as (token, words)."""

    prompt: Prompt
    choices: list[tuple[str, str]]
    value: str  # what the student sent, kept when the form comes back with an error

    @property
    def name(self) -> str:
        return self.prompt.name

    @property
    def low_words(self) -> str:
        return num(self.prompt.low)

    @property
    def high_words(self) -> str:
        return num(self.prompt.high)

    @property
    def unit(self) -> str:
        if self.prompt.percent:
            return "%"
        return _(self.prompt.unit) if self.prompt.unit else ""


def offered(lab: Lab, data: Mapping[str, Any] | None = None) -> list[Offered]:
    """The lab's prompts for its form, with anything already sent."""
    return [
        Offered(
            prompt,
            [(token(c.value), _(c.words)) for c in prompt.choices],
            str(data.get(prompt.name, "")) if data is not None else "",
        )
        for prompt in prompts_for(lab.slug)
    ]


def read_guesses(lab: Lab, data: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The guesses sent with a run (figure → value), and a message for each bad one."""
    guesses: dict[str, Any] = {}
    problems: list[str] = []
    for prompt in prompts_for(lab.slug):
        try:
            value = prompt.read(str(data.get(prompt.name, "")))
        except ValueError:
            problems.append(problem(prompt))
            continue
        if value is not None:
            guesses[prompt.figure] = value
    return guesses, problems


# Sent with Run by predict.js once the student, asked for a guess, pressed "Skip this time".
SKIP_FIELD = "prediction_skipped"


def skip_said(data: Mapping[str, Any] | None) -> bool:
    """Whether the POST says the student was asked for a guess and chose to skip it."""
    return data is not None and str(data.get(SKIP_FIELD, "")) == "1"


# Sent by predict.js with a guess given before any result was on the page (at the first
# drag's ask, or typed before it): the id it made for that guess, kept in the form until
# Run, so every draft's post and Run's carry it (`labs.runs.early_guesses`).
EARLY_FIELD = "prediction_early"
EARLY_SHAPE = re.compile(r"[a-z0-9-]{6,40}")


def early_said(data: Mapping[str, Any] | None) -> str:
    """The early guess's id the POST carries ("" for none, or for one predict.js never makes)."""
    said = str(data.get(EARLY_FIELD, "")) if data is not None else ""
    return said if EARLY_SHAPE.fullmatch(said) else ""


def keep_early(user: Any, lab: Lab, data: Mapping[str, Any]) -> None:
    """Keep the guesses a draft's post carries under its early id, before the draft runs:
    they were given before the result it brings (a bad guess is left for Run to refuse)."""
    ask = early_said(data)
    if ask:
        guesses, _problems = read_guesses(lab, data)
        early_guesses.keep(user, lab.slug, ask, guesses)


def take_guesses(form: Any, data: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The guesses sent with a valid form's run; None, with each reason added to the
    form, when one is not allowed (the run is then not started)."""
    if data is None:
        return {}
    guesses, problems = read_guesses(form.lab, data)
    for message in problems:
        form.add_error(None, message)
    return None if problems else guesses


def problem(prompt: Prompt) -> str:
    question = _(prompt.question)
    if prompt.choices:
        return _("Your prediction for “%(question)s” is not one of its answers.") % {
            "question": question
        }
    return _("Your prediction for “%(question)s” must be a number from %(low)s to %(high)s.") % {
        "question": question,
        "low": num(prompt.low),
        "high": num(prompt.high),
    }
