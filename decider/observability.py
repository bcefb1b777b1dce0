"""Errors reach an operator: Sentry, opt-in through SENTRY_DSN (docs/OPERATIONS.md, "Errors").

What is sent never carries a link token: every string of an event and its breadcrumbs is
redacted as the logs are (decider/logs.py), no local variables are sent, and no personal
data (cookies, addresses, users).
"""

from __future__ import annotations

from typing import Any

from decider.logs import redact


def scrub(value: Any) -> Any:
    """`value` with every link token in every string replaced, however deep."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {scrub(key): scrub(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(scrub(item) for item in value)
    return value


def before_send(event: Any, hint: dict[str, Any]) -> Any:
    return scrub(event)


def before_breadcrumb(crumb: Any, hint: dict[str, Any]) -> Any:
    return scrub(crumb)


def sentry_init(dsn: str, *, environment: str, transport: Any = None) -> None:
    """Send errors (web requests and jobs) to the Sentry project named by `dsn`."""
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        include_local_variables=False,
        max_request_body_size="never",
        before_send=before_send,
        before_breadcrumb=before_breadcrumb,
        traces_sample_rate=0.0,
        transport=transport,
    )
