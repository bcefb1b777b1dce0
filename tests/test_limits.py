"""Rate limits per client: anonymous creates and admin sign-ins get 429 with Retry-After."""

import json

import pytest
from django.core.cache import cache
from django.urls import reverse

from decider.limits import client_ip, retry_after
from decider.models import Assessment
from tests.factories import make_answers, make_assessment

pytestmark = pytest.mark.django_db


@pytest.fixture
def limited(settings, still_limit_clock):
    settings.RATELIMIT_ENABLE = True
    settings.DECIDER_RATES = {"create": "3/h", "login": "2/m"}
    cache.clear()
    yield
    cache.clear()


def create_by_api(client, address="10.0.0.1"):
    return client.post(
        reverse("decider-api-assessments"),
        json.dumps({"answers": make_answers()}),
        content_type="application/json",
        REMOTE_ADDR=address,
    )


def test_the_api_refuses_a_client_past_its_creates_and_others_go_on(client, rules, limited):
    assert [create_by_api(client).status_code for _ in range(3)] == [201, 201, 201]
    refused = create_by_api(client)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "3600"
    assert "Too many requests" in refused.json()["error"]
    assert Assessment.objects.count() == 3  # nothing saved for the refused one
    assert create_by_api(client, address="10.0.0.2").status_code == 201


def test_the_home_form_refuses_in_the_readers_language(client, rules, limited):
    for _ in range(3):
        client.post(reverse("decider-home"), {"preset": ""}, REMOTE_ADDR="10.0.0.3")
    page = client.post(
        reverse("decider-home"),
        {"preset": ""},
        REMOTE_ADDR="10.0.0.3",
        HTTP_ACCEPT_LANGUAGE="zh-CN",
    )
    assert page.status_code == 429 and page["Retry-After"] == "3600"
    assert "请求过多" in page.content.decode()
    # Reading goes on: the start page itself is not limited.
    assert client.get(reverse("decider-home"), REMOTE_ADDR="10.0.0.3").status_code == 200


def test_every_way_to_create_shares_one_limit(client, rules, limited):
    """Issue 49: the home form and the API counted apart (120 an hour where the docs said
    60), and copies and scenarios had no limit (100 copies in 1.3 s), through a view link
    too. One count now: 3 creates of any kind, then 429 for every kind."""
    address = {"REMOTE_ADDR": "10.0.0.9"}
    assessment, edit, view = make_assessment()
    assert create_by_api(client, address="10.0.0.9").status_code == 201
    assert client.post(reverse("decider-home"), {"preset": ""}, **address).status_code == 302
    assert client.post(reverse("decider-copy", args=[edit]), **address).status_code == 302
    count = Assessment.objects.count()
    refused = [
        create_by_api(client, address="10.0.0.9"),
        client.post(reverse("decider-home"), {"preset": ""}, **address),
        client.post(reverse("decider-copy", args=[edit]), **address),
        client.post(reverse("decider-edit-scenario", args=[edit]), **address),
        client.post(reverse("decider-view-scenario", args=[view]), **address),
    ]
    assert [r.status_code for r in refused] == [429] * 5
    assert Assessment.objects.count() == count
    # Another client is not held back by this one's count.
    form = client.get(reverse("decider-view", args=[view])).context["what_if"]
    fields = {name: str(form[name].value()) for name in form.fields}
    other = client.post(
        reverse("decider-view-scenario", args=[view]), fields, REMOTE_ADDR="10.0.0.10"
    )
    assert other.status_code == 302


def test_admin_sign_in_attempts_are_limited(client, limited):
    attempt = {"username": "admin", "password": "wrong"}
    for _ in range(2):
        assert client.post("/admin/login/", attempt, REMOTE_ADDR="10.0.0.4").status_code == 200
    refused = client.post("/admin/login/", attempt, REMOTE_ADDR="10.0.0.4")
    assert refused.status_code == 429 and refused["Retry-After"] == "60"


def test_behind_the_proxy_the_client_is_the_address_the_proxy_saw(rf, settings):
    request = rf.get("/", HTTP_X_FORWARDED_FOR="6.6.6.6, 10.1.2.3", REMOTE_ADDR="172.18.0.5")
    settings.DECIDER_BEHIND_PROXY = False
    assert client_ip(request) == "172.18.0.5"  # a forged header counts for nothing
    settings.DECIDER_BEHIND_PROXY = True
    assert client_ip(request) == "10.1.2.3"


def test_retry_after_follows_the_window():
    assert retry_after("60/h") == 3600 and retry_after("10/5m") == 300 and retry_after("5/s") == 1
