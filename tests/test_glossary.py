"""The Marathi catalogue and the Marathi unit pages say what docs/glossary-mr.md says.

The glossary's tables are read as rules (tests/glossary.py): a term's one rendering must be in
every entry whose English has the term, what the glossary forbids must not appear anywhere,
and the register is standard written Marathi. A failure names the entry and the rule; fix the
Marathi, or, if the rule is wrong, the glossary.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tests.glossary import Checker, glossary, parse, words_of, words_of_page
from tests.test_translations import MARATHI, po_entries

BASE = Path(settings.BASE_DIR)
# The Marathi prose: the unit pages and the diagrams they show (lessons/diagrams.py draws them).
UNIT_PAGES = [
    *sorted((BASE / "templates" / "labs" / "units" / "mr").glob("*.html")),
    *sorted((BASE / "static" / "lessons" / "mr").glob("*.svg")),
]


def catalogue_breaches(path: Path, checker: Checker) -> list[str]:
    found = []
    for entry in po_entries(path):
        english = words_of("\n".join(filter(None, (entry.msgid, entry.msgid_plural))))
        for marathi in entry.translations:
            found += [str(b) for b in checker.entry(entry.where, english, words_of(marathi))]
    return found


def test_the_glossary_reads_as_rules():
    rules = glossary()
    assert not rules.problems, "\n".join(rules.problems)
    assert len(rules.terms) > 50 and len(rules.phrases) >= 8
    # The terms the issue names, each with a check that holds it.
    for name in ("error", "closed", "lesson", "rubric", "gradebook", "a time label"):
        term = next(t for t in rules.terms if t.english.startswith(name))
        assert term.forms or term.never or term.nowhere, name
    assert {"queue", "worker", "retry", "breaker", "closed", "half-open"} <= rules.kept_words()


def test_the_catalogue_follows_the_glossary():
    breaches = catalogue_breaches(MARATHI, Checker())
    assert not breaches, "Marathi against docs/glossary-mr.md:\n" + "\n".join(breaches)


@pytest.mark.parametrize("page", UNIT_PAGES, ids=lambda p: p.name)
def test_each_unit_page_follows_the_glossary(page):
    text = words_of_page(page.read_text(encoding="utf-8"))
    breaches = [str(b) for b in Checker().text(page.name, text)]
    assert not breaches, "\n".join(breaches)


def test_the_catalogue_keeps_no_obsolete_entries():
    obsolete = [
        line for line in MARATHI.read_text(encoding="utf-8").splitlines() if line.startswith("#~")
    ]
    assert not obsolete, f"{len(obsolete)} #~ lines: makemessages -l mr --no-location --no-obsolete"


# The checks can fail: planted entries, each breaking one rule, are each caught.
PLANTED = """
#: planted.py:1
msgid "error page"
msgstr "चुकीचे पान"

#: planted.py:2
msgid "At the end the breaker is %(state)s."
msgstr "शेवटी breaker बंद आहे."

#: planted.py:3
msgid "Trigger starts at"
msgstr "ट्रिगर इथे सुरू"

#: planted.py:4
msgid "Lesson 12"
msgstr "पाठ 12"

#: planted.py:5
msgid "Rubric"
msgstr "गुणपत्रक"

#: planted.py:6
msgid "No answer."
msgstr "उत्तर दिलं नाही."

#: planted.py:7
msgid "Open time"
msgstr "उघडा राहण्याचा वेळ"
"""


def test_a_planted_entry_fails(tmp_path):
    planted = tmp_path / "django.po"
    planted.write_text(PLANTED, encoding="utf-8")
    breaches = catalogue_breaches(planted, Checker())
    for where in range(1, 8):
        assert any(b.startswith(f"planted.py:{where}:") for b in breaches), (where, breaches)
    fixed = PLANTED.replace("चुकीचे पान", "error पान").replace("breaker बंद", "breaker closed")
    fixed = fixed.replace("इथे सुरू", "सुरू होण्याचा सेकंद").replace("पाठ 12", "धडा 12")
    fixed = fixed.replace("गुणपत्रक", "गुणदान-तक्ता").replace("दिलं", "दिले")
    fixed = fixed.replace("उघडा राहण्याचा", "open राहण्याचा")
    planted.write_text(fixed, encoding="utf-8")
    assert catalogue_breaches(planted, Checker()) == []


def test_a_planted_unit_page_fails():
    page = "<p>breaker <strong>बंद</strong> झाला की calls जातात, हे Lesson 13 मध्ये पाहिलं.</p>"
    rules = [b.rule for b in Checker().text("planted.html", words_of_page(page))]
    assert len(rules) == 3, rules


def test_a_term_with_two_renderings_fails():
    text = glossary_text().replace(
        "| teacher, student, class |",
        "| lesson | **पाठ** | पुं. | no | | |\n| teacher, student, class |",
    )
    assert any("two renderings" in p for p in parse(text).problems)


def glossary_text() -> str:
    from tests.glossary import GLOSSARY

    return GLOSSARY.read_text(encoding="utf-8")


def test_the_crawl_flags_english_the_glossary_does_not_keep():
    """The Marathi browser crawl fails on these runs (tests/browser/test_marathi.py)."""
    from tests.browser.crawl import latin_runs

    assert latin_runs("Download plot as a PNG") == ["Download plot as a PNG"]
    assert latin_runs("पुन्हा Run again दाबा, मग Reset axes") == ["Run again", "Reset axes"]
    # The glossary's kept terms and names of things pass; so do words the reader typed.
    assert latin_runs("breaker closed: calls जातात, retry budget, Amazon CloudWatch") == []
    assert latin_runs("रन करणारे asha tara", typed=frozenset({"asha", "tara"})) == []
