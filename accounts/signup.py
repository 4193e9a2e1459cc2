"""Signing up with a class's join code: an account and a place in the class in one step.

Many students have no e-mail address, so the join code a teacher hands out is what lets a
stranger make an account here; a class whose sign-up is closed lets no one in.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from accounts.usernames import normalised, username_problem
from teaching.approvals import join_with_code
from teaching.forms import classroom_for_code
from teaching.models import Classroom


class SignupForm(UserCreationForm):
    """Join code, username, name and a password typed twice (Django's validators apply)."""

    code = forms.CharField(label=_("Class join code"), max_length=32)

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "first_name")
        labels = {"first_name": _("Your name")}

    field_order = ["code", "username", "first_name", "password1", "password2"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["first_name"].required = True
        # Sign-up opens accounts to anyone with the code: no one becomes staff this way.
        self.fields.pop("usable_password", None)

    def clean_code(self) -> Classroom:
        return classroom_for_code(self.cleaned_data["code"])

    def clean_username(self) -> str:
        """Our rule for a new username (`accounts.usernames`), which includes Django's
        case-blind "already taken" check and adds the lookalikes.

        Whether a name is taken is said only to someone with a class's code (the field
        before this one): otherwise the form would list the site's usernames to anyone."""
        username = normalised(self.cleaned_data["username"])
        if problem := username_problem(username, check_taken=self._has_code()):
            raise forms.ValidationError(problem)
        return username

    def _has_code(self) -> bool:
        return "code" in self.cleaned_data

    def validate_unique(self) -> None:
        # The model's own "already exists" check: also only with the right code.
        if self._has_code():
            super().validate_unique()

    def clean_first_name(self) -> str:
        name = " ".join(self.cleaned_data["first_name"].split())
        if not name:
            raise forms.ValidationError(_("Write your name as your teacher knows it."))
        return name

    @transaction.atomic
    def save(self, commit: bool = True):
        """The new student, in the class the code names (or waiting for its teacher's
        approval, with "approve new sign-ups" on: `teaching.approvals`)."""
        user = super().save(commit=True)
        join_with_code(self.cleaned_data["code"], user, made_here=True)
        return user
