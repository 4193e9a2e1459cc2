from django.apps import AppConfig


class LabsConfig(AppConfig):
    name = "labs"
    verbose_name = "Labs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Each hook fills a registry that a lower layer reads and cannot fill itself by an
        import: the layers (`tests/test_layers.py`) let a module import only those below."""
        from django.utils import translation

        from labs import text

        # `labs.text.gettext` / `ngettext` → Django's catalogues. Runners and charts stay
        # Django-free (`labs.text` imports nothing), so Django's functions are handed in here,
        # before the first page is translated.
        text.use_translations(translation.gettext, translation.ngettext)

        from labs.capstone import run_page

        # `labs.web.run_extras` ← the capstone's links under a trapped-service run and the
        # operator panel beside a live one (`labs.capstone.run_page`): the run page
        # (`labs.web`) ranks below the capstone and may not import it.
        run_page.install()

        from labs.capstone.analysis import KEEPS_RUNS, Analysis
        from labs.runs import references

        # `labs.runs.references.holders` ← a draft analysis's runs
        # (`labs.capstone.analysis.KEEPS_RUNS`), which pruning must keep: `labs.runs` ranks
        # below the capstone.
        for field in KEEPS_RUNS:
            references.register_keeper(Analysis, field)
