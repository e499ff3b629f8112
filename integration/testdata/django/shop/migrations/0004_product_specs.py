from django.contrib.postgres.fields import HStoreField
from django.contrib.postgres.operations import HStoreExtension
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("shop", "0003_voucher")]
    operations = [
        HStoreExtension(),
        migrations.AddField(model_name="product", name="specs", field=HStoreField(default=dict)),
    ]
