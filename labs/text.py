"""How figures and values are written for a student: shared by runners, charts and reports.

Django-free and model-free, so any layer may use it. That includes the words themselves:
`gettext` / `ngettext` here give English until the site installs Django's translations
(`labs.apps.LabsConfig.ready`), so a headline or a chart made while a page renders reads in
that page's language, and the pure tests still read English. `gettext_noop` marks English
that is translated later, where it is shown (a parameter's label, a table's title).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any


def _english_plural(one: str, many: str, n: int) -> str:
    return one if n == 1 else many


_gettext: Callable[[str], str] = str
_ngettext: Callable[[str, str, int], str] = _english_plural


def use_translations(
    gettext_fn: Callable[[str], str], ngettext_fn: Callable[[str, str, int], str]
) -> None:
    """Route `gettext` and `ngettext` through real catalogues (Django's, at start-up)."""
    global _gettext, _ngettext
    _gettext, _ngettext = gettext_fn, ngettext_fn


def gettext(message: str) -> str:
    """`message` (English) in the reader's language."""
    return _gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form for `n` things, in the reader's language."""
    return _ngettext(singular, plural, n)


def gettext_noop(message: str) -> str:
    """Marks English for the catalogue without translating it now (see the module doc)."""
    return message


# Words saved or declared for a reader not yet known: a msgid, or a `phrase` (msgid + values).
Words = str | dict[str, Any]


def phrase(msgid: str, **values: Any) -> dict[str, Any]:
    """English with values, saved where nobody reads it (a worker's table title or cell),
    said in the reader's language where it is shown (`said`). Mark `msgid` with
    `gettext_noop` so the catalogue has it."""
    return {"msgid": msgid, "values": values}  # said() reads these two keys


def said(saved: Any) -> Any:
    """A saved msgid or `phrase` in the reader's language; numbers and the rest as they are.

    A string that is no msgid (an id like `sms-3`, an older run's text) comes back as saved.
    """
    if isinstance(saved, str):
        return gettext(saved) if saved else saved
    if isinstance(saved, dict) and isinstance(saved.get("msgid"), str):
        # A value may be a phrase itself (a control's name); other values are shown as saved.
        raw = saved.get("values")
        if not raw:
            return gettext(saved["msgid"])  # a msgid alone: a label that may hold a % sign
        values = {
            k: said(v) if isinstance(v, dict) else v
            for k, v in (raw.items() if isinstance(raw, dict) else ())
        }
        for text in (gettext(saved["msgid"]), saved["msgid"]):
            try:
                return text % values
            except (KeyError, TypeError, ValueError):
                continue  # a translation or saved values that do not fit: try the English
        return saved["msgid"]
    return saved


# The largest seed a run takes (and the widest a form offers): a signed 32-bit integer.
SEED_MAX = 2**31 - 1


def capfirst(text: str) -> str:
    """A clause made a sentence: its first letter upper case (Devanagari has no case)."""
    return text[:1].upper() + text[1:]


def num(value: float) -> str:
    """A number as a student reads it: thousands separated, no needless '.0'."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def nums_apart(values: Sequence[float], percent: bool = False) -> list[str]:
    """Several numbers read side by side (a range, a before and after), with as many places
    as it takes for different values never to read the same: 0.0094 and 0.0055 as shares are
    "0.94 %" and "0.55 %", not "0.01" twice (up to 9 places); whole numbers as `num`."""
    scaled = [v * 100 for v in values] if percent else list(values)
    unit = " %" if percent else ""
    if not percent and all(float(v).is_integer() for v in scaled):
        return [num(v) for v in scaled]
    for places in range(0, 10):
        texts = [f"{v:,.{places}f}" for v in scaled]
        apart = all(
            (a == b) == (texts[i] == texts[j])
            for i, a in enumerate(scaled)
            for j, b in enumerate(scaled)
        )
        big = max((abs(v) for v in scaled), default=0)
        enough = places >= 2 or big >= 10 ** (2 - places)  # at least 2 significant digits
        if apart and enough:
            break
    trimmed = [t.rstrip("0").rstrip(".") if "." in t else t for t in texts]
    return [t + unit for t in trimmed]


def num_or_dash(value: float | None) -> str:
    """`num`, or a dash for a figure that did not happen (None; zero is a number)."""
    return "—" if value is None else num(value)


def given(value: float) -> str:
    """A percentage as a lesson writes it, with at least one place: 99.0, 99.5, 99.95."""
    text = f"{value:g}"
    return text if "." in text or "e" in text else f"{value:.1f}"


def listed(values: Sequence[Any], last_word: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = [str(v) for v in values]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last_word} {items[-1]}"


def plain(value: Any) -> str:
    """A param value as `lab run --set` takes it: true, 80, 0.25, fifo."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# Reading numbers: the one parser for every number a person sends (a lab's form, a "try
# next" link's query string, a live control's value, a teacher's criteria, rubric and
# scores). Python's int() and float() take more than a person means: "nan", "inf", "1_0",
# "٣" (an Arabic-Indic three), "１２" (full-width twelve) and numbers of thousands of
# digits. These take the digits 0-9 only, finite and at most NUMBER_MAX in size; anything
# else is a ValueError for the caller to say in words.
WHOLE = re.compile(r"[+-]?[0-9]+", re.ASCII)
DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
NUMBER_MAX = 1e15  # far beyond every bound a lab or a rubric has, far below float's limits
NUMBER_MAX_CHARS = 40


def parse_whole(text: str) -> int:
    """`text` as a whole number written with 0-9; ValueError for anything else."""
    text = text.strip()
    if len(text) > NUMBER_MAX_CHARS or not WHOLE.fullmatch(text):
        raise ValueError(text)
    value = int(text)
    if abs(value) > NUMBER_MAX:
        raise ValueError(text)
    return value


def parse_decimal(text: str) -> float:
    """`text` as a finite number written with 0-9 and a dot; ValueError for anything else."""
    text = text.strip()
    if len(text) > NUMBER_MAX_CHARS or not DECIMAL.fullmatch(text):
        raise ValueError(text)
    value = float(text)
    if not math.isfinite(value) or abs(value) > NUMBER_MAX:
        raise ValueError(text)
    return value
