import copy
import os

import pytest
from django.core.management import call_command

from decider.models import Assessment
from decider.personas import PRESETS

# Playwright's sync API runs an event loop in the test thread.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def rules(db):
    """The shipped rule set and cost figures, loaded as `make run` loads them."""
    call_command("load_defaults", verbosity=0)


def make_answers(persona: str = "growth", **changes) -> dict:
    answers = copy.deepcopy(PRESETS[persona]["answers"])
    answers.update(changes)
    return answers


def make_assessment(**kwargs) -> tuple[Assessment, str, str]:
    kwargs.setdefault("answers", make_answers())
    return Assessment.create_with_links(**kwargs)


@pytest.fixture
def answers():
    return make_answers()
