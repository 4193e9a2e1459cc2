"""A name in Latin letters, as a Marathi teacher would type it: भक्ती चव्हाण → bhakti chavhan.

Devanagari goes through ITRANS (`indic-transliteration`), the long-standing ASCII scheme
for Indian scripts: it keeps every vowel (anyascii wrote भक्ती as `bhkti`) and marks long
ones in capitals (bhaktI), which lower-casing folds into the spelling people use. Then the
habits of Marathi spelling in Latin letters: the inherent `a` a Marathi speaker does not
say is dropped (`unsaid_schwas`: at a word's end, चव्हाण: ITRANS chavhANa → chavhan, and
between syllables as Ohala's rule has it, देशमुख → deshmukh, not deshamukh), ज्ञ is `dny`
(ज्ञानेश्वर → dnyaneshvar; व stays ITRANS's `v`), ऋ is `ru`, an
anusvara is `m` before p, b or m and `n` elsewhere (संपत → sampat, संजय → sanjay), and
ऑ/ॅ (English loan vowels) are `o`/`e`. Only a-z and 0-9 come out. Other scripts keep the
anyascii path.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from anyascii import anyascii
from indic_transliteration import sanscript

DEVANAGARI = re.compile(r"[\u0900-\u097f]")
# Before ITRANS: the loan vowels it has no plain letters for.
LOAN_VOWELS = str.maketrans({"ऑ": "ओ", "ॉ": "ो", "ॅ": "े", "ऍ": "ए"})
# After ITRANS, before lower-casing (ITRANS is case-sensitive: A is ā, Sh is ष).
MARATHI = (
    ("j~n", "dny"),  # ज्ञ
    ("RRi", "ru"),  # ऋ
    ("RRI", "ru"),
    ("~N", "n"),  # ङ
    ("~n", "n"),  # ञ
    (".N", "n"),  # chandrabindu
    (".a", ""),  # avagraha
    (".h", ""),  # a written virama
)
ANUSVARA = re.compile(r"M(?=[pbm])")
VIRAMA = "\u094d"
NUKTA = "\u093c"


def _consonant(ch: str) -> bool:
    return "\u0915" <= ch <= "\u0939" or "\u0958" <= ch <= "\u095f" or "\u0978" <= ch <= "\u097f"


def _vowel_sign(ch: str) -> bool:
    return "\u093e" <= ch <= "\u094c" or ch in "\u0955\u0956\u0957\u0962\u0963"


def _mark(ch: str) -> bool:
    return ch in "\u0900\u0901\u0902\u0903"  # candrabindu, anusvara, visarga


@dataclass
class Syllable:
    text: str
    consonant: bool = False  # a consonant (or a conjunct), rather than a vowel or other
    conjunct: bool = False
    schwa: bool = False  # its vowel is the inherent a, with no mark after it


def syllables(word: str) -> list[Syllable]:
    """A Devanagari word cut where each vowel ends: क्ष + ि, त + ि, ज."""
    out: list[Syllable] = []
    i = 0
    while i < len(word):
        start = i
        if _consonant(word[i]):
            i += 1
            conjunct = False
            while True:
                if i < len(word) and word[i] == NUKTA:
                    i += 1
                if i + 1 < len(word) and word[i] == VIRAMA and _consonant(word[i + 1]):
                    conjunct, i = True, i + 2
                    continue
                break
            bare = True
            if i < len(word) and (word[i] == VIRAMA or _vowel_sign(word[i])):
                bare, i = False, i + 1
            marked = i < len(word) and _mark(word[i])
            while i < len(word) and _mark(word[i]):
                i += 1
            out.append(Syllable(word[start:i], True, conjunct, bare and not marked))
        else:
            i += 1
            while i < len(word) and _mark(word[i]):
                i += 1
            out.append(Syllable(word[start:i]))
    return out


def unsaid_schwas(word: str) -> str:
    """The word with a virama where its inherent a is not said: after a lone consonant at
    the end of a word of two or more syllables, and (right to left) a lone consonant's a
    between a sounded vowel and a lone consonant with its own vowel (V C a C V → V C C V)."""
    parts = syllables(word)
    n = len(parts)
    dropped: set[int] = set()
    last = parts[-1] if parts else None
    if n >= 2 and last is not None and last.schwa and not last.conjunct:
        dropped.add(n - 1)
    for i in range(n - 2, 0, -1):
        # Right to left: the syllable before this one still has its vowel.
        here, after = parts[i], parts[i + 1]
        if not here.schwa or here.conjunct or after.conjunct or not after.consonant:
            continue
        if i + 1 in dropped or after.text.endswith(VIRAMA):
            continue
        dropped.add(i)
    return "".join(p.text + (VIRAMA if k in dropped else "") for k, p in enumerate(parts))


def romanised_word(word: str) -> str:
    """One word in lower-case a-z and 0-9."""
    word = unicodedata.normalize("NFC", word)
    if not DEVANAGARI.search(word):
        return "".join(re.findall(r"[a-z0-9]+", anyascii(word).lower()))
    text = sanscript.transliterate(
        unsaid_schwas(word.translate(LOAN_VOWELS)), sanscript.DEVANAGARI, sanscript.ITRANS
    )
    for itrans, marathi in MARATHI:
        text = text.replace(itrans, marathi)
    text = ANUSVARA.sub("m", text).replace("M", "n")
    return "".join(re.findall(r"[a-z0-9]+", anyascii(text).lower()))


def romanised(name: str) -> list[str]:
    """A name's words in Latin letters (empty words left out)."""
    words = (romanised_word(w) for w in unicodedata.normalize("NFKC", name).split())
    return [w for w in words if w]
