"""The tests of the compiled loop's own C parts run only where it is built, and built from
the source they test (CI always builds it: there they never skip)."""

from __future__ import annotations

import os

import pytest

from labs.sim.capstone import fast


def skip_unless_built_current() -> None:
    """Skip the calling test module unless the compiled loop is built from today's source."""
    if not fast.COMPILED:
        pytest.skip("the compiled loop is not built here: ./dev builds it", allow_module_level=True)
    if not fast._TAKES_FIGURES and not os.environ.get("CI"):
        # A module copied from an older build: `./dev` rebuilds it once the .pyx is newer.
        pytest.skip(
            "the compiled loop was built before its ledger and waits were in C: rebuild it",
            allow_module_level=True,
        )
