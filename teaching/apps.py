from django.apps import AppConfig


class TeachingConfig(AppConfig):
    name = "teaching"
    verbose_name = "Classes and assignments"

    def ready(self) -> None:
        from labs.runs import references
        from teaching.models import RUN_REFERENCES

        # labs knows hand-ins only through this door (who may open a run, which are frozen).
        references.register(*RUN_REFERENCES)
