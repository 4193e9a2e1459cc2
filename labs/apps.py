from django.apps import AppConfig


class LabsConfig(AppConfig):
    name = "labs"
    verbose_name = "Labs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.utils import translation

        from labs import text

        # Runners and charts stay Django-free; their words go through Django's catalogues.
        text.use_translations(translation.gettext, translation.ngettext)

        from labs.capstone import run_page

        # The capstone hooks its links and operator panel into the shared run page.
        run_page.install()

        from labs.capstone.analysis import Analysis
        from labs.runs import references

        # A draft analysis holds both its runs: pruning them would delete the student's text.
        references.register_keeper(Analysis, "before")
        references.register_keeper(Analysis, "after")
