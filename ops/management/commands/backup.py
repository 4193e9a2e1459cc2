"""`manage.py backup [FILE]`: a backup of the database, safe to take while the site runs.

PostgreSQL through `pg_dump --format=custom`, SQLite through its online backup API
(`ops.backup`). Without FILE it writes `BACKUP_DIR/site-<engine>-<UTC time>.<ext>`.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ops.backup import BackupError, back_up


class Command(BaseCommand):
    help = "Back up the database (pg_dump custom format, or SQLite's online backup)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", nargs="?", default=None, help="where to write the backup")

    def handle(self, *args, file: str | None, **options) -> None:
        try:
            path = back_up(file)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"backup written: {path} ({path.stat().st_size:,} bytes)")
