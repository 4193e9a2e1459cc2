from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("labs", "0013_shared_setup"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="address",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
