"""ASGI entry point: the site under an ASGI server (uvicorn), for the class experiment's
Server-Sent Events stream (`classlab.views.stream`) and whatever else runs there.

The streams' set-ups pass a gate (`school.stream_gate`): a class opening its streams at
once waits its turn for a database connection instead of running PostgreSQL out of them."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")

django_application = get_asgi_application()

from school.env import env_int  # noqa: E402 (after Django's settings are named)
from school.stream_gate import StreamSetupGate  # noqa: E402

application = StreamSetupGate(
    django_application, limit=env_int("STREAM_SETUPS_AT_ONCE", 8, low=1, high=200)
)
