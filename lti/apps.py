from django.apps import AppConfig


class LtiConfig(AppConfig):
    name = "lti"
    verbose_name = "LMS link (LTI 1.3)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from lti import signals  # noqa: F401 - a graded hand-in's score goes to the LMS
