"""The Celery app. Workers on any machine find their tasks through Django's settings."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")

app = Celery("school")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The labs app keeps its tasks with the run lifecycle, in `labs.runs.tasks`.
app.autodiscover_tasks(["labs.runs"])
