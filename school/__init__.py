"""The Django project: settings, URLs and the Celery app. Features live in `labs`."""

from school.celery import app as celery_app

__all__ = ["celery_app"]
