"""Retention: cached PDFs older than the limit go, and assessments nobody opened or saved for
the retention period; newer PDFs and every assessment in use stay."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from decider.models import Assessment, ReportPdf
from decider.services import assessment_score
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
    assert prune().startswith("Removed 1 cached PDF(s), 0.0 MB, older than 30 days.\n")
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


def _aged(assessment, *, opened_days: float | None, saved_days: float) -> None:
    now = timezone.now()
    Assessment.objects.filter(pk=assessment.pk).update(
        opened_at=None if opened_days is None else now - timedelta(days=opened_days),
        updated_at=now - timedelta(days=saved_days),
    )


def test_assessments_nobody_opened_or_saved_for_a_year_go_and_the_rest_stay(rules):
    """Issue 49: no retention ever deleted an assessment (copies at 29 KB a row, unlimited)."""
    gone, _e1, _v1 = make_assessment()
    never_opened, _e2, _v2 = make_assessment()
    opened, _e3, _v3 = make_assessment()
    saved, _e4, _v4 = make_assessment()
    cached(gone, key="e" * 64, days_old=1)
    _aged(gone, opened_days=400, saved_days=500)
    _aged(never_opened, opened_days=None, saved_days=366)
    _aged(opened, opened_days=10, saved_days=800)  # opened lately: in use
    _aged(saved, opened_days=None, saved_days=30)

    out = prune("--dry-run")
    assert "Would remove 2 assessment(s) neither opened nor saved for 365 days." in out
    assert Assessment.objects.count() == 4
    prune()
    assert set(Assessment.objects.values_list("pk", flat=True)) == {opened.pk, saved.pk}
    assert not ReportPdf.objects.filter(assessment_id=gone.pk).exists()


def test_opening_a_link_keeps_an_assessment(client, rules):
    assessment, edit, view = make_assessment()
    assessment_score(assessment)  # its first view would score it: a save of its own
    _aged(assessment, opened_days=400, saved_days=400)
    assert client.get(reverse("decider-view", args=[view])).status_code == 200
    assessment.refresh_from_db()
    assert timezone.now() - assessment.opened_at < timedelta(minutes=1)
    assert timezone.now() - assessment.updated_at > timedelta(days=399)  # no save for it
    assert "Removed 0 assessment(s)" in prune()


def test_the_period_is_a_setting_and_0_keeps_every_assessment(rules, settings):
    assessment, _edit, _view = make_assessment()
    _aged(assessment, opened_days=None, saved_days=40)
    settings.DECIDER_KEEP_ASSESSMENT_DAYS = 0
    assert "Kept every assessment" in prune()
    settings.DECIDER_KEEP_ASSESSMENT_DAYS = 30
    assert "Removed 1 assessment(s) neither opened nor saved for 30 days." in prune()
    with pytest.raises(CommandError, match="1 or more"):
        prune("--assessment-days", "0")
