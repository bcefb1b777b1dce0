import os
import subprocess
import threading
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.core.management import call_command
from hypothesis import settings as hypothesis_settings
from playwright.sync_api import expect

from tests.examples import FULL
from tests.factories import make_answers

# Playwright's sync API runs an event loop in the test thread.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# The property tests draw the same examples on every run, so that a suite that passed here
# passes in CI. `ci` (the default, `make test`) draws the counts as written, `dev` (`make
# test-fast`) a fifth of them (tests/examples.py); HYPOTHESIS_PROFILE=explore draws new ones
# (and keeps what it finds) when looking for trouble on purpose.
hypothesis_settings.register_profile("ci", max_examples=FULL, derandomize=True)
hypothesis_settings.register_profile("dev", max_examples=FULL // 5, derandomize=True)
hypothesis_settings.register_profile("explore", max_examples=FULL, derandomize=False)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
hypothesis_settings.load_profile(PROFILE if PROFILE in ("dev", "explore") else "ci")

# What a test is, from the fixtures it takes: a live server or Chromium makes it a browser
# test, a Celery worker a slow one (`make test-fast` leaves both out); the database fixtures
# or mark make it a database test (the PostgreSQL pass of .ci/run runs those, and no browser).
BROWSER_FIXTURES = {"live_server", "browser"}
SLOW_FIXTURES = {"worker"}
DATABASE_FIXTURES = {"db", "transactional_db"}


def pytest_collection_modifyitems(items):
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        if fixtures & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)
        if fixtures & DATABASE_FIXTURES or item.get_closest_marker("django_db"):
            item.add_marker(pytest.mark.database)


def is_probe(args) -> bool:
    """The app's own quick look-ups, once per process: the fonts and Chromium's version for
    the PDF cache's key (decider/pdf.py), the commit Sentry names a release by."""
    command = [args] if isinstance(args, str) else list(args)
    return os.path.basename(str(command[0])) in ("fc-list", "git") or command[1:] == ["--version"]


@pytest.fixture(autouse=True)
def _processes_only_in_marked_tests(request, monkeypatch):
    """A test that starts a process (a server, Chromium, manage.py) is marked `slow` or
    `browser`, so that the quick loop stays quick; an unmarked one fails and says so."""
    if request.node.get_closest_marker("slow") or request.node.get_closest_marker("browser"):
        return
    start = subprocess.Popen.__init__

    def refuse(self, args, *rest, **options):
        if is_probe(args):
            return start(self, args, *rest, **options)
        pytest.fail(
            f"{request.node.nodeid} starts a process ({args!r}): mark it slow or browser",
            pytrace=False,
        )

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database with the shipped rule set and figures, loaded once per session."""
    with django_db_blocker.unblock():
        call_command("load_defaults", verbosity=0)


@pytest.fixture(autouse=True)
def _no_rate_limits(settings):
    """Rate limits have their own tests (tests/test_limits.py); elsewhere a suite that creates
    hundreds of assessments from one address would run into them."""
    settings.RATELIMIT_ENABLE = False


@pytest.fixture
def still_limit_clock(monkeypatch):
    """Rate-limit counters are kept per fixed window ("2/m": this minute). With the clock
    standing still, a test that straddles a window's end does not find its counts reset."""
    import django_ratelimit.core

    monkeypatch.setattr(django_ratelimit.core, "time", SimpleNamespace(time=lambda: 1.8e9))


@pytest.fixture(autouse=True)
def _nothing_kept_between_tests():
    """Each test starts without kept results, rule books or price sets (decider/caching.py):
    a test's rolled-back rows must not be served to the next one."""
    from django.core.cache import caches

    caches["scored"].clear()
    yield
    caches["scored"].clear()


