"""A start-up warning for the mistake that turns every page into a 500: no collectstatic.

With DEBUG off the hashed-name storage must find each file in its manifest, which only
`collectstatic` writes; `./dev serve` runs it, a hand-started server may not. Registered
with Django's system checks by `OpsConfig.ready`.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.checks import CheckMessage, Warning
from django.utils.module_loading import import_string
from whitenoise.storage import CompressedManifestStaticFilesStorage


def static_files_collected(app_configs=None, **kwargs) -> list[CheckMessage]:
    backend = import_string(settings.STORAGES["staticfiles"]["BACKEND"])
    if not issubclass(backend, CompressedManifestStaticFilesStorage):
        return []
    manifest = Path(settings.STATIC_ROOT) / backend.manifest_name
    if manifest.exists():
        return []
    return [
        Warning(
            f"Static files are not collected ({manifest} is missing): every page would "
            "fail. Run `manage.py collectstatic --noinput` (`./dev serve` does).",
            id="ops.W001",
        )
    ]
