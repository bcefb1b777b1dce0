"""Redis is a cache, not a store: with the Redis the app uses stopped under it, every page and
every write still works (0 × 5xx), and a PDF asked for meanwhile is queued once it is back.

A Redis of its own is started for the test (redis-server on a free port, nothing saved to
disk), used as both caches and the job queue's broker as in production, then stopped.
"""

import json
import shutil
import socket
import subprocess
import time

import pytest
from django.core.cache import caches
from django.urls import reverse

from decider.models import Assessment
from tests.factories import STEP_POSTS, make_answers, make_assessment

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db,
    pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server"),
]
QUEUE = "decider"  # CELERY_TASK_DEFAULT_QUEUE
BROWSER_ACCEPT = "text/html,application/xhtml+xml,*/*;q=0.8"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class OwnRedis:
    def __init__(self, port: int) -> None:
        self.port, self.process = port, None
        self.url = f"redis://127.0.0.1:{port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        for _ in range(100):
            if self.cli("PING") == "PONG":
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)

    def cli(self, *command: str) -> str:
        done = subprocess.run(
            ["redis-cli", "-p", str(self.port), *command], capture_output=True, text=True
        )
        return done.stdout.strip()


@pytest.fixture
def redis(settings):
    """Both caches and the broker on a Redis of this test's own, rate limits on."""
    from config.celery import app

    own = OwnRedis(free_port())
    own.start()
    options = settings.REDIS_OPTIONS
    backend = {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": own.url, "OPTIONS": options}
    settings.CACHES = {"default": backend, "scored": {**backend, "KEY_PREFIX": "scored"}}
    settings.RATELIMIT_ENABLE = True
    saved = app.conf.task_always_eager, app.conf.broker_url
    app.conf.task_always_eager, app.conf.broker_url = False, own.url
    fresh_producers(app)
    try:
        yield own
    finally:
        app.conf.task_always_eager, app.conf.broker_url = saved
        fresh_producers(app)
        if own.process.poll() is None:
            own.stop()
        caches.close_all()


def fresh_producers(app):
    """Jobs published on the broker Celery is configured with now, not the one its pools
    were made for (the suite's in-memory one)."""
    app._pool = None
    app.amqp._producer_pool = None


def walk(client, edit, view):
    """Every page and write a person or a script makes; (what, status) of each."""
    seen = [("home", client.get(reverse("decider-home")).status_code)]
    created = client.post(reverse("decider-home"), {"preset": "growth"})
    seen.append(("home create", created.status_code))
    for slug, posted in STEP_POSTS.items():
        url = reverse("decider-step", args=[edit, slug])
        seen.append((f"step {slug}", client.get(url).status_code))
        seen.append((f"save {slug}", client.post(url, posted).status_code))
    for name, token in [
        ("decider-result", edit),
        ("decider-edit-report", edit),
        ("decider-view", view),
        ("decider-view-report", view),
        ("decider-edit-json", edit),
        ("decider-size", edit),
    ]:
        seen.append((name, client.get(reverse(name, args=[token])).status_code))
    for name in ("decider-mine", "decider-method"):
        seen.append((name, client.get(reverse(name)).status_code))
    what_if = client.get(reverse("decider-edit-what-if", args=[edit]), {"gpus": "64"})
    seen.append(("what-if", what_if.status_code))
    renamed = client.post(reverse("decider-rename", args=[edit]), {"name": "Kept through it"})
    seen.append(("rename", renamed.status_code))
    api = client.post(
        reverse("decider-api-assessments"),
        json.dumps({"answers": make_answers("startup")}),
        content_type="application/json",
    )
    seen.append(("api create", api.status_code))
    pdf = client.get(reverse("decider-edit-pdf", args=[edit]), headers={"Accept": "*/*"})
    seen.append(("new pdf", pdf.status_code))
    login = client.post("/admin/login/", {"username": "admin", "password": "wrong"})
    seen.append(("admin sign-in", login.status_code))
    seen.append(("healthz", client.get("/healthz").status_code))
    return seen


def test_with_redis_away_every_page_and_write_works_and_the_pdf_waits_for_it(client, rules, redis):
    _assessment, edit, view = make_assessment(answers=make_answers("growth"))
    before = Assessment.objects.count()
    redis.stop()

    seen = walk(client, edit, view)

    assert [(what, status) for what, status in seen if status >= 500] == []
    statuses = dict(seen)
    assert statuses["home create"] == 302 and statuses["api create"] == 201
    assert Assessment.objects.count() == before + 2  # both creates saved
    assert Assessment.objects.get(pk=_assessment.pk).name == "Kept through it"
    assert statuses["new pdf"] == 202  # "being prepared", not a failure
    assert client.get("/healthz").content == b"degraded: cache and job queue unavailable"

    # Back: the next poll of the PDF queues its job.
    redis.start()
    polled = client.get(reverse("decider-edit-pdf", args=[edit]), headers={"Accept": "*/*"})
    assert polled.status_code == 202
    assert redis.cli("LLEN", QUEUE) == "1"
    assert client.get("/healthz").content == b"ok"
