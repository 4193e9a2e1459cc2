"""Forms of the teaching side: they convert and validate; views only read cleaned_data."""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from labs.capstone.report import LAB as PAIR_LAB
from labs.catalogue.lab import Lab
from labs.catalogue.units import UNITS
from labs.runs.models import Run
from labs.text import SEED_MAX
from labs.web.forms import PlainIntegerField, field_for
from lessons.questions import questions_for
from teaching.criteria import CriteriaError, criteria_text, parse_criteria
from teaching.models import HANDIN_PAIR, HANDIN_RUN, Assignment, Classroom, Membership
from teaching.rubric import parse_rubric, rubric_text
from teaching.unit_challenges import for_unit

FREE, PRESET, LOCKED = "free", "preset", "locked"
MODES = (
    (FREE, gettext_lazy("Student chooses")),
    (PRESET, gettext_lazy("Preset, student may change it")),
    (LOCKED, gettext_lazy("Locked")),
)


class DueDateInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format="%Y-%m-%dT%H:%M", **kwargs)


def when(moment: datetime) -> str:
    """A date as the pages show it, in the site's time zone."""
    return date_format(timezone.localtime(moment), "j M Y, H:i")


class ClassroomForm(forms.ModelForm):
    class Meta:
        model = Classroom
        fields = ["name"]
        labels = {"name": gettext_lazy("Class name")}

    def __init__(self, *args: Any, teacher=None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.teacher = teacher

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if Classroom.objects.filter(teacher=self.teacher, name__iexact=name).exists():
            raise ValidationError(_("You already have a class called '%(name)s'.") % {"name": name})
        return name


def classroom_for_code(raw: str) -> Classroom:
    """The class a typed join code names, read leniently (spaces, dashes, lower case).

    Used by joining and by signing up, so a closed class refuses both.
    """
    code = "".join(raw.split()).replace("-", "").upper()
    classroom = Classroom.objects.filter(join_code=code).select_related("teacher").first()
    if classroom is None:
        raise ValidationError(gettext_lazy("No class has this code. Check it with your teacher."))
    if classroom.is_archived or not classroom.signup_open:
        raise ValidationError(
            gettext_lazy("This class is not taking new students. Ask your teacher.")
        )
    return classroom


class JoinForm(forms.Form):
    """A student types the code the teacher gave them."""

    code = forms.CharField(label=gettext_lazy("Join code"), max_length=32)

    def __init__(self, *args: Any, student=None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.student = student

    def clean_code(self) -> Classroom:
        classroom = classroom_for_code(self.cleaned_data["code"])
        if classroom.teacher_id == self.student.pk:
            raise ValidationError(_("You teach this class, so you cannot join it as a student."))
        return classroom


class AddStudentForm(forms.Form):
    """The teacher invites an existing account by username; it joins when its student accepts."""

    username = forms.CharField(label=gettext_lazy("Student's username"), max_length=150)

    def __init__(self, *args: Any, classroom: Classroom, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.classroom = classroom

    def clean_username(self):
        # NFKC, as the login form reads it: a fullwidth name finds the account it means.
        username = unicodedata.normalize("NFKC", self.cleaned_data["username"]).strip()
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise ValidationError(
                _("No one has the username '%(username)s'.") % {"username": username}
            )
        if user.pk == self.classroom.teacher_id:
            raise ValidationError(_("You teach this class; add students, not yourself."))
        if Membership.objects.filter(classroom=self.classroom, student=user).exists():
            raise ValidationError(
                _("%(username)s is already in this class.") % {"username": username}
            )
        if user.is_staff or user.is_superuser:
            raise ValidationError(_("An admin's account cannot be invited into a class."))
        return user


def challenges_field(lab: Lab) -> forms.MultipleChoiceField:
    """Which challenges of the lab's unit the students are asked to meet."""
    return forms.MultipleChoiceField(
        choices=[(c.slug, gettext_lazy(c.goal)) for c in for_unit(lab.unit)],
        widget=forms.CheckboxSelectMultiple,
        required=False,
        label=gettext_lazy("Challenges"),
        help_text=gettext_lazy(
            "Each is checked against the student's own runs; the gradebook shows how many "
            "each student has met."
        ),
    )


def selfcheck_field() -> forms.ChoiceField:
    """Which unit's self-check, if any, the students answer as part of the assignment."""
    choices: list[tuple[str, Any]] = [("", gettext_lazy("None"))]
    choices += [
        (u.slug, format_lazy("{} — {}", gettext_lazy(u.code), gettext_lazy(u.title)))
        for u in UNITS
        if questions_for(u.slug)
    ]
    return forms.ChoiceField(
        choices=choices,
        required=False,
        label=gettext_lazy("Self-check"),
        help_text=gettext_lazy(
            "The students answer it on the unit's page; the gradebook shows each "
            "student's latest score."
        ),
    )


class AssignmentForm(forms.ModelForm):
    """An assignment on one lab: for each parameter, whether and how it is preset.

    The lab is fixed before the form is shown (its parameters decide the fields), and
    cannot change on edit: submitted runs belong to it.
    """

    criteria_text = forms.CharField(
        label=gettext_lazy("Grading criteria"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5, "spellcheck": "false"}),
        help_text=gettext_lazy(
            "One check per line: figure, operator (== != < <= > >=), value. "
            "For example: peak_backlog < 1000. In a before/after pair, name the run: "
            "before.recovered == false, after.obligations_lost == 0"
        ),
    )
    rubric_text = forms.CharField(
        label=gettext_lazy("Rubric"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=gettext_lazy(
            "What you score by hand, one item per line with its points. "
            "For example: Names the loop that keeps the service down: 5"
        ),
    )

    class Meta:
        model = Assignment
        fields = ["title", "instructions", "handin", "selfcheck", "due_at", "require_prediction"]
        widgets = {
            "instructions": forms.Textarea(attrs={"rows": 5}),
            "due_at": DueDateInput(),
        }
        labels = {
            "title": gettext_lazy("Title"),
            "instructions": gettext_lazy("Instructions"),
            "due_at": gettext_lazy("Due"),
            "selfcheck": gettext_lazy("Self-check"),
            "handin": gettext_lazy("What the student hands in"),
            "require_prediction": gettext_lazy("Ask for a prediction before the run"),
        }
        help_texts = {
            "require_prediction": gettext_lazy(
                "A run can be handed in only if the student said what they expected "
                "(the lab's “Predict first”) before pressing Run."
            ),
        }

    def __init__(
        self,
        *args: Any,
        classroom: Classroom,
        lab: Lab,
        now: datetime | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.classroom, self.lab = classroom, lab
        self.now = now or timezone.now()
        self.fields["due_at"].help_text = _("Time zone: %(zone)s.") % {
            "zone": timezone.get_current_timezone_name()
        }
        self.fields["selfcheck"] = selfcheck_field()
        self.fields["challenges"] = challenges_field(lab)
        if self.instance.pk:
            self.initial["challenges"] = self.instance.challenges
        self.preset_names = [p.name for p in lab.params] + (["seed"] if lab.uses_seed else [])
        for param in lab.params:
            value = field_for(param)
            value.required = False
            self._add_preset(param.name, _(param.label), value, param.default)
        if lab.uses_seed:
            seed = PlainIntegerField(min_value=0, max_value=SEED_MAX, required=False)  # 0-9 only
            seed.help_text = _("Lock it so every student draws the same random numbers.")
            self._add_preset("seed", _("Seed"), seed, 1)
        self.fields["handin"].required = False  # a form without it sets one run
        if lab.slug != PAIR_LAB:  # only the capstone has a before/after report
            self.fields["handin"].choices = [
                c for c in self.fields["handin"].choices if c[0] == HANDIN_RUN
            ]
        if self.instance.pk:
            self.initial["criteria_text"] = criteria_text(self.instance.checks())
            self.initial["rubric_text"] = rubric_text(self.instance.rubric)

    def _add_preset(self, name: str, label: str, value: forms.Field, default: Any) -> None:
        instance = self.instance
        mode = FREE
        if name in instance.presets:
            mode = LOCKED if name in instance.locked else PRESET
            default = instance.presets[name]
        value.label = label
        value.initial = default
        self.fields[f"mode__{name}"] = forms.ChoiceField(
            choices=MODES,
            required=False,
            initial=mode,
            label=_("%(label)s: who sets it") % {"label": label},
        )
        # Its label is not drawn (the row's first cell names the parameter): say it to a
        # screen reader, which would otherwise read seven unnamed drop-downs.
        self.fields[f"mode__{name}"].widget.attrs["aria-label"] = str(
            self.fields[f"mode__{name}"].label
        )
        self.fields[f"value__{name}"] = value

    def presets(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        """(mode, value) field pairs in parameter order, for the template."""
        return [(self[f"mode__{n}"], self[f"value__{n}"]) for n in self.preset_names]

    def clean_due_at(self) -> datetime:
        due = self.cleaned_data["due_at"]
        if self.instance.pk is None and due <= self.now:
            raise ValidationError(_("The due date (%(due)s) is already past.") % {"due": when(due)})
        return due

    def clean_handin(self) -> str:
        return self.cleaned_data.get("handin") or HANDIN_RUN

    def clean_rubric_text(self) -> list:
        try:
            return parse_rubric(self.cleaned_data["rubric_text"])
        except CriteriaError as exc:
            raise ValidationError(exc.messages) from None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        pair = cleaned.get("handin") == HANDIN_PAIR
        if pair and cleaned.get("require_prediction"):
            # A pair is run by "Run before/after", which asks for no prediction.
            self.add_error(
                "require_prediction",
                _("A before/after pair cannot ask for a prediction: hand in one run instead."),
            )
        try:
            criteria = parse_criteria(cleaned.get("criteria_text", ""), self.lab.figures, pair=pair)
        except CriteriaError as exc:
            self.add_error("criteria_text", exc.messages)
        else:
            self.cleaned_data["criteria_text"] = [c.to_json() for c in criteria]
        presets, locked = {}, []
        for name in self.preset_names:
            mode = cleaned.get(f"mode__{name}") or FREE
            value = cleaned.get(f"value__{name}")
            if mode == FREE or f"value__{name}" in self.errors:
                continue
            if value is None or value == "" or value == []:
                self.add_error(f"value__{name}", _("Give a value, or let the student choose."))
                continue
            presets[name] = value
            if mode == LOCKED:
                locked.append(name)
        self.chosen = (presets, locked)
        if self.lab.check and not self.errors:
            params = self.lab.defaults() | {k: v for k, v in presets.items() if k != "seed"}
            for name, message in self.lab.check(params).items():
                if name in presets:
                    self.add_error(f"value__{name}", message)
                else:
                    self.add_error(
                        None,
                        _("With the lab's default for %(name)s: %(message)s")
                        % {"name": name, "message": message},
                    )
        return cleaned

    def save(self, commit: bool = True) -> Assignment:
        assignment = super().save(commit=False)
        assignment.classroom = self.classroom
        assignment.lab = self.lab.slug
        assignment.presets, assignment.locked = self.chosen
        assignment.criteria = self.cleaned_data["criteria_text"]
        assignment.rubric = self.cleaned_data["rubric_text"]
        assignment.challenges = list(self.cleaned_data.get("challenges") or [])
        if commit:
            assignment.save()
        return assignment


class SubmitForm(forms.Form):
    """A student hands in one of their runs: their own, of this lab, before the due date."""

    run = forms.ModelChoiceField(
        queryset=Run.objects.none(),
        error_messages={
            "required": gettext_lazy("Choose a run to submit."),
            "invalid_choice": gettext_lazy("That is not one of your runs of this lab."),
        },
    )

    def __init__(
        self,
        *args: Any,
        assignment: Assignment,
        student,
        due_at: datetime,
        now: datetime | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.assignment, self.student, self.due_at = assignment, student, due_at
        self.now = now or timezone.now()
        self.fields["run"].queryset = Run.objects.filter(owner=student, lab=assignment.lab).defer(
            "own_result", "progress"
        )

    def clean_run(self) -> Run:
        return self.submittable(self.cleaned_data["run"])

    def submittable(self, run: Run) -> Run:
        """`run`, if it may be handed in for this assignment; else a message for its field."""
        problem = self.assignment.mismatch(run)
        if problem:
            raise ValidationError(
                _("This run cannot be submitted. %(problem)s") % {"problem": problem}
            )
        return run

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.now > self.due_at:
            raise ValidationError(
                _(
                    "The due date (%(due)s) has passed, so submissions are closed. "
                    "Ask your teacher for an extension."
                )
                % {"due": when(self.due_at)}
            )
        return cleaned


class RunsShownForm(forms.Form):
    """Which of a student's runs of the lab their assignment page lists, and its pair
    pickers offer: `RUNS_SHOWN` at a time, newest first, or only those of one seed (the
    two halves of a pair share theirs), page by page back to the oldest."""

    seed = forms.IntegerField(
        label=gettext_lazy("Only the runs with seed"), required=False, min_value=0,
        max_value=SEED_MAX,
    )  # fmt: skip
    page = forms.IntegerField(
        required=False, min_value=1, max_value=10_000, widget=forms.HiddenInput
    )


class ExtensionForm(forms.Form):
    """A later due date for one student; an empty date removes their extension."""

    student = forms.ModelChoiceField(
        queryset=get_user_model().objects.none(),
        label=gettext_lazy("Student"),
        error_messages={"invalid_choice": gettext_lazy("That student is not in this class.")},
    )
    due_at = forms.DateTimeField(
        label=gettext_lazy("New due date"),
        required=False,
        widget=DueDateInput(),
        help_text=gettext_lazy("Leave empty to remove the student's extension."),
    )

    def __init__(self, *args: Any, assignment: Assignment, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.assignment = assignment
        self.fields["student"].queryset = (
            get_user_model()
            .objects.filter(memberships__classroom_id=assignment.classroom_id)
            .order_by("username")
        )
        self.fields["due_at"].help_text = _(
            "Leave empty to remove the student's extension. Time zone: %(zone)s."
        ) % {"zone": timezone.get_current_timezone_name()}

    def clean_due_at(self) -> datetime | None:
        due = self.cleaned_data["due_at"]
        if due is not None and due <= self.assignment.due_at:
            class_due = when(self.assignment.due_at)
            raise ValidationError(
                _("An extension must end after the class's due date (%(due)s).")
                % {"due": class_due}
            )
        return due
