"""Drop what the app can make again, so nothing it keeps grows without bound.

Cached PDFs are the only such rows: a PDF not downloaded again is rendered anew on the next
download. Expired sessions are cleared too (none with the signed-cookie sessions the settings
use, but whatever engine is configured). The compose scheduler runs it (decider.tasks.prune).
"""

from datetime import timedelta

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Sum
from django.db.models.functions import Length
from django.utils import timezone

from decider.models import ReportPdf

DEFAULT_PDF_DAYS = 30


class Command(BaseCommand):
    help = "Delete cached PDF reports older than --pdf-days days (default 30)."

    def add_arguments(self, parser):
        parser.add_argument("--pdf-days", type=int, default=DEFAULT_PDF_DAYS)
        parser.add_argument("--dry-run", action="store_true", help="count, delete nothing")

    def handle(self, *args, pdf_days: int, dry_run: bool, **options):
        if pdf_days < 0:
            raise CommandError("--pdf-days must be 0 or more.")
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
