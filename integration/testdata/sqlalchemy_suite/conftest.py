"""Loads SQLAlchemy's pytest plugin, as SQLAlchemy's README.dialects.rst says a dialect's suite does.

The requirements class (requirements.py, named in setup.cfg) sits beside this file.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
pytest.register_assert_rewrite("sqlalchemy.testing.assertions")

from sqlalchemy.testing.plugin.pytestplugin import *  # noqa: E402,F401,F403
