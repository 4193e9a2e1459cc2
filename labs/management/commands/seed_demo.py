"""Create the demo accounts (idempotent): one teacher and a few students."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from labs.roles import TEACHERS_GROUP

DEMO_PASSWORD = "queues-demo"  # noqa: S105 - printed in the README on purpose: demo only
TEACHER = ("teacher", "Tara", "Teacher")
STUDENTS = [("asha", "Asha", "Patil"), ("ravi", "Ravi", "Kulkarni"), ("meera", "Meera", "Joshi")]


class Command(BaseCommand):
    help = "Create the demo teacher and students (password: queues-demo). Safe to run again."

    def handle(self, *args, **options) -> None:
        users = get_user_model()
        teachers, _ = Group.objects.get_or_create(name=TEACHERS_GROUP)
        for username, first, last in [TEACHER, *STUDENTS]:
            user, created = users.objects.get_or_create(
                username=username, defaults={"first_name": first, "last_name": last}
            )
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            if username == TEACHER[0]:
                user.groups.add(teachers)
        names = ", ".join(s[0] for s in STUDENTS)
        self.stdout.write(
            f"Demo accounts ready: teacher '{TEACHER[0]}', students {names}; "
            f"password '{DEMO_PASSWORD}'."
        )
