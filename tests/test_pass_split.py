"""The PostgreSQL pass skips exactly the tests that cannot reach a database."""

from __future__ import annotations

import pytest
from django.test import SimpleTestCase, TestCase

from tests.conftest import uses_the_database


class Item:
    """The parts of a collected test that the split reads."""

    def __init__(self, fixtures=(), marker=None, cls=None):
        self.fixturenames = list(fixtures)
        self.cls = cls
        self._marker = marker

    def get_closest_marker(self, name):
        return self._marker if name == "django_db" else None


@pytest.mark.parametrize(
    "item",
    [
        Item(["db"]),
        Item(["people", "db"]),  # a fixture that needs the database brings `db` along
        Item(["transactional_db"]),
        Item(["live_server"]),
        Item(marker=pytest.mark.django_db),
        Item(cls=TestCase),
    ],
)
def test_a_test_that_can_reach_the_database_runs_on_both(item):
    assert uses_the_database(item)


@pytest.mark.parametrize("item", [Item(), Item(["settings", "tmp_path"]), Item(cls=SimpleTestCase)])
def test_a_test_without_a_database_runs_once(item):
    assert not uses_the_database(item)


def test_the_split_marks_this_file_as_it_should(request):
    # This test asks for no database: collected, it carries `nodb`.
    assert request.node.get_closest_marker("nodb") is not None


def test_a_database_test_here_is_kept_for_postgresql(request, db):
    assert request.node.get_closest_marker("nodb") is None
