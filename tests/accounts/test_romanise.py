"""Usernames from Devanagari names keep their vowels (ITRANS, then Marathi habits)."""

from __future__ import annotations

import pytest

from accounts.romanise import romanised, romanised_word

pytestmark = pytest.mark.nodb


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("भक्ती चव्हाण", ["bhakti", "chavhan"]),  # the two names
        ("हर्षदा जोशी", ["harshada", "joshi"]),
        ("आशा पाटील", ["asha", "patil"]),
        ("ज्ञानेश्वर", ["dnyaneshvar"]),  # ज्ञ as Marathi says it
        ("ऋषिकेश", ["rushikesh"]),
        ("संजय", ["sanjay"]),  # anusvara before j: n
        ("संपत", ["sampat"]),  # before p: m
        ("क्षितिज", ["kshitij"]),
        ("कमळ", ["kamal"]),
        ("ऑफिस", ["ophis"]),  # a loan vowel
        ("राहुल देशमुख", ["rahul", "deshmukh"]),  # an unsaid a between syllables
        ("गणपत कुलकर्णी", ["ganpat", "kulkarni"]),
        ("मनोहर", ["manohar"]),  # ...but not before a dropped one
        ("मित्र", ["mitra"]),  # nor after a conjunct at the end
        ("Asha Patil", ["asha", "patil"]),  # Latin names unchanged
        ("José", ["jose"]),  # other scripts: anyascii as before
        ("★", []),
    ],
)
def test_a_name_is_written_as_a_marathi_teacher_would_type_it(name, words):
    assert romanised(name) == words


@pytest.mark.parametrize("word", ["हर्षदा", "पूजा", "लता"])
def test_a_written_long_a_at_the_end_stays(word):
    """Only the unspoken inherent a is dropped; आ (ा) at the end is said and kept."""
    assert romanised_word(word).endswith("a")


def test_only_lower_case_ascii_comes_out():
    for name in ("श्रद्धा दुःखी", "गौरी ऐश्वर्या", "कॉलेज", "ङ ञ ँ"):
        for word in romanised(name):
            assert word.isascii() and word == word.lower() and word.isalnum()
