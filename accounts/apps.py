from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """People's own settings: the language they read in, and first-login password changes."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from accounts import devices, language, middleware

        # Two receivers of Django's `user_logged_in` (sent from inside `django.contrib.auth.
        # login`, which our code cannot add a call to): the profile's language into the
        # session, and whether the person must change their password first. Connected before
        # the first login can happen.
        user_logged_in.connect(
            language.remember_at_login, dispatch_uid="accounts.language.remember_at_login"
        )
        user_logged_in.connect(
            middleware.check_at_login, dispatch_uid="accounts.middleware.check_at_login"
        )
        user_logged_in.connect(devices.remember, dispatch_uid="accounts.devices.remember")
