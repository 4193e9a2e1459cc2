"""The roster form: a pasted list or an uploaded CSV file (UTF-8, as spreadsheets save it)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

MAX_UPLOAD_BYTES = 100_000  # 200 rows of long names fit ten times over


class RosterForm(forms.Form):
    text = forms.CharField(
        label=_("Paste the list"),
        required=False,
        max_length=MAX_UPLOAD_BYTES,
        widget=forms.Textarea(attrs={"rows": 10, "cols": 50}),
        help_text=_("One student per line: name, then optionally a comma and a username."),
    )
    file = forms.FileField(
        label=_("or upload a CSV file"),
        required=False,
        help_text=_("Columns: name, username (optional). A first line of headings is skipped."),
    )

    def clean_file(self) -> str:
        upload = self.cleaned_data.get("file")
        if not upload:
            return ""
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(kb)d KB: is it the right one?")
                % {"kb": MAX_UPLOAD_BYTES // 1000}
            )
        try:
            return upload.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise forms.ValidationError(
                _("The file is not UTF-8 text. Save it from the spreadsheet as “CSV UTF-8”.")
            ) from None

    def clean(self):
        cleaned = super().clean()
        if not self.errors and not (cleaned.get("text", "").strip() or cleaned.get("file")):
            raise forms.ValidationError(_("Paste the list or choose a file."))
        return cleaned

    def roster_text(self) -> str:
        """The file's text if one was uploaded, else the pasted list."""
        return self.cleaned_data.get("file") or self.cleaned_data.get("text", "")
