"""The class results page's predictions panel: what the class expected against what its
runs gave, and the class's most common wrong expectation said in words; and how many
hand-ins skipped the prediction when asked, apart from those run where nobody asked.

Shown and signed by the page's views (`teaching.class_results.views.page_context` and
`signature`), which call this module directly. Two queries whatever the class's size: the
predictions of the hand-ins shown, and which of their runs were skipped; the outcomes come
from the hand-ins' digests (their runs' summaries), never from the results.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Max
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from labs.catalogue.entries import prompts_for
from labs.catalogue.prediction import Prompt, is_right
from labs.runs.predictions import Prediction
from teaching.class_results.figures import ClassResults
from teaching.evidence import guesses_by_run, skipped_runs
from teaching.models import Assignment


@dataclass
class Row:
    label: str
    guess: str
    actual: str
    right: bool


@dataclass
class PromptResults:
    """One prompt across the class's hand-ins."""

    prompt: Prompt
    rows: list[Row] = field(default_factory=list)
    handed_in: int = 0
    summary: str = ""  # how many predicted, how many were right
    wrong_words: str = ""  # the most common wrong expectation, in words

    @property
    def question(self) -> str:
        return _(self.prompt.question)


def predictions_signature(assignment: Assignment) -> list[Any]:
    """What the panel shows can change by (part of `teaching.class_results.views.signature`):
    the number of predictions on the assignment's handed-in runs and the latest made. One
    query; the cached page and the projector move with it."""
    found = Prediction.objects.filter(run__submissions__assignment=assignment).aggregate(
        n=Count("pk"), last=Max("created_at")
    )
    return [found["n"], found["last"]]


def predictions_panel(results: ClassResults) -> dict[str, Any] | None:
    """The panel's context, or None when the lab asks nothing or no hand-in carries a
    prediction or a skip. In a before/after pair the guesses are about the run handed in as "after"
    (the one the student set)."""
    prompts = prompts_for(results.lab.slug)
    if not prompts:
        return None
    entries = results.handed_in
    run_ids = [e.submission.run_id for e in entries if e.submission is not None]
    kept_by_run = guesses_by_run(run_ids)
    guessed = set(kept_by_run)
    # Only honest guesses: one made after a result for those values was shown is none.
    guesses = {
        (run_id, figure): kept.value
        for run_id, by_figure in kept_by_run.items()
        for figure, kept in by_figure.items()
        if not kept.after_result
    }
    skipped = skipped_runs(run_ids) - guessed
    if not guesses and not skipped:
        return None  # nobody in the class predicted or skipped: nothing to say
    found = []
    for prompt in prompts:
        summary = PromptResults(prompt, handed_in=len(entries))
        pairs = []
        for entry in entries:
            assert entry.submission is not None
            key = (entry.submission.run_id, prompt.figure)
            if key not in guesses:
                continue
            guess, actual = guesses[key], prompt.outcome(entry.figures)
            right = is_right(prompt, guess, actual)
            pairs.append((guess, actual, right))
            summary.rows.append(Row(entry.label, prompt.words(guess), prompt.words(actual), right))
        made, n_right = len(pairs), sum(r for _g, _a, r in pairs)
        summary.summary = ngettext(
            "%(made)s of %(total)s hand-ins carry a prediction; %(right)s was right.",
            "%(made)s of %(total)s hand-ins carry a prediction; %(right)s were right.",
            n_right,
        ) % {"made": made, "total": len(entries), "right": n_right}
        summary.wrong_words = most_common_wrong(prompt, pairs)
        found.append(summary)
    return {
        "template": "teaching/class_predictions.html",
        "prompts": found,
        "asked": asked_words(
            len(entries), len(skipped), len(entries) - len(guessed) - len(skipped)
        ),
    }


def asked_words(total: int, skipped: int, unasked: int) -> str:
    """How many hand-ins skipped the guess when asked, and how many were run where nobody
    asked (before the site asked, or with JavaScript off): a skip is a choice, the other
    is not."""
    return ngettext(
        "%(skipped)s of %(total)s hand-in skipped the prediction when asked; run where "
        "nobody asked: %(unasked)s.",
        "%(skipped)s of %(total)s hand-ins skipped the prediction when asked; run where "
        "nobody asked: %(unasked)s.",
        total,
    ) % {"skipped": skipped, "total": total, "unasked": unasked}


def most_common_wrong(prompt: Prompt, pairs: list[tuple[Any, Any, bool]]) -> str:
    """The class's most common wrong expectation, in a sentence ("" if nobody was wrong)."""
    wrong = [(guess, actual) for guess, actual, right in pairs if not right]
    if not wrong:
        return ""
    if prompt.choices:
        (guess, times), *_rest = Counter(g for g, _a in wrong).most_common(1)
        outcomes = Counter(a for g, a in wrong if g == guess).most_common(1)[0][0]
        return _(
            "The most common wrong expectation: “%(guess)s” (%(times)s of %(made)s "
            "predictions), where the runs gave “%(actual)s”."
        ) % {
            "guess": prompt.words(guess),
            "times": times,
            "made": len(pairs),
            "actual": prompt.words(outcomes),
        }
    numbers = [(g, a) for g, a in wrong if a is not None]
    low = [(g, a) for g, a in numbers if g < a]
    high = [(g, a) for g, a in numbers if g > a]
    side = low if len(low) >= len(high) else high
    if not side:
        return _("Every wrong guess expected something that did not happen in the run.")
    values = {
        "times": len(side),
        "made": len(pairs),
        "guess": prompt.words(statistics.median(g for g, _a in side)),
        "actual": prompt.words(statistics.median(a for _g, a in side)),
    }
    if side is low:
        return (
            _(
                "The most common wrong expectation was too low (%(times)s of %(made)s "
                "predictions): a median guess of %(guess)s where those runs gave a median "
                "of %(actual)s."
            )
            % values
        )
    return (
        _(
            "The most common wrong expectation was too high (%(times)s of %(made)s "
            "predictions): a median guess of %(guess)s where those runs gave a median "
            "of %(actual)s."
        )
        % values
    )
