"""The test run's settings: development mode, as `make run` has it.

DEBUG is off unless DJANGO_DEBUG asks for it, and without DEBUG the settings
refuse to load without DJANGO_SECRET_KEY; the suite runs as a developer does.
Tests of the production settings start `manage.py` with their own environment
(tests/test_deploy.py).
"""

import os

os.environ.setdefault("DJANGO_DEBUG", "true")

from config.settings import *  # noqa: E402, F403
