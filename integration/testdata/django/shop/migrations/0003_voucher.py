from django.db import migrations, models
import django.db.models.functions.text


class Migration(migrations.Migration):
    dependencies = [("shop", "0002_default_tags")]
    operations = [
        migrations.CreateModel(
            name="Voucher",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("code", models.CharField(max_length=30)),
                ("retired", models.DateTimeField(blank=True, null=True)),
            ],
        ),
        migrations.AddConstraint(
            model_name="voucher",
            constraint=models.UniqueConstraint(condition=models.Q(retired=None), fields=("code",), name="voucher_code_live"),
        ),
        migrations.AddIndex(
            model_name="voucher",
            index=models.Index(django.db.models.functions.text.Upper("code"), name="voucher_code_upper"),
        ),
        migrations.AddIndex(
            model_name="voucher",
            index=models.Index(condition=models.Q(retired__isnull=False), fields=["retired"], name="voucher_retired"),
        ),
    ]
