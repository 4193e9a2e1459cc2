from django.apps import AppConfig
from django.db.models.signals import post_save


class TeachingConfig(AppConfig):
    name = "teaching"
    verbose_name = "Classes and assignments"

    def ready(self) -> None:
        from labs.runs import references
        from teaching.class_results.digest import on_submission_saved
        from teaching.models import RUN_REFERENCES, Submission

        # labs knows hand-ins only through this door (who may open a run, which are frozen).
        references.register(*RUN_REFERENCES)

        from teaching.gradebook import staleness

        # A class's rendered gradebook is kept until one of its cells changes.
        staleness.connect()
        # Every hand-in, wherever it is saved (the form, the demo, the admin), keeps its
        # figures for the class results page.

        post_save.connect(on_submission_saved, sender=Submission, dispatch_uid="submission-digest")

        from teaching.class_results.figures import EXTRA_PANELS, SIGNATURE_PARTS
        from teaching.class_results.predictions import predictions_panel, predictions_signature

        # The class results page shows the class's predictions against its runs (and its
        # cached copy is rebuilt when they change).
        if predictions_panel not in EXTRA_PANELS:
            EXTRA_PANELS.append(predictions_panel)
        if predictions_signature not in SIGNATURE_PARTS:
            SIGNATURE_PARTS.append(predictions_signature)
