"""WSGI entry point for a production server (e.g. gunicorn school.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
application = get_wsgi_application()
