"""Errors reach an operator through Sentry when SENTRY_DSN is set, and never carry a link."""

import json

import pytest
import sentry_sdk
from django.urls import reverse
from sentry_sdk.transport import Transport

from decider.observability import scrub, sentry_init
from tests.factories import make_assessment


class Captured(Transport):
    """Stands in for sentry.io: keeps what would have been sent."""

    def __init__(self, options=None):
        super().__init__(options)
        self.envelopes = []

    def capture_envelope(self, envelope):
        self.envelopes.append(envelope)

    def events(self):
        found = []
        for envelope in self.envelopes:
            for item in envelope.items:
                if item.type == "event":
                    found.append(json.loads(item.payload.get_bytes()))
        return found


@pytest.fixture
def sentry():
    transport = Captured()
    sentry_init("https://public@sentry.example.com/1", environment="test", transport=transport)
    yield transport
    sentry_sdk.init()  # no DSN: nothing is sent from here on


def test_an_error_on_a_shared_page_reaches_sentry_without_the_link(
    client, rules, sentry, monkeypatch
):
    _assessment, edit, view = make_assessment()

    def broken(*args, **kwargs):
        raise RuntimeError(f"figures missing for /v/{view}/")

    monkeypatch.setattr("decider.views.report.result_context", broken)
    client.raise_request_exception = False
    response = client.get(reverse("decider-view", args=[view]) + f"?a={edit}")
    assert response.status_code == 500
    sentry_sdk.flush(timeout=5)
    events = sentry.events()
    assert len(events) == 1
    sent = json.dumps(events[0])
    assert "RuntimeError" in sent and "/v/<token>/" in sent
    assert view not in sent and edit not in sent
    assert "cookies" not in events[0].get("request", {})


def test_scrub_reaches_every_string_however_deep():
    token = "A" * 32
    event = {"a": [f"/a/{token}/"], "b": {"c": (f"x?a={token}",)}, "n": 3}
    assert scrub(event) == {"a": ["/a/<token>/"], "b": {"c": ("x?a=<token>",)}, "n": 3}
