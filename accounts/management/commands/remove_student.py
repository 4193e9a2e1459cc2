"""`manage.py remove_student USERNAME`: remove one student's personal data on request.

Their runs' figures stay in the class's statistics, shown as "removed student"
(`accounts.removal`). Asks first unless given `--yes`.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.removal import remove_student


class Command(BaseCommand):
    help = "Remove a student's account and personal data; their runs' figures stay, anonymous."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--yes", action="store_true", help="do not ask first")

    def handle(self, *args, username: str, yes: bool, **options) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no account called {username}")
        if not yes:
            answer = input(f"Remove {username}'s personal data for good? Type 'yes': ")
            if answer.strip().lower() != "yes":
                raise CommandError("nothing removed")
        try:
            removed = remove_student(user)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"{username} removed: now {removed.username}, {removed.runs_kept} runs kept "
            f"anonymous, {removed.analyses_deleted} analyses deleted"
        )
