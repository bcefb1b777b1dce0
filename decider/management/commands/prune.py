"""Retention, so nothing the app keeps grows without bound.

- Cached PDFs older than `--pdf-days`: a PDF not downloaded again is rendered anew on the
  next download.
- Assessments none of whose links was opened, and none saved, for `--assessment-days`
  (default `DECIDER_KEEP_ASSESSMENT_DAYS`, 365; 0 in the setting keeps them all): nobody
  holds a link anyone uses. Opening any page of one (`Assessment.mark_opened`, once a day)
  or saving it keeps it another period, so one in use is never removed.
- Expired sessions (none with the signed-cookie sessions the settings use, but whatever
  engine is configured).

The compose scheduler runs it (decider.tasks.prune).
"""

from datetime import timedelta

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q, Sum
from django.db.models.functions import Length
from django.utils import timezone

from decider.models import Assessment, ReportPdf

DEFAULT_PDF_DAYS = 30


class Command(BaseCommand):
    help = (
        "Delete cached PDF reports older than --pdf-days days (default 30) and assessments "
        "not opened or saved for --assessment-days days (default DECIDER_KEEP_ASSESSMENT_DAYS)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--pdf-days", type=int, default=DEFAULT_PDF_DAYS)
        parser.add_argument("--assessment-days", type=int, default=None)
        parser.add_argument("--dry-run", action="store_true", help="count, delete nothing")

    def handle(self, *args, pdf_days: int, assessment_days: int | None, dry_run: bool, **options):
        if pdf_days < 0:
            raise CommandError("--pdf-days must be 0 or more.")
        if assessment_days is not None and assessment_days < 1:
            raise CommandError("--assessment-days must be 1 or more.")
        old = ReportPdf.objects.filter(created_at__lt=timezone.now() - timedelta(days=pdf_days))
        size = old.aggregate(total=Sum(Length("pdf")))["total"] or 0
        count = old.count()
        if not dry_run:
            old.delete()
            call_command("clearsessions")
        verb = "Would remove" if dry_run else "Removed"
        self.stdout.write(
            f"{verb} {count} cached PDF(s), {size / 1e6:.1f} MB, older than {pdf_days} days."
        )
        days = settings.DECIDER_KEEP_ASSESSMENT_DAYS if assessment_days is None else assessment_days
        if not days:
            self.stdout.write("Kept every assessment (DECIDER_KEEP_ASSESSMENT_DAYS is 0).")
            return
        cutoff = timezone.now() - timedelta(days=days)
        unused = Assessment.objects.filter(
            Q(opened_at__isnull=True) | Q(opened_at__lt=cutoff), updated_at__lt=cutoff
        )
        count = unused.count()
        if not dry_run:
            unused.delete()  # their cached PDFs with them
        self.stdout.write(f"{verb} {count} assessment(s) neither opened nor saved for {days} days.")
