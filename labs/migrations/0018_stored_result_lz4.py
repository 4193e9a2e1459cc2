"""A stored result's JSON is compressed with lz4, not pglz, where PostgreSQL can (issue 40).

Every computed run writes its result (a capstone run's is ~45 KB of JSON, kept out of line
and compressed by PostgreSQL's TOAST). With lz4 instead of the default pglz the database's
CPU for that INSERT halves (3.3 → 1.6 ms for a capstone result, measured in the database's
own process; what is left is mostly parsing the JSON), for a value a quarter larger (16 KB,
not 13 KB). Only new values are compressed so; old ones are read as they are. Nothing else
changes: not the data, not a query. On SQLite, or a PostgreSQL built without lz4, this does
nothing.
"""

from __future__ import annotations

from django.db import migrations

TABLE, COLUMN = "labs_storedresult", "data"


def _lz4_available(cursor) -> bool:
    cursor.execute(
        "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'"
        " AND 'lz4' = ANY(enumvals)"
    )
    return cursor.fetchone() is not None


def compress_with(method: str):
    def apply(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            if method == "lz4" and not _lz4_available(cursor):
                return
            cursor.execute(f"ALTER TABLE {TABLE} ALTER COLUMN {COLUMN} SET COMPRESSION {method}")

    return apply


class Migration(migrations.Migration):
    dependencies = [("labs", "0017_run_lane_priority")]

    operations = [migrations.RunPython(compress_with("lz4"), compress_with("default"))]
