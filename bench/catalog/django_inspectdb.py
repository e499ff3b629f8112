"""django_inspectdb.py prints `manage.py inspectdb` of the database the PG*
environment variables name: Django's introspection of every table (its
columns, primary key, foreign keys, constraints and indexes, comments)."""
import os
import sys

import django
from django.conf import settings
from django.core.management import call_command

settings.configure(DATABASES={"default": {
    "ENGINE": "django.db.backends.postgresql", "NAME": os.environ["PGDATABASE"], "USER": os.environ["PGUSER"],
    "HOST": os.environ["PGHOST"], "PORT": os.environ["PGPORT"]}}, USE_TZ=True)
django.setup()
call_command("inspectdb", include_views=True, stdout=sys.stdout)
