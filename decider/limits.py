"""Rate limits per client (django-ratelimit) on what costs the server: creating assessments
anonymously (one count for every way to: the home form, the API, a copy, a scenario) and
signing in to the admin.

The counters live in the default cache: Redis in production (`REDIS_URL`, shared by every
worker), local memory in development. Rates are settings (`DECIDER_RATES`), read per request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.decorators import ratelimit

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def rate(name: str) -> Callable[[str, HttpRequest], str]:
    """The rate called `name` in settings.DECIDER_RATES, as django-ratelimit asks for it."""
    return lambda _group, _request: settings.DECIDER_RATES[name]


def creates(view: Callable[..., Any]) -> Callable[..., Any]:
    """A view whose POST creates an assessment: every such view counts against one limit
    per client (`DECIDER_RATES["create"]`), so the home form, the API, copies and scenarios
    together make at most that many (django-ratelimit's default group is the view, which
    counted each apart: 120 an hour where the docs said 60)."""
    return ratelimit(
        group="decider.create", key="ip", rate=rate("create"), method="POST", block=True
    )(view)


def client_ip(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the last X-Forwarded-For entry when the app sits
    behind the one proxy it trusts (`DECIDER_BEHIND_PROXY`; the proxy appends the address it
    saw, so the last entry is the only one nobody else can forge)."""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if settings.DECIDER_BEHIND_PROXY and forwarded:
        return forwarded.rsplit(",", 1)[-1].strip()
    return request.META.get("REMOTE_ADDR") or "0.0.0.0"


def retry_after(rate_text: str) -> int:
    """Seconds until a window of "30/h" (or "10/5m") is over, at most."""
    _count, _, period = rate_text.partition("/")
    digits = "".join(c for c in period if c.isdigit())
    return int(digits or 1) * PERIODS.get(period[-1:], 1)
