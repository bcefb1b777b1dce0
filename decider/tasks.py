"""The jobs a worker runs (config/celery.py): PDFs, the impact preview, retention.

Each job leaves what it made where the web looks for it (the database, the shared cache)
and is safe to run twice: a job delivered again after a worker died finds its work done
or does it once more.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.core.management import call_command
from django.db import InterfaceError, OperationalError

log = logging.getLogger(__name__)

# When every render slot is taken, a PDF job waits this long and tries again; when the
# database is away, DB_WAIT_S. Past MAX_WAITS it gives up (the next poll asks afresh).
SLOT_WAIT_S = 1
DB_WAIT_S = 2
MAX_WAITS = 300


@shared_task(bind=True, max_retries=None, ignore_result=True)
def render_pdf(self, *, key: str, assessment_pk: int, page: dict[str, str]) -> None:
    from decider import pdf

    if self.request.retries >= MAX_WAITS:
        log.error("PDF of assessment %s given up after %d waits", assessment_pk, MAX_WAITS)
        return
    try:
        done = pdf.render_job(
            key=key,
            assessment_pk=assessment_pk,
            page=pdf.Page(**page),
            limited=not self.request.is_eager,
        )
    except (OperationalError, InterfaceError) as error:  # the database away for a moment
        log.warning("PDF of assessment %s waits for the database: %s", assessment_pk, error)
        raise self.retry(countdown=DB_WAIT_S) from error
    if not done:
        raise self.retry(countdown=SLOT_WAIT_S)


@shared_task(ignore_result=True)
def compute_impact(ruleset_pk: int, digest: str) -> None:
    from decider.services import impact_preview_compute

    impact_preview_compute(ruleset_pk, digest)


@shared_task(ignore_result=True)
def prune() -> None:
    """Retention on the scheduler's clock (settings.CELERY_BEAT_SCHEDULE)."""
    call_command("prune")


@shared_task(ignore_result=True)
def refresh_prices() -> None:
    """The daily price import (issue 53), on the scheduler's clock when
    DECIDER_PRICE_REFRESH names its sources ("azure,skypilot:aws,gpuhunt:lambdalabs"). A
    source that cannot be read is logged and recorded as a failed run; the rest go on."""
    from django.conf import settings
    from django.core.management.base import CommandError

    for entry in settings.DECIDER_PRICE_REFRESH:
        source, _, provider = entry.partition(":")
        try:
            call_command("refresh_prices", source=[source], provider=provider)
        except CommandError as error:
            log.warning("price import %s: %s", entry, error)
