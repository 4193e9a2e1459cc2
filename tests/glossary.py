"""The Marathi glossary (docs/glossary-mr.md) read as rules, and a checker that applies them.

The glossary's two tables are the only copy of the rules: `tests/test_glossary.py` checks the
catalogue and the Marathi unit pages with them, and the Marathi crawl takes the terms it marks
as kept in English for the Latin words a Marathi page may show. A rule changes in the doc.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary-mr.md"
CODE_SPAN = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Term:
    """One row of the Terms table: the English, its one Marathi rendering and its checks."""

    english: str
    marathi: str
    kept: bool
    applies: tuple[re.Pattern, ...] = ()  # `en:` the English msgids the term is in
    forms: tuple[re.Pattern, ...] = ()  # `mr:` one of these must then be in the Marathi
    never: tuple[re.Pattern, ...] = ()  # `never:` what such an entry's Marathi must not say
    nowhere: tuple[re.Pattern, ...] = ()  # `nowhere:` what no Marathi text may say

    def applies_to(self, msgid: str) -> bool:
        return any(p.search(msgid) for p in self.applies)


@dataclass(frozen=True)
class Phrase:
    """One row of the table of phrases the site never uses."""

    wrong: str
    instead: str
    pattern: re.Pattern


@dataclass(frozen=True)
class Glossary:
    terms: tuple[Term, ...]
    phrases: tuple[Phrase, ...]
    problems: tuple[str, ...] = ()  # what is wrong with the glossary itself

    def kept_words(self) -> frozenset[str]:
        """The Latin-script words of the terms the course keeps in English."""
        words = set()
        for term in self.terms:
            if term.kept:
                words |= set(re.findall(r"[A-Za-z][A-Za-z-]*", term.marathi))
        return frozenset(w.lower() for w in words)


def split_row(line: str) -> list[str]:
    """The cells of a Markdown table row; `\\|` is a pipe inside a cell."""
    cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [cell.strip().replace("\\|", "|") for cell in cells]


def table_after(text: str, heading: str) -> list[list[str]]:
    """The body rows of the first table under a `## heading`."""
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [split_row(line) for line in section.splitlines() if line.startswith("|")]
    return [row for row in rows[2:]]  # the header and its --- line


def checks(cell: str) -> dict[str, list[re.Pattern]]:
    found: dict[str, list[re.Pattern]] = {"en": [], "mr": [], "never": [], "nowhere": []}
    for span in CODE_SPAN.findall(cell):
        kind, _, pattern = span.partition(":")
        found[kind].append(re.compile(pattern, re.IGNORECASE | re.MULTILINE))
    return found


def parse(text: str) -> Glossary:
    terms, phrases, problems = [], [], []
    renderings: dict[str, str] = {}
    for row in table_after(text, "Terms"):
        english, marathi, _gender, kept, _gloss, cell = row
        found = checks(cell)
        term = Term(
            english=english,
            marathi=marathi,
            kept=kept == "yes",
            applies=tuple(found["en"]),
            forms=tuple(found["mr"]),
            never=tuple(found["never"]),
            nowhere=tuple(found["nowhere"]),
        )
        if term.forms and not term.applies:
            problems.append(f"{english}: forms to require, but no `en:` to say where")
        for name in re.split(r",\s*", re.sub(r"\(.*?\)", "", english)):
            name = name.strip().strip("*").lower()
            if name in renderings and renderings[name] != marathi:
                problems.append(
                    f"{name!r} has two renderings: {renderings[name]!r} and {marathi!r}"
                )
            renderings[name] = marathi
        terms.append(term)
    for row in table_after(text, "Phrases the site never uses"):
        wrong, _why, instead, cell = row
        for span in CODE_SPAN.findall(cell):
            phrases.append(
                Phrase(wrong=wrong, instead=instead, pattern=re.compile(span, re.IGNORECASE))
            )
    return Glossary(tuple(terms), tuple(phrases), tuple(problems))


@cache
def glossary() -> Glossary:
    return parse(GLOSSARY.read_text(encoding="utf-8"))


@dataclass
class Breach:
    where: str
    english: str
    marathi: str
    rule: str

    def __str__(self) -> str:
        said = f" {self.english!r} →" if self.english else ""
        return f"{self.where}:{said} {self.marathi[:140]!r}: {self.rule}"


@dataclass
class Checker:
    """Applies a glossary to catalogue entries (English and Marathi) and to Marathi prose."""

    rules: Glossary = field(default_factory=glossary)

    def entry(self, where: str, english: str, marathi: str) -> list[Breach]:
        found = self.text(where, marathi, english)
        for term in self.rules.terms:
            if not term.applies_to(english):
                continue
            if term.forms and not any(p.search(marathi) for p in term.forms):
                found.append(Breach(where, english, marathi, f"{term.english} is {term.marathi}"))
            for pattern in term.never:
                if pattern.search(marathi):
                    rule = f"{term.english} is {term.marathi}, never {pattern.pattern!r}"
                    found.append(Breach(where, english, marathi, rule))
        return found

    def text(self, where: str, marathi: str, english: str = "") -> list[Breach]:
        """What no Marathi text may say: the terms' `nowhere:` and the phrases table."""
        found = []
        for term in self.rules.terms:
            for pattern in term.nowhere:
                for match in pattern.finditer(marathi):
                    rule = f"{term.english} is {term.marathi}, never {match.group(0)!r}"
                    found.append(Breach(where, english, around(marathi, match), rule))
        for phrase in self.rules.phrases:
            for match in phrase.pattern.finditer(marathi):
                rule = f"{match.group(0)!r}: {phrase.wrong}; say {phrase.instead}"
                found.append(Breach(where, english, around(marathi, match), rule))
        return found


def around(text: str, match: re.Match) -> str:
    """The words around a match, so a breach in a long page can be found."""
    if len(text) <= 160:
        return text
    return " ".join(text[max(0, match.start() - 50) : match.end() + 50].split())


# What the checks read: the words, not the placeholders, code, markup or template tags.
PLACEHOLDER = re.compile(r"%\(\w+\)[sdif]|%[sd]|\{\w*\}")
CODE = re.compile(r"<code[^>]*>.*?</code>|`[^`]*`", re.S)
TAG = re.compile(r"<[^>]+>")
TEMPLATE_TAG = re.compile(
    r"{%\s*inline_svg\s+\"[^\"]*\"\s+\"([^\"]*)\"\s*%}|{%.*?%}|{{.*?}}|{#.*?#}", re.S
)


def words_of(text: str) -> str:
    """A msgid's or msgstr's words: placeholders, code and HTML tags left out."""
    return TAG.sub(" ", CODE.sub(" ", PLACEHOLDER.sub("#", text)))


def words_of_page(html: str) -> str:
    """A unit page's words (a diagram's alternative text included), without template tags."""
    return words_of(TEMPLATE_TAG.sub(lambda m: f" {m.group(1) or ''} ", html))
