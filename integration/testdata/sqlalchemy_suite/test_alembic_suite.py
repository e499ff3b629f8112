from alembic.testing.suite import *  # noqa: F401,F403
