from django.apps import AppConfig


class OpsConfig(AppConfig):
    """Running the site: health checks and the supervisor behind `./dev serve`."""

    name = "ops"

    def ready(self) -> None:
        from ops import checks  # noqa: F401 - registers the system check
