"""A migration that fails half-way: PostgreSQL runs it in one transaction,
so none of its changes may remain after the failure."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("shop", "0002_default_tags")]
    operations = [
        migrations.CreateModel(
            name="Coupon",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("code", models.CharField(max_length=20)),
            ],
        ),
        migrations.RunSQL("ALTER TABLE shop_product ADD COLUMN discount integer DEFAULT 0"),
        migrations.RunSQL("ALTER TABLE shop_customer DROP COLUMN joined"),
        migrations.RunSQL("INSERT INTO shop_tag (name) VALUES ('broken')"),
        migrations.RunSQL("CREATE INDEX shop_tag_name_upper ON shop_tag (name)"),
        migrations.RunSQL("SELECT 1 / 0"),
    ]
