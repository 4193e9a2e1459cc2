from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """People's own settings: the language they read in, and first-login password changes."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import language, middleware  # noqa: F401 - connect the login signals
