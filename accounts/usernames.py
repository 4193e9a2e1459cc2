"""What a new username may be: one rule for sign-up and for a roster's typed usernames.

A username is typed on school phones and read off paper slips, so a new one is plain ASCII
(a-z, 0-9 and . @ + - _), compared without case. Input is NFKC-normalised first, as
Django's login form does, so a fullwidth `ａｓｈａ` becomes `asha` (and is then taken if
`asha` exists) instead of an account nobody can log in to. Names that pass for the site's
own (`admin`) or are only punctuation (`.`, `_`) are refused; so is a username that looks
like an existing one written in other scripts (Cyrillic `аsha` beside `asha`), which only
older accounts can have, since new ones are ASCII.
"""

from __future__ import annotations

import re
import unicodedata

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

USERNAME_MAX_LENGTH = 150  # auth.User.username
ALLOWED = re.compile(r"[A-Za-z0-9.@+_-]+")
# Compared with the punctuation taken out: `ad.min` is `admin`.
RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "root",
        "superuser",
        "staff",
        "system",
        "support",
        "moderator",
        "teacher",
        "anonymous",
        "null",
        "none",
    }
)
# Letters of other scripts drawn like a Latin one: enough to catch the lookalikes a
# student could type on a phone keyboard (Cyrillic, Greek).
LOOKALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s",
        "ԁ": "d", "һ": "h", "ӏ": "l", "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i",
        "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    }
)  # fmt: skip


def normalised(raw: str) -> str:
    """The username as it is stored and compared: NFKC, without a BOM or surrounding spaces."""
    return unicodedata.normalize("NFKC", raw.replace("\ufeff", "")).strip()


def skeleton(username: str) -> str:
    """What a username looks like: lower case, lookalike letters as their Latin twins."""
    folded = unicodedata.normalize("NFKD", username.casefold().translate(LOOKALIKES))
    return "".join(c for c in folded if not unicodedata.combining(c))


def username_problem(username: str, *, check_taken: bool = True) -> str:
    """Why `username` (already `normalised`) cannot be a new account's ('' if it can)."""
    if not username:
        return _("Choose a username.")
    if len(username) > USERNAME_MAX_LENGTH:
        return _("A username has at most %(n)d characters.") % {"n": USERNAME_MAX_LENGTH}
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in username):
        return _("The username has an invisible or control character: type it again.")
    if not ALLOWED.fullmatch(username):
        return _(
            "Use only the Latin letters a-z, the digits 0-9 and . @ + - _ in a username "
            "(no spaces, accents or other scripts), so it can be typed on any phone."
        )
    if not re.search(r"[A-Za-z0-9]", username):
        return _("A username needs at least one letter or digit.")
    if re.sub(r"[.@+_-]", "", username.lower()) in RESERVED:
        return _("The username %(u)s is kept for the site: choose another.") % {"u": username}
    if check_taken and lookalike_of(username):
        return _("The username %(u)s is already taken.") % {"u": username}
    return ""


def lookalike_of(username: str) -> str:
    """An existing username that `username` is, or looks like ('' if none)."""
    User = get_user_model()
    same = User.objects.filter(username__iexact=username).values_list("username", flat=True)
    if first := same.first():
        return first
    # New usernames are ASCII, so only an older non-ASCII one can be its lookalike.
    key = skeleton(username)
    for other in User.objects.filter(username__regex=r"[^ -~]").values_list("username", flat=True):
        if skeleton(other) == key:
            return other
    return ""
