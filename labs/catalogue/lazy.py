"""`gettext_lazy` typed as `str`, for text written once at import (labels, titles,
questions) and translated each time a page shows it.

Django's lazy string is a str wherever it is used, but the type checker sees a promise;
this wrapper says what it behaves as. Import it as `_` so `makemessages` finds the text.
"""

from __future__ import annotations

from typing import cast

from django.utils.text import format_lazy as _format_lazy
from django.utils.translation import gettext_lazy as _gettext_lazy


def gettext_lazy(message: str) -> str:
    return cast(str, _gettext_lazy(message))


def format_lazy(template: str, **values: str) -> str:
    """A lazy `template.format(**values)`: both translated when the page shows it."""
    return cast(str, _format_lazy(template, **values))
