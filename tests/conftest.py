import copy
import os

import pytest
from django.conf import settings
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


# Debian's Chromium, driven by Playwright; one for the whole session (a thread
# can run one sync Playwright at a time).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=settings.CHROMIUM_PATH, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


def new_page(browser, *, locale="en-US", javascript=True):
    """A page in a fresh context (its own cookies: another person), collecting page errors."""
    context = browser.new_context(
        locale=locale, java_script_enabled=javascript, viewport={"width": 1200, "height": 900}
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return page
