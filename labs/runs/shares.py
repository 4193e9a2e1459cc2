"""A lab's setup in a short link: "Share this setup" keeps the values and the language under
a code of a few letters, and /s/<code> opens the lab with them, for anyone, logged in or not.

The code is made from the setup itself, so sharing the same values twice gives the same
link (and a script posting setups makes no more rows than it has different setups). Its
letters are lower-case and digits without look-alikes (no 0/o, 1/l/i): a link read out or
copied by hand survives, and a WhatsApp message keeps it whole.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import models
from django.utils import timezone

ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # 31 letters, none mistaken for another
CODE_LENGTH = 8  # 31**8: about 850 billion codes


class SharedSetup(models.Model):
    """One lab's values (as its form sends them) and the language they were shared in."""

    code = models.CharField(max_length=16, unique=True)
    lab = models.CharField(max_length=64)
    values = models.JSONField()  # field name → text, as the lab's form sends it
    language = models.CharField(max_length=8)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.code}: {self.lab} ({self.language})"


def code_for(lab: str, values: dict[str, str], language: str) -> str:
    text = json.dumps([lab, values, language], sort_keys=True, separators=(",", ":"))
    number = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    letters = []
    for _ in range(CODE_LENGTH):
        number, at = divmod(number, len(ALPHABET))
        letters.append(ALPHABET[at])
    return "".join(letters)


def share(lab: str, values: dict[str, Any], language: str) -> SharedSetup:
    """The shared setup for these values, made once."""
    plain = {name: str(value) for name, value in values.items()}
    code = code_for(lab, plain, language)
    setup, _made = SharedSetup.objects.get_or_create(
        code=code, defaults={"lab": lab, "values": plain, "language": language}
    )
    return setup


def shared(code: str) -> SharedSetup | None:
    return SharedSetup.objects.filter(code=code.lower()).first()
