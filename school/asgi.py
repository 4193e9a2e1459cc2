"""ASGI entry point: the site under an ASGI server (uvicorn), for the class experiment's
Server-Sent Events stream (`classlab.views.stream`) and whatever else runs there."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")

application = get_asgi_application()
