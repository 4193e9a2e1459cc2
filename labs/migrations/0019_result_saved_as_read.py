"""The result fields' encoder (`labs.runs.result_json.SavedAsRead`): Python only.

The database's columns do not change, so nothing is sent to it: on SQLite an AlterField
would copy the whole runs table to change nothing.
"""

from django.db import migrations, models

import labs.runs.result_json


class Migration(migrations.Migration):
    dependencies = [
        ("labs", "0018_stored_result_lz4"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="run",
                    name="own_result",
                    field=models.JSONField(
                        blank=True, encoder=labs.runs.result_json.SavedAsRead, null=True
                    ),
                ),
                migrations.AlterField(
                    model_name="storedresult",
                    name="data",
                    field=models.JSONField(encoder=labs.runs.result_json.SavedAsRead),
                ),
            ]
        )
    ]
