"""Retention: cached PDFs older than the limit go; newer ones and every assessment stay."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from decider.models import Assessment, ReportPdf
from tests.factories import make_assessment

pytestmark = pytest.mark.django_db


def cached(assessment, *, key, days_old):
    return ReportPdf.objects.create(
        assessment=assessment,
        key=key,
        pdf=b"%PDF-" + b"x" * 1000,
        created_at=timezone.now() - timedelta(days=days_old),
    )


def prune(*args):
    out = StringIO()
    call_command("prune", *args, stdout=out)
    return out.getvalue()


def test_old_cached_pdfs_go_and_the_rest_stays(rules):
    assessment, _edit, _view = make_assessment()
    cached(assessment, key="a" * 64, days_old=45)
    kept = cached(assessment, key="b" * 64, days_old=3)
    assert prune() == "Removed 1 cached PDF(s), 0.0 MB, older than 30 days.\n"
    assert list(ReportPdf.objects.all()) == [kept]
    assert Assessment.objects.filter(pk=assessment.pk).exists()


def test_a_dry_run_only_counts(rules):
    assessment, _edit, _view = make_assessment()
    cached(assessment, key="c" * 64, days_old=10)
    assert prune("--pdf-days", "7", "--dry-run").startswith("Would remove 1 cached PDF(s)")
    assert ReportPdf.objects.count() == 1


def test_a_negative_limit_is_refused():
    with pytest.raises(CommandError, match="0 or more"):
        prune("--pdf-days", "-1")


def test_the_scheduled_job_prunes(rules, settings):
    """What the compose scheduler runs every DECIDER_PRUNE_EVERY_S seconds."""
    from decider import tasks

    assert settings.CELERY_BEAT_SCHEDULE["prune"]["task"] == tasks.prune.name
    assessment, _edit, _view = make_assessment()
    cached(assessment, key="d" * 64, days_old=31)
    tasks.prune.delay()  # inline here; the worker in production
    assert not ReportPdf.objects.exists()


def test_expired_sessions_go_whatever_the_engine(settings):
    from django.contrib.sessions.models import Session

    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    past, future = timezone.now() - timedelta(days=1), timezone.now() + timedelta(days=1)
    Session.objects.create(session_key="old" * 10, session_data="x", expire_date=past)
    Session.objects.create(session_key="new" * 10, session_data="x", expire_date=future)
    prune()
    assert list(Session.objects.values_list("session_key", flat=True)) == ["new" * 10]
