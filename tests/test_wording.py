"""Phrases the second language review found unclear, in English or in Marathi, stay gone
(issue 36, items 4 and 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = pytest.mark.nodb

MARATHI = Path(settings.BASE_DIR) / "locale" / "mr" / "LC_MESSAGES" / "django.po"
# phrase → why it was rewritten (docs: ../shared/reviews/marathi-english-review-2.md §5)
GONE = {
    "watch for longer": "a student cannot watch a finished run longer: make the run longer",
    "Yes, it is throttled": "the question asks whether the limit holds the workers back",
    "worker-s": "opaque: worker-seconds",
    "your run had %(actual)s": "'your run had no.' with a yes/no figure",
    "Each new request became": "a request does not become attempts: it takes them",
    "Seconds the breaker noticed the recovery late": "clumsy: how late the breaker noticed",
    "Notice the recovery at once": "the breaker notices, not the student: set the breaker so…",
    "answer 99 in every 100 pages that never call": "tangled: pages that don't use it",
    "every post answered in": "'every' against 'at p99': 99% of posts within",
    "Slowest notice": "the label names a notice, the value is a time",
    "Slowest complete notice": "the label names a notice, the value is a time",
    "finds none free": "none of what: no web thread free",
    "Other students done by": "not a phrase: the second the other students were done",
    "(its limit is %(queue_limit)s)": "a backlog above its limit, unexplained",
    "it never drained: admitted": "a colon chain; the estimate and the outcome said once",
    "messages a lesson-second": "jargon: a lesson second, explained where it is used",
    "Wall time of one lesson second: the burst": "jargon: say what a lesson second is",
    "the longest wait with no timeout held": "obscure: up to N were stuck at once",
    "so far by %(students)s students": "'by 1 students'",
}
# The entry (its whole msgid, or "…" and a part of it) → Marathi (a pattern) that must not come
# back in it, and why (docs: ../shared/reviews/marathi-english-review-2.md §2a and §7).
MARATHI_GONE = [
    ("…extra texts", "जादा मेसेज", "texts are SMS; a queue's messages are मेसेज"),
    ("…Texts that went out twice", "दोनदा गेलेले मेसेज", "texts are SMS"),
    ("…for %(open_s)s s at a time", "s open झाला", "open for a time: open राहिला"),
    ("The first second it answers normally again.", "ती पुन्हा", "the provider is masculine"),
    ("…each sending %(fastest_rate_per_s)s", "प्रत्येक सेकंदाला", "each worker"),
    ("…For %(busy_s)s s,", r"%\(busy_s\)s s दर सेकंदाला", "for N s: %(busy_s)s s पर्यंत"),
    ("first success at", "^पहिले यश$", "a time label says when: पहिले यश केव्हा (s)"),
    ("Settings", "^सेटिंग$", "plural: सेटिंग्ज"),
    ("The breaker opened once.", r"1 वेळा", "'1 वेळा' for one opening: एकदा"),
    ("%(h)s h %(min)s min", "मिनिटे", "'1 मिनिटे' for one minute"),
    ("…(above, on a phone)", "फोनवर वर", "stumbles: फोनवर: वरच्या भागात"),
    ("Your assignments", "^तुमची असाइनमेंट$", "reads as one assignment"),
    ("…(its Redis", "त्याचे Redis", "Redis is masculine: त्याचा Redis"),
    ("…handed in %(when)s", "रोजी", "रोजी ('on the date') after a time: ला"),
    ("…the plain handler", "हाताळणी", "हाताळणी is handling, not a handler"),
    ("…The outage lasted", "टिकला", "टिकणे is to hold out: चालला"),
    ("origin fetches", "आणलेले$", "an adjective with no noun: आणलेली उत्तरे"),
    ("Parents per notice", "सूचनेचे पालक", "the parents of each notice: एका सूचनेमागे"),
    ("handed in", "^जमा केले$", "two forms in one filter: जमा केलेले"),
    ("…stall", "अडथळ्याच्या काळात|अडकलेल्या काळात", "one wording: dependency अडकलेली असताना"),
]


def msgids() -> list[str]:
    text = MARATHI.read_text(encoding="utf-8")
    found = []
    for block in re.findall(r'^msgid ((?:".*"\n)+)', text, re.M):
        found.append("".join(re.findall(r'"(.*)"', block)))
    return found


def said_for(rule: str, msgid: str) -> bool:
    return rule[1:] in msgid if rule.startswith("…") else rule == msgid


def test_the_rewritten_marathi_is_gone_from_its_entries():
    from tests.test_translations import po_entries

    entries = po_entries(MARATHI)
    left = []
    for rule, wrong, why in MARATHI_GONE:
        found = [e for e in entries if said_for(rule, e.msgid)]
        assert found, f"no entry for {rule!r}: the rule is out of date"
        left += [
            (e.msgid, wrong, why) for e in found for m in e.translations if re.search(wrong, m)
        ]
    assert left == []


def test_the_rewritten_phrases_are_gone_from_every_string():
    ids = msgids()
    left = [
        (phrase, why)
        for phrase, why in GONE.items()
        if any(re.search(re.escape(phrase) + "(?![a-z])", m) for m in ids)
    ]
    assert left == []


# Words kept in Latin script that a Class 11-12 student may not know are glossed where the
# lab first says them, in the glossary's words (second review §3.5, fix 17).
GLOSSED = {
    "throttle": "मर्यादेमुळे अडव",
    "ack": "काम पूर्ण झाल्याची पोच",
    "bulkhead": "वेगळे कप्पे",
    "fetches": "origin कडून उत्तर आणणे",
}


def test_the_unfamiliar_kept_words_are_glossed():
    from tests.test_translations import po_entries

    said = [m for e in po_entries(MARATHI) for m in e.translations]
    unglossed = [
        word
        for word, gloss in GLOSSED.items()
        if not any(re.search(rf"(?i)\b{word}\b[^.]{{0,20}}\({gloss}", m) for m in said)
    ]
    assert unglossed == []