@pytest.fixture(autouse=True)
def _english_between_tests():
    """LocaleMiddleware leaves the last request's language active in the test's thread: a
    Chinese request would make the next test's plain calls (rf, render_to_string) Chinese."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture
def engine_calls(monkeypatch):
    """`engine_calls(*names)`: the list each call of those engine.evaluation functions
    appends its name to (as the evaluation and the services call them), from now on."""

    def counting(*names: str) -> list[str]:
        from decider import services
        from decider.engine import evaluation

        counted: list[str] = []
        for name in names:
            real = getattr(evaluation, name)

            def counted_call(*args, _real=real, _name=name, **kwargs):
                counted.append(_name)
                return _real(*args, **kwargs)

            monkeypatch.setattr(evaluation, name, counted_call)
            monkeypatch.setattr(services, name, counted_call)
        return counted

    return counting


@pytest.fixture
def rules(db):
    """The shipped rule set and cost figures, as `make run` loads them.

    Loaded once per session; loaded again after a test that emptied the
    database (transactional tests flush it when they end).
    """
    call_command("load_defaults", verbosity=0)


@pytest.fixture
def no_rules(db):
    """A database without any rule set or figures (undone when the test ends)."""
    from decider.models import Assumption, RuleSet

    RuleSet.objects.all().delete()
    Assumption.objects.all().delete()


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
def _chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=settings.CHROMIUM_PATH, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


def _live_server_request_threads() -> list[threading.Thread]:
    # Django's ThreadedWSGIServer serves each connection in a daemon thread of its own
    # (django/core/servers/basehttp.py), which it does not keep track of.
    return [
        thread
        for thread in threading.enumerate()
        if thread.name.endswith("(process_request_thread)")
    ]


@pytest.fixture
def browser(_chromium):
    """The session's Chromium; every context a test opened (new_page, browser.new_context)
    is closed when the test ends, and the live server's threads that served them are waited
    for. A context left open keeps its keep-alive connections, and the live server a thread
    for each: those threads would end only when Chromium quits, after the live server has
    stopped sharing the test database's connection with them, and each would fail closing
    it ("DatabaseWrapper objects created in a thread can only be used in that same thread")."""
    yield _chromium
    for context in _chromium.contexts:
        context.close()
    for thread in _live_server_request_threads():
        thread.join(timeout=10)
        assert not thread.is_alive(), f"a live-server request still runs: {thread.name}"


def new_page(browser, *, locale="en-US", javascript=True):
    """A page in a fresh context (its own cookies: another person), collecting page errors."""
    context = browser.new_context(
        locale=locale, java_script_enabled=javascript, viewport={"width": 1200, "height": 900}
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return page


@pytest.fixture
def worker(transactional_db):
    """A Celery worker in a thread of this process, on an in-memory broker: jobs are queued
    and taken as in production, instead of running inline in the request (the default
    without a broker). The worker's thread has its own database connection, hence
    transactional_db. A worker that dies starting fails the test with its error."""
    from celery.contrib.testing.worker import TestWorkController, setup_app_for_worker
    from celery.worker import state

    from config.celery import app

    assert app.conf.broker_url == "memory://"  # never a broker this machine runs
    crashed: list[BaseException] = []
    # A queued job is taken within 50 ms, not the transport's default second.
    options = app.conf.broker_transport_options
    app.conf.broker_transport_options = {**options, "polling_interval": 0.05}
    setup_app_for_worker(app, "WARNING", None)
    controller = TestWorkController(
        app=app,
        concurrency=1,
        pool="solo",
        loglevel="WARNING",
        ready_callback=None,
        without_heartbeat=True,
        without_mingle=True,
        without_gossip=True,
    )

    def run():
        try:
            controller.start()
        except BaseException as error:
            crashed.append(error)
            raise

    thread = threading.Thread(target=run, name="celery-worker", daemon=True)
    app.conf.task_always_eager = False
    try:
        thread.start()
        started = controller._on_started.wait(30)
        assert started and not crashed, f"the Celery worker did not start: {crashed!r}"
        # Celery's loop drains the queue for 2 s at a time and twice more once told to stop:
        # a tenth of a second each lets the worker stop within moments of the test's end.
        connection = controller.consumer.connection
        drain = connection.drain_events
        connection.drain_events = lambda timeout=None, **kw: drain(timeout=0.1, **kw)
        yield app
    finally:
        app.conf.task_always_eager = True
        state.should_terminate = 0
        thread.join(30)
        state.should_terminate = None
        app.conf.broker_transport_options = options


def open_folds(page, *folds: str, javascript: bool = True) -> None:
    """Open folds of the result page as a reader does, by clicking their titles (works with
    JavaScript off too); with it on, wait until the charts in them are drawn (or failed)."""
    for fold in folds:
        page.locator(f"#{fold} > summary").click()
        expect(page.locator(f"#{fold} > .fold-body")).to_be_visible()
    if javascript:
        selector = ", ".join(f"#{fold} figure.chart:not([data-state])" for fold in folds)
        expect(page.locator(selector)).to_have_count(0)
