"""`manage.py restore FILE`: put a backup made by `manage.py backup` back in place.

Everything in the database is replaced by what the backup holds; it asks first unless
given `--yes`. Stop the workers and the sweeper first, so nothing writes meanwhile.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ops.backup import BackupError, restore


class Command(BaseCommand):
    help = "Replace the database's contents with a backup made by `manage.py backup`."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="a backup made by `manage.py backup`")
        parser.add_argument("--yes", action="store_true", help="do not ask before replacing")

    def handle(self, *args, file: str, yes: bool, **options) -> None:
        if not yes:
            answer = input(f"Replace everything in the database with {file}? Type 'yes': ")
            if answer.strip().lower() != "yes":
                raise CommandError("not restored")
        try:
            restore(file)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"restored from {file}")
