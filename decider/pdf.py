"""The PDF report: headless Chromium prints the same HTML page a browser shows.

Chromium runs the page's own JavaScript, so the Plotly charts in the PDF are
the charts on the page (vector SVG), and the print CSS (A4/Letter, page
numbers) is the one a person printing from the browser gets. The page is
served to Chromium from memory: static files come from our own storage and
every other request is refused, so rendering needs no running web server
and never reaches the network.

Rendering costs about a second (a Chromium start included), so each PDF is
kept in the database, keyed by everything it shows; repeated downloads of
the same assessment version are a single query.
"""

from __future__ import annotations

import hashlib
import json
import logging
import mimetypes
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage

from decider.models import Assessment, ReportPdf

PAPERS = {"a4": "A4", "letter": "Letter"}
# Bump when the report template changes so cached PDFs are made again.
REPORT_FORMAT = 4  # 4: cost breakdown, present value, yearly cash flow
KEEP_PER_ASSESSMENT = 8
ORIGIN = "http://decider.report"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]

# One Chromium at a time per process, in a thread of its own: a burst of
# downloads queues instead of starting a browser per request, and Playwright's
# sync API never meets an event loop of the calling thread (ASGI, tests).
_printer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="decider-pdf")

log = logging.getLogger(__name__)


class PdfError(RuntimeError):
    pass


def pdf_key(assessment: Assessment, variant: tuple[str, ...]) -> str:
    shown = [REPORT_FORMAT, assessment.pk, assessment.revision, assessment.name]
    shown += [assessment.result, assessment.recommendation, list(variant)]
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()


def report_pdf(
    assessment: Assessment, *, html: Callable[[], str], variant: tuple[str, ...]
) -> bytes:
    """The cached PDF for this assessment version and variant, rendered if missing."""
    key = pdf_key(assessment, variant)
    cached = ReportPdf.objects.filter(key=key).values_list("pdf", flat=True).first()
    if cached is not None:
        return bytes(cached)
    started = time.perf_counter()
    try:
        document = html_to_pdf(html(), paper=variant[-1])
    except PdfError as error:
        log.error("PDF of assessment %s failed: %s", assessment.pk, error)
        raise
    log.info(
        "PDF of assessment %s rendered in %.2f s (%d kB)",
        assessment.pk,
        time.perf_counter() - started,
        len(document) // 1024,
    )
    ReportPdf.objects.update_or_create(
        key=key, defaults={"assessment": assessment, "pdf": document}
    )
    stale = ReportPdf.objects.filter(assessment=assessment).order_by("-created_at")
    stale = stale.values_list("pk", flat=True)[KEEP_PER_ASSESSMENT:]
    ReportPdf.objects.filter(pk__in=list(stale)).delete()
    return document


def _static_file(path: str) -> Path | None:
    name = path.removeprefix(settings.STATIC_URL.rstrip("/")).lstrip("/")
    if staticfiles_storage.exists(name) and hasattr(staticfiles_storage, "path"):
        try:
            return Path(staticfiles_storage.path(name))
        except NotImplementedError:
            pass
    found = finders.find(name)
    return Path(found) if found else None


def html_to_pdf(html: str, *, paper: str = "a4", timeout_ms: int = 20_000) -> bytes:
    from playwright.sync_api import Error, sync_playwright

    def route(route):
        url = route.request.url
        if url == f"{ORIGIN}/report":
            return route.fulfill(body=html, content_type="text/html; charset=utf-8")
        path = url.removeprefix(ORIGIN)
        if url.startswith(ORIGIN) and path.startswith(settings.STATIC_URL):
            file = _static_file(path.split("?", 1)[0])
            if file is not None:
                content_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
                return route.fulfill(body=file.read_bytes(), content_type=content_type)
        return route.abort()

    def render() -> bytes:
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=settings.CHROMIUM_PATH, args=CHROMIUM_ARGS
                )
                try:
                    return _print(browser.new_page(), route, paper, timeout_ms)
                finally:
                    browser.close()
        except Error as error:
            raise PdfError(f"Chromium could not render the report: {error}") from error

    return _printer.submit(render).result()


def _print(page, route, paper: str, timeout_ms: int) -> bytes:
    from playwright.sync_api import Error

    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("requestfailed", lambda request: problems.append(f"refused {request.url}"))
    page.route("**/*", route)
    try:
        page.goto(f"{ORIGIN}/report", timeout=timeout_ms)
        page.wait_for_function("document.body.dataset.chartsReady === 'true'", timeout=timeout_ms)
    except Error as error:
        raise Error(f"{error.message} ({'; '.join(problems[:5]) or 'no page errors'})") from error
    page.emulate_media(media="print")
    return page.pdf(
        format=PAPERS.get(paper, "A4"), print_background=True, prefer_css_page_size=True
    )
