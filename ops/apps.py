from django.apps import AppConfig


class OpsConfig(AppConfig):
    """Running the site: health checks and the supervisor behind `./dev serve`."""

    name = "ops"

    def ready(self) -> None:
        from django.core import checks

        from ops.checks import static_files_collected

        # Django's system checks (`manage.py check`, `runserver`, `migrate`) run what is
        # registered with them; nothing of ours calls the check, so it is registered here.
        checks.register(static_files_collected)
