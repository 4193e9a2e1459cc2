from django.db import migrations


def add_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name="teachers")


class Migration(migrations.Migration):
    dependencies = [("labs", "0001_runs"), ("auth", "0012_alter_user_first_name_max_length")]
    operations = [migrations.RunPython(add_group, migrations.RunPython.noop)]
