from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("labs", "0011_run_draft"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="address",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
