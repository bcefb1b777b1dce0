"""A database that goes away for a moment: a request that wrote nothing is tried again, else
503, never 500."""

import pytest
from django.db import OperationalError
from django.db.models import F
from django.urls import reverse

from decider.middleware import DatabaseAwayMiddleware
from decider.models import Assessment
from tests.factories import make_assessment

pytestmark = pytest.mark.django_db
TRIES = 1 + len(DatabaseAwayMiddleware.RETRY_WAITS)


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    monkeypatch.setattr(DatabaseAwayMiddleware, "RETRY_WAITS", (0,) * (TRIES - 1))


def fail(monkeypatch, times):
    """Make the next `times` link look-ups meet a lost connection."""
    real = Assessment.objects.by_token
    left = {"n": times}

    def by_token(*args, **kwargs):
        if left["n"] > 0:
            left["n"] -= 1
            raise OperationalError("server closed the connection unexpectedly")
        return real(*args, **kwargs)

    monkeypatch.setattr(Assessment.objects, "by_token", by_token)


def test_a_blip_on_a_page_is_tried_again_and_the_reader_sees_nothing(client, rules, monkeypatch):
    _assessment, edit, _view = make_assessment()
    fail(monkeypatch, times=1)
    response = client.get(reverse("decider-result", args=[edit]))
    assert response.status_code == 200
    assert 'id="recommendation"' in response.content.decode()


def test_an_outage_longer_than_the_retries_is_a_503_that_says_nothing_is_lost(
    client, rules, monkeypatch
):
    _assessment, edit, _view = make_assessment()
    fail(monkeypatch, times=TRIES)
    response = client.get(reverse("decider-result", args=[edit]), HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert "您保存的内容不会丢失" in response.content.decode()


def test_a_save_that_met_the_outage_before_writing_is_tried_again_and_lands(
    client, rules, monkeypatch
):
    _assessment, edit, _view = make_assessment(name="Plan A")
    fail(monkeypatch, times=TRIES - 1)
    response = client.post(reverse("decider-rename", args=[edit]), {"name": "Plan B"})
    assert response.status_code == 302
    assert Assessment.objects.get().name == "Plan B"


def test_a_request_that_already_wrote_is_never_run_twice(client, rules, monkeypatch):
    assessment, edit, _view = make_assessment(name="Plan A")
    before = assessment.revision
    real = Assessment.objects.by_token

    def write_then_fail(*args, **kwargs):
        Assessment.objects.filter(pk=assessment.pk).update(revision=F("revision") + 1)
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(Assessment.objects, "by_token", write_then_fail)
    response = client.post(reverse("decider-rename", args=[edit]), {"name": "Plan B"})
    assert response.status_code == 503 and response["Retry-After"] == "5"
    monkeypatch.setattr(Assessment.objects, "by_token", real)
    assessment.refresh_from_db()
    assert assessment.revision == before + 1  # once, not TRIES times
    assert assessment.name == "Plan A"


def test_a_script_reading_json_gets_json(client, rules, monkeypatch):
    _assessment, _edit, view = make_assessment()
    fail(monkeypatch, times=TRIES)
    response = client.get(reverse("decider-view-json", args=[view]))
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert "Nothing you saved is lost" in response.json()["error"]
