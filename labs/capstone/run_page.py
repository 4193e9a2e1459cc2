"""What the capstone adds to the shared run page: the operator view and report links
under a trapped-service run, and the operator panel beside a live one."""

from __future__ import annotations

from labs.capstone import control_panel
from labs.capstone.links import run_links
from labs.capstone.report import LABS
from labs.web import run_extras


def install() -> None:
    """Hook the capstone into the run page (called once per process, at start-up)."""
    for slug in LABS:
        run_extras.add(slug, links=run_links)
    run_extras.add(control_panel.LAB, panel=control_panel.panel_for)
