"""The unit pages' diagrams, drawn as SVG in each language from one layout.

Run `python -m lessons.diagrams` after changing a label or a layout; a test checks the
files in static/lessons/ match what this module draws.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from django.conf import settings
from django.utils import translation
from django.utils.translation import pgettext_lazy

OUT = Path(__file__).resolve().parent.parent / "static" / "lessons"
FONT = "Noto Sans Devanagari, Noto Sans, Mukta, sans-serif"

# Every label in English, translated like any other string (context "diagram label", so a
# word here may read differently from the same word on a chart). A new language needs no
# change here: its catalogue gives the words and `LANGUAGES` the files.
LABELS = {
    "requests": pgettext_lazy("diagram label", "requests"),
    "front": pgettext_lazy("diagram label", "front"),
    "replies": pgettext_lazy("diagram label", "replies at once"),
    "queue": pgettext_lazy("diagram label", "queue"),
    "workers": pgettext_lazy("diagram label", "workers"),
    "slow": pgettext_lazy("diagram label", "do the slow work"),
    "scaler": pgettext_lazy("diagram label", "scaler"),
    "backlog": pgettext_lazy("diagram label", "reads the backlog"),
    "dlq": pgettext_lazy("diagram label", "DLQ"),
    "too_many": pgettext_lazy("diagram label", "failed too often"),
    "caller": pgettext_lazy("diagram label", "caller"),
    "breaker": pgettext_lazy("diagram label", "breaker"),
    "service": pgettext_lazy("diagram label", "service"),
    "fails": pgettext_lazy("diagram label", "call fails"),
    "backoff": pgettext_lazy("diagram label", "wait: backoff + jitter"),
    "retry": pgettext_lazy("diagram label", "retry (a few times)"),
    "closed": pgettext_lazy("diagram label", "closed: calls pass"),
    "open": pgettext_lazy("diagram label", "open: refused at once"),
    "half": pgettext_lazy("diagram label", "half-open: one trial"),
    "states": pgettext_lazy("diagram label", "the breaker's three states"),
    "long": pgettext_lazy("diagram label", "queue is long"),
    "wait": pgettext_lazy("diagram label", "wait > 1 s timeout"),
    "give_up": pgettext_lazy("diagram label", "callers give up, retry"),
    "wasted": pgettext_lazy("diagram label", "abandoned work still done"),
    "trigger": pgettext_lazy("diagram label", "trigger: the spike"),
}


HEAD = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
    'role="img" font-family="{font}" font-size="14">\n'
    '<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
    'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#444"/></marker></defs>\n'
)


def _box(x: int, y: int, w: int, h: int, text: str, fill: str = "#eef4fb") -> str:
    return (
        f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="8" fill="{fill}" stroke="#345"/>\n'
        f'<text x="{x + w // 2}" y="{y + h // 2 + 5}" text-anchor="middle">{escape(text)}</text>\n'
    )


def _note(x: int, y: int, text: str) -> str:
    return (
        f'<text x="{x}" y="{y}" text-anchor="middle" font-size="12" fill="#555">'
        f"{escape(text)}</text>\n"
    )


def _arrow(x1: int, y1: int, x2: int, y2: int, dashed: bool = False) -> str:
    dash = ' stroke-dasharray="5 4"' if dashed else ""
    return (
        f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#444" stroke-width="2"'
        f'{dash} marker-end="url(#a)"/>\n'
    )


def _queue(x: int, y: int, label: str, slots: int = 6) -> str:
    cells = "".join(
        f'<rect x="{x + 8 + i * 22}" y="{y + 10}" width="18" height="30" fill="#f6c85f" '
        f'stroke="#345"/>\n'
        for i in range(slots)
    )
    width = 16 + slots * 22
    return (
        f'<rect x="{x}" y="{y}" width="{width}" height="50" rx="6" fill="none" stroke="#345"/>\n'
        + cells
        + _note(x + width // 2, y + 70, label)
    )


def lesson_07(t: dict[str, str]) -> str:
    out = HEAD.format(w=640, h=220, font=FONT)
    out += _note(50, 95, t["requests"]) + _arrow(20, 110, 90, 110)
    out += _box(95, 85, 110, 50, t["front"]) + _note(150, 155, t["replies"])
    out += _arrow(205, 110, 250, 110) + _queue(255, 85, t["queue"])
    for i in range(3):
        out += _arrow(403, 110, 470, 50 + i * 60) + _box(475, 30 + i * 60, 110, 40, t["workers"])
    out += _note(530, 210, t["slow"])
    return out + "</svg>\n"


def lesson_12(t: dict[str, str]) -> str:
    out = HEAD.format(w=640, h=260, font=FONT)
    out += _arrow(10, 80, 60, 80) + _box(65, 55, 100, 50, t["front"])
    out += _arrow(165, 80, 200, 80) + _queue(205, 55, t["queue"])
    out += _box(230, 170, 110, 40, t["scaler"]) + _arrow(285, 125, 285, 168, dashed=True)
    out += _note(285, 230, t["backlog"]) + _arrow(340, 190, 445, 130, dashed=True)
    out += _arrow(353, 80, 445, 80)
    for i in range(3):
        out += _box(450, 30 + i * 40, 110, 32, t["workers"])
    out += _box(520, 200, 90, 40, t["dlq"], fill="#f4c7c3") + _arrow(560, 150, 565, 198)
    out += _note(560, 255, t["too_many"])
    return out + "</svg>\n"


def lesson_13(t: dict[str, str]) -> str:
    out = HEAD.format(w=640, h=330, font=FONT)
    out += _box(20, 40, 110, 50, t["caller"]) + _arrow(130, 65, 225, 65)
    out += _box(230, 40, 120, 50, t["breaker"], fill="#fde9c9") + _arrow(350, 65, 445, 65)
    out += _box(450, 40, 130, 50, t["service"], fill="#f4c7c3")
    out += _note(515, 112, t["fails"])
    out += _arrow(515, 120, 515, 148) + _box(360, 150, 240, 40, t["backoff"])
    out += _arrow(360, 170, 75, 170) + _arrow(75, 170, 75, 92)
    out += _note(220, 162, t["retry"])
    # The breaker's three states, below it: closed -> open -> half-open -> closed.
    out += _note(320, 226, t["states"])
    for i, (key, fill) in enumerate(
        (("closed", "#d8efd9"), ("open", "#f4c7c3"), ("half", "#fde9c9"))
    ):
        out += _box(20 + i * 215, 236, 185, 36, t[key], fill=fill)
    out += _arrow(205, 254, 233, 254) + _arrow(420, 254, 448, 254)
    out += (
        '<path d="M542,272 L542,305 L112,305 L112,275" fill="none" stroke="#444" '
        'stroke-width="2" marker-end="url(#a)"/>\n'
    )
    return out + "</svg>\n"


def assignment_05(t: dict[str, str]) -> str:
    out = HEAD.format(w=640, h=300, font=FONT)
    out += _box(230, 20, 180, 44, t["long"], fill="#f6c85f")
    out += _box(440, 128, 190, 44, t["wait"])
    out += _box(230, 236, 180, 44, t["give_up"], fill="#f4c7c3")
    out += _box(10, 128, 200, 44, t["wasted"])
    out += _arrow(410, 45, 530, 126) + _arrow(530, 172, 412, 255)
    out += _arrow(230, 258, 110, 174) + _arrow(110, 126, 228, 45)
    out += _note(520, 40, t["trigger"]) + _arrow(520, 48, 412, 40, dashed=True)
    return out + "</svg>\n"


DIAGRAMS = {
    "lesson-07": lesson_07,
    "lesson-12": lesson_12,
    "lesson-13": lesson_13,
    "assignment-05": assignment_05,
}


def labels_in(language: str) -> dict[str, str]:
    """The labels in one language, from its catalogue."""
    with translation.override(language):
        return {key: str(words) for key, words in LABELS.items()}


def drawn() -> dict[Path, str]:
    """Every diagram file, for each of the site's languages, and the SVG it should hold."""
    return {
        OUT / language / f"{unit}.svg": draw(labels_in(language))
        for language, _name in settings.LANGUAGES
        for unit, draw in DIAGRAMS.items()
    }


if __name__ == "__main__":
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    django.setup()
    for path, svg in drawn().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        print(path)
