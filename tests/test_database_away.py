"""A database that goes away for a moment: a page is tried once more, else 503, never 500."""

import pytest
from django.db import OperationalError
from django.urls import reverse

from decider.models import Assessment
from tests.factories import make_assessment

pytestmark = pytest.mark.django_db


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


def test_a_longer_outage_is_a_503_that_says_nothing_is_lost(client, rules, monkeypatch):
    _assessment, edit, _view = make_assessment()
    fail(monkeypatch, times=2)
    response = client.get(reverse("decider-result", args=[edit]), HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert "您保存的内容不会丢失" in response.content.decode()


def test_a_write_that_meets_the_outage_is_not_retried_and_says_so(client, rules, monkeypatch):
    _assessment, edit, _view = make_assessment(name="Plan A")
    fail(monkeypatch, times=1)
    response = client.post(reverse("decider-rename", args=[edit]), {"name": "Plan B"})
    assert response.status_code == 503
    assert Assessment.objects.get().name == "Plan A"  # nothing half-written


def test_a_script_reading_json_gets_json(client, rules, monkeypatch):
    _assessment, _edit, view = make_assessment()
    fail(monkeypatch, times=2)
    response = client.get(reverse("decider-view-json", args=[view]))
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert "Nothing you saved is lost" in response.json()["error"]
