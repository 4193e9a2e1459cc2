from django.apps import AppConfig


class TeachingConfig(AppConfig):
    name = "teaching"
    verbose_name = "Classes and assignments"

    def ready(self) -> None:
        """Only what must be wired before the first request; everything else is called
        directly by the code that triggers it (a hand-in's digest: `Submission.save`; the
        class results' predictions panel: `teaching.class_results.views`)."""
        from labs.runs import fair_share, references, succeeded
        from teaching.challenge_credits import kept_drafts
        from teaching.gradebook import staleness
        from teaching.models import RUN_REFERENCES
        from teaching.run_lanes import class_lane

        # Teaching's four keys onto a run (`teaching.models.RUN_REFERENCES`), for every
        # question labs asks about hand-ins (`labs.runs.references`: who may open a run,
        # which are frozen, what pruning must keep). Not a plain import: labs ranks below
        # teaching and may not import it, so teaching declares them once at start-up.
        references.register(*RUN_REFERENCES)

        # A class's cached gradebook goes stale when any of its cells changes
        # (`teaching.gradebook.staleness`). Signals, connected before any save: the
        # senders include lessons' `Attempt` (a lower layer) and Django's user, whose
        # saves cannot call teaching, and a cascade delete calls no model's `delete()`.
        staleness.connect()

        # A run that meets a challenge is credited once, and a draft that met it kept
        # (`teaching.challenge_credits`), as the worker that ended it says it succeeded.
        succeeded.listen(kept_drafts)

        # A class's runs share the quick queue fairly with other classes' runs
        # (`labs.runs.fair_share`): which class a student's runs count with is teaching's.
        fair_share.group_by(class_lane)
