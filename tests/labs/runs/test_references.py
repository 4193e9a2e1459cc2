"""labs asks about hand-ins through one door (`labs.runs.references`), which teaching fills."""

from __future__ import annotations

from django.apps import apps
from django.db import models

from labs.runs import references
from labs.runs.models import Run


def keys_onto_runs_from_outside_labs() -> set[tuple[type[models.Model], str]]:
    return {
        (model, field.name)
        for model in apps.get_models()
        if model._meta.app_label != "labs"
        for field in model._meta.get_fields()
        if isinstance(field, models.ForeignKey) and field.related_model is Run
    }


def test_every_key_onto_a_run_from_another_app_is_declared_at_the_door():
    declared = {(r.model, r.field) for r in references.references()}
    found = keys_onto_runs_from_outside_labs()
    assert len(found) == 4  # a submission's run and before run, and its versions'
    assert declared == found


def test_the_door_answers_no_run_when_no_app_declared_a_key(monkeypatch):
    monkeypatch.setattr(references, "_references", [])
    assert str(references.handed_in()) == str(models.Q(pk__in=[]))
    assert str(references.in_pairs()) == str(models.Q(pk__in=[]))
