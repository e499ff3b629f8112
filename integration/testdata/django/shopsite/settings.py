"""Settings of a small Django 3.2 project, as they would be for PostgreSQL.

Only the port differs between a run on PostgreSQL and one on fickle: it
comes from PGPORT. The broken app (a migration that fails half-way) is
installed only when SHOP_WITH_BROKEN_APP is set.
"""
import os

SECRET_KEY = "not-secret"
DEBUG = False
USE_TZ = True
TIME_ZONE = "Europe/Paris"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.postgres",
    "shop",
]
if os.environ.get("SHOP_WITH_BROKEN_APP"):
    INSTALLED_APPS.append("broken")

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "shop",
        "USER": "postgres",
        "HOST": "127.0.0.1",
        "PORT": os.environ["PGPORT"],
    }
}
