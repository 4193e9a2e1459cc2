from django.apps import AppConfig


class ClasslabConfig(AppConfig):
    """The class experiment: one real service, the class's phones its clients or its workers."""

    name = "classlab"
    default_auto_field = "django.db.models.BigAutoField"
