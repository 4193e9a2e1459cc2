"""A draft post's place on its page, as the page sent it (`labs.runs.draft_order`).

`static/labs/drafts.js` sends two fields with each draft: `draft_page`, a random id of the
page load, and `draft_post`, the post's number on that page (1, 2, 3 …). A page cached
before they existed sends neither, and its drafts are judged by arrival as before; one
field without the other, or either garbled, is refused with a reason (400), never guessed.
"""

from __future__ import annotations

import re

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from labs.runs.draft_order import Order

# drafts.js makes the id from 16 random bytes (hex, or a UUID's letters and dashes).
PAGE_SHAPE = re.compile(r"[A-Za-z0-9_-]{8,64}")
# A page posts a few per second: nine digits last a page left open for years.
POST_SHAPE = re.compile(r"[0-9]{1,9}")


class DraftOrderForm(forms.Form):
    """The two fields of a draft's place; `order()` is None when the page sent neither."""

    draft_page = forms.CharField(required=False, strip=False)
    draft_post = forms.CharField(required=False, strip=False)

    def clean(self) -> dict[str, str]:
        data = super().clean() or {}
        page, post = data.get("draft_page", ""), data.get("draft_post", "")
        if not page and not post:
            return data
        if not PAGE_SHAPE.fullmatch(page) or not POST_SHAPE.fullmatch(post) or int(post) < 1:
            raise ValidationError(
                _("The page sent a change the site cannot place in order: reload the page."),
                code="bad_order",
            )
        return data

    def order(self) -> Order | None:
        page, post = self.cleaned_data.get("draft_page"), self.cleaned_data.get("draft_post")
        return Order(page, int(post)) if page and post else None

    def reason(self) -> str:
        """Why the fields were refused, in the reader's language."""
        return " ".join(str(message) for errors in self.errors.values() for message in errors)
