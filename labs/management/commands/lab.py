"""`manage.py lab list` and `manage.py lab run SLUG`: the catalogue from the command line.

`lab run` validates through the same form as the web page and runs in this process,
so it needs no worker and no Redis for the simulation labs.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from labs.catalogue.entries import LABS, get_lab
from labs.interface.progress import SilentProgress
from labs.runs.execution import ParamsRefused, choose_seed, run_lab
from labs.web.forms import LabForm


class Command(BaseCommand):
    help = "List the labs, or run one synchronously and print its result."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        listing = sub.add_parser("list", help="List labs and their parameters.")
        listing.add_argument("--json", action="store_true", help="Print JSON.")
        running = sub.add_parser("run", help="Run a lab in this process.")
        running.add_argument("slug")
        running.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="Change a parameter (repeatable). Lists are comma-separated: arrivals=50,800",
        )
        running.add_argument(
            "--seed",
            type=int,
            default=None,
            help="Seed for labs that draw random numbers (default: the seed the form offers).",
        )
        running.add_argument("--json", action="store_true", help="Print the whole result as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "list":
            self.list_labs(as_json=options["json"])
        else:
            self.run_one(options["slug"], options["set"], options["seed"], as_json=options["json"])

    def list_labs(self, *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps([lab.describe() for lab in LABS], indent=2))
            return
        for lab in LABS:
            self.stdout.write(f"{lab.slug}  [{lab.unit}, {lab.kind}]  {lab.title}")
            for p in lab.params:
                self.stdout.write(
                    f"    {p.name} ({p.kind}) = {p.default!r}  — {p.help} [{p.bounds_text()}]"
                )

    def run_one(self, slug: str, overrides: list[str], seed: int | None, *, as_json: bool) -> None:
        lab = get_lab(slug)
        if lab is None:
            known = ", ".join(lab.slug for lab in LABS)
            raise CommandError(f"No lab {slug!r}. Known labs: {known}")
        data = {p.name: _as_form_value(p.default) for p in lab.params}
        for item in overrides:
            name, sep, value = item.partition("=")
            if not sep:
                raise CommandError(f"--set takes NAME=VALUE, got {item!r}")
            if name not in data:
                raise CommandError(f"Lab {slug} has no parameter {name!r}: {', '.join(data)}")
            data[name] = value
        if lab.uses_seed:
            # Like the web form: the lab's default seed, so the lesson's figures come out.
            data["seed"] = str(seed if seed is not None else lab.default_seed)
        form = LabForm(lab, data)
        if not form.is_valid():
            problems = "; ".join(
                f"{field}: {' '.join(str(e) for e in errors)}"
                for field, errors in form.errors.items()
            )
            raise CommandError(f"Invalid parameters: {problems}")
        chosen_seed = choose_seed(lab, form.seed())
        try:
            result = run_lab(lab, form.params(), chosen_seed, SilentProgress())
        except ParamsRefused as exc:
            # The lab's own rules, past what the form checks: a sentence, not a traceback.
            raise CommandError(f"The lab refused these parameters: {exc}") from None
        if as_json:
            self.stdout.write(json.dumps(result))
            return
        for line in lab.headline(result):
            self.stdout.write(line)


def _as_form_value(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
