from django.db import migrations


def add_tags(apps, schema_editor):
    Tag = apps.get_model("shop", "Tag")
    for name in ("new", "sale"):
        Tag.objects.create(name=name)


def remove_tags(apps, schema_editor):
    apps.get_model("shop", "Tag").objects.filter(name__in=("new", "sale")).delete()


class Migration(migrations.Migration):
    dependencies = [("shop", "0001_initial")]
    operations = [migrations.RunPython(add_tags, remove_tags)]
