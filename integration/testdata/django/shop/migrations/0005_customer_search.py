from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.operations import TrigramExtension, UnaccentExtension
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("shop", "0004_product_specs")]
    operations = [
        TrigramExtension(),
        UnaccentExtension(),
        migrations.AddIndex(
            model_name="customer",
            index=GinIndex(fields=["name"], name="customer_name_trgm", opclasses=["gin_trgm_ops"]),
        ),
    ]
