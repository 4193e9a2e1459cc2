"""A stored result's JSON is compressed with lz4 where PostgreSQL can (migration 0018)."""

from __future__ import annotations

import pytest
from django.db import connection


@pytest.mark.django_db
def test_new_stored_results_are_compressed_with_lz4_on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("TOAST compression is PostgreSQL's (SQLite stores the text as it is)")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'"
            " AND 'lz4' = ANY(enumvals)"
        )
        if cursor.fetchone() is None:
            pytest.skip("this PostgreSQL was built without lz4: the migration leaves pglz")
        cursor.execute(
            "SELECT attcompression FROM pg_attribute"
            " WHERE attrelid = 'labs_storedresult'::regclass AND attname = 'data'"
        )
        assert cursor.fetchone()[0] == "l"
