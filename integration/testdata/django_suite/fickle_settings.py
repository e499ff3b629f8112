# Settings for Django's own test suite (tests/runtests.py --settings
# fickle_settings) against the server that DJSUITE_HOST and DJSUITE_PORT
# name. Both aliases connect to the database postgres; DJSUITE_WORKER keeps
# the test databases of concurrent runs apart.
import os

_worker = os.environ.get("DJSUITE_WORKER", "0")


def _database(alias):
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "postgres",
        "USER": "postgres",
        "HOST": os.environ["DJSUITE_HOST"],
        "PORT": os.environ["DJSUITE_PORT"],
        "TEST": {"NAME": "test_djsuite_%s_%s" % (alias, _worker)},
    }


DATABASES = {"default": _database("default"), "other": _database("other")}
# As Django's own tests/test_sqlite.py.
SECRET_KEY = "django_tests_secret_key"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

if os.environ.get("DJSUITE_NO_ICU") == "1":
    # Django's PostgreSQL backend gives the ICU collation sv-x-icu to the
    # collation tests, and some test models (inspectdb's) use it, so that
    # the test database cannot be created where CREATE TABLE refuses it, as
    # fickle does (0A000: only C, POSIX and default). Without test
    # collations those tests skip ("Language collations are not
    # supported.") and every other test can run.
    from django.db.backends.postgresql.features import DatabaseFeatures

    DatabaseFeatures.test_collations = {}
