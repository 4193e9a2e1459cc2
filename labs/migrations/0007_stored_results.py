"""Results of identical simulation runs are kept once (StoredResult), and referenced.

Before, every run answered from the result store, or waiting on an identical run, held a
copy of the result. This moves each key's result into one StoredResult row and points the
runs at it; an experiment's result (no key) stays on its run, now `own_result`.
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


def move_to_the_store(apps, schema_editor):
    Run = apps.get_model("labs", "Run")
    StoredResult = apps.get_model("labs", "StoredResult")
    with_results = Run.objects.exclude(result_key="").filter(own_result__isnull=False)
    keys = with_results.order_by().values_list("result_key", flat=True).distinct()
    for key in list(keys):
        first = with_results.filter(result_key=key).order_by("finished_at").first()
        stored = StoredResult.objects.create(key=key, data=first.own_result)
        with_results.filter(result_key=key).update(stored_result=stored, own_result=None)


def copy_back(apps, schema_editor):
    Run = apps.get_model("labs", "Run")
    StoredResult = apps.get_model("labs", "StoredResult")
    for stored in StoredResult.objects.iterator():
        Run.objects.filter(stored_result=stored).update(own_result=stored.data, stored_result=None)


class Migration(migrations.Migration):
    dependencies = [
        ("labs", "0006_run_error_code"),
    ]

    operations = [
        migrations.CreateModel(
            name="StoredResult",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=64, unique=True)),
                ("data", models.JSONField()),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
        ),
        migrations.RenameField(model_name="run", old_name="result", new_name="own_result"),
        migrations.AddField(
            model_name="run",
            name="stored_result",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="runs",
                to="labs.storedresult",
            ),
        ),
        migrations.RunPython(move_to_the_store, copy_back),
    ]
