"""The PDF report: headless Chromium prints the same HTML page a browser shows.

Chromium runs the page's own JavaScript, so the Plotly charts in the PDF are
the charts on the page (vector SVG), and the print CSS (A4/Letter, page
numbers) is the one a person printing from the browser gets. The page is
served to Chromium from memory: static files come from our own storage and
every other request is refused, so rendering needs no running web server
and never reaches the network.

One printer thread per process owns one long-lived Chromium (started on the
first PDF, restarted when it dies and after `RENDERS_PER_BROWSER` prints,
closed at exit) and prints one page at a time, each in a fresh browser
context. A request hands the report's HTML to that thread and waits as long
as its caller wants (`report_pdf(wait=…)`); a render still running is found
again by its key, so a reload or a poll never prints the same PDF twice.
The printer thread never touches the database: whichever request sees a
render finish stores it (`ReportPdf`), keyed by everything the PDF shows,
the fonts it was drawn with and the Chromium that drew it.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import json
import logging
import mimetypes
import re
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.utils.text import slugify

from decider.models import Assessment, ReportPdf

PAPERS = {"a4": "A4", "letter": "Letter"}
# Bump when the report template changes so cached PDFs are made again.
REPORT_FORMAT = 5  # 5: executive summary on page 1, appendix, readable charts
KEEP_PER_ASSESSMENT = 8
ORIGIN = "http://decider.report"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
# A long-lived Chromium slowly grows; a fresh one costs one cold start (~1 s).
RENDERS_PER_BROWSER = 100
# Renders waiting or running per process; past it a download is told to come back.
QUEUE_MAX = 8
# How long a download waits for a render before it answers "being prepared": a
# person's browser, the page's poll (every POLL_S seconds), any other client.
# A sync gunicorn worker is held while it waits: polls answer at once, and no wait
# comes near gunicorn's 30 s worker timeout (a script gets 202 and Retry-After then).
WAIT_PAGE_S = 2.0
WAIT_POLL_S = 0.2
WAIT_CLIENT_S = 20.0
POLL_S = 1
# A PDF that may not be cached (fonts missing) is kept this long for the download
# that follows its "ready" poll.
UNCACHED_KEEP_S = 120
KEEP_DONE = 16  # finished renders nobody has fetched yet, kept at most
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")

log = logging.getLogger(__name__)


class PdfError(RuntimeError):
    pass


class PdfBusy(PdfError):
    """Too many renders queued in this process; try again in a moment."""


# --- the printer thread and its Chromium ---------------------------------------


class Printer:
    """One thread that owns one long-lived Chromium and prints the queued pages in turn.

    Playwright's sync API must stay on the thread that started it, and never meets
    an event loop of the calling thread (ASGI, tests); only `submit` and `stop` are
    called from other threads.
    """

    def __init__(self, *, queue_max: int = QUEUE_MAX) -> None:
        self.queue_max = queue_max
        self.launches = 0  # Chromium starts in this process, for tests and the benchmark
        self._queue: SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = SimpleQueue()
        self._lock = threading.Lock()
        self._pending = 0
        self._thread: threading.Thread | None = None
        self._playwright: Any = None
        self._browser: Any = None
        self._renders = 0

    # Any thread.

    def submit(self, fn: Callable[[], Any]) -> Future[Any]:
        """Run `fn` on the printer thread; PdfBusy when `queue_max` are already waiting."""
        future: Future[Any] = Future()
        with self._lock:
            if self._pending >= self.queue_max:
                raise PdfBusy(f"{self._pending} PDFs are already being made")
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="decider-pdf", daemon=True)
                self._thread.start()
            self._pending += 1
        self._queue.put((future, fn))
        return future

    def on_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def stop(self, timeout: float = 10.0) -> None:
        """Close Chromium and end the thread (at exit); queued renders are cancelled."""
        thread = self._thread
        if thread is None or not thread.is_alive():
            return
        self._queue.put(None)
        thread.join(timeout)

    # The printer thread only.

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            future, fn = item
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(fn())
                    except BaseException as error:  # handed to the waiting request
                        future.set_exception(error)
            finally:
                with self._lock:
                    self._pending -= 1
        while True:  # stopping: whatever is still queued will not be printed
            try:
                left = self._queue.get_nowait()
            except Empty:
                break
            if left is not None:
                left[0].cancel()
        self._close()

    def print(self, html: str, paper: str, timeout_ms: int) -> bytes:
        from playwright.sync_api import Error

        try:
            context = self._browser_get().new_context()
        except Error:
            self._browser_close()  # it may have died between the check and now
            raise
        self._renders += 1
        try:
            return _print(context.new_page(), _router(html), paper, timeout_ms)
        except Error:
            if not self._browser.is_connected():
                self._browser_close()
            raise
        finally:
            with suppress(Error):
                context.close()

    def _browser_get(self) -> Any:
        from playwright.sync_api import Error, sync_playwright

        browser = self._browser
        if browser is not None and (
            not browser.is_connected() or self._renders >= RENDERS_PER_BROWSER
        ):
            self._browser_close()
        if self._browser is None:
            for attempt in (1, 2):
                if self._playwright is None:
                    self._playwright = sync_playwright().start()
                try:
                    self._browser = self._playwright.chromium.launch(
                        executable_path=settings.CHROMIUM_PATH, args=CHROMIUM_ARGS
                    )
                    break
                except Error:
                    # The Playwright driver itself may be gone: start it again once.
                    self._playwright_stop()
                    if attempt == 2:
                        raise
            self.launches += 1
            self._renders = 0
        return self._browser

    def _browser_close(self) -> None:
        from playwright.sync_api import Error

        if self._browser is not None:
            with suppress(Error):
                self._browser.close()
        self._browser = None

    def _playwright_stop(self) -> None:
        if self._playwright is not None:
            with suppress(Exception):
                self._playwright.stop()
        self._playwright = None

    def _close(self) -> None:
        self._browser_close()
        self._playwright_stop()


printer = Printer()
atexit.register(printer.stop)


def html_to_pdf(html: str, *, paper: str = "a4", timeout_ms: int = 20_000) -> bytes:
    """Print `html` in the warm Chromium and return the PDF; blocks until done."""
    from playwright.sync_api import Error

    if not printer.on_thread():
        return printer.submit(
            lambda: html_to_pdf(html, paper=paper, timeout_ms=timeout_ms)
        ).result()
    try:
        return printer.print(html, paper, timeout_ms)
    except Error as error:
        raise PdfError(f"Chromium could not render the report: {error}") from error


def _static_file(path: str) -> Path | None:
    name = path.removeprefix(settings.STATIC_URL.rstrip("/")).lstrip("/")
    if staticfiles_storage.exists(name) and hasattr(staticfiles_storage, "path"):
        try:
            return Path(staticfiles_storage.path(name))
        except NotImplementedError:
            pass
    found = finders.find(name)
    return Path(found) if found else None


def _router(html: str) -> Callable[[Any], Any]:
    def route(route: Any) -> Any:
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

    return route


def _print(page: Any, route: Callable[[Any], Any], paper: str, timeout_ms: int) -> bytes:
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


# --- what the PDF is drawn with: fonts and renderer ------------------------------


@dataclass(frozen=True)
class Renderer:
    chromium: str  # `chromium --version`, or "" when it does not run
    fonts: str  # digest of the installed font files
    cjk: bool  # a font that covers Chinese is installed


@functools.cache
def renderer() -> Renderer:
    """Chromium's version and the font set, looked up once per process."""

    def output(*command: str) -> str:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    files = sorted(output("fc-list", "--format", "%{file}\n").splitlines())
    return Renderer(
        chromium=output(settings.CHROMIUM_PATH, "--version"),
        fonts=hashlib.sha256("\n".join(files).encode()).hexdigest()[:16],
        cjk=bool(output("fc-list", ":lang=zh", "family")),
    )


def pdf_key(assessment: Assessment, variant: tuple[str, ...]) -> str:
    drawn_with = renderer()
    shown = [REPORT_FORMAT, assessment.pk, assessment.revision, assessment.name]
    shown += [assessment.scored_at.isoformat() if assessment.scored_at else None]  # dates shown
    shown += [assessment.result, assessment.recommendation, list(variant)]
    shown += [drawn_with.chromium, drawn_with.fonts, drawn_with.cjk]
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()


# --- renders in flight, and the cache ---------------------------------------------


@dataclass
class Job:
    key: str
    assessment_pk: int
    cacheable: bool
    future: Future[bytes] = field(default_factory=Future)
    queued_at: float = field(default_factory=time.perf_counter)
    seconds: float = 0.0  # printing alone, without the wait in the queue
    done_at: float = 0.0
    collected: bool = False


_jobs: dict[str, Job] = {}
_jobs_lock = threading.Lock()


def _job_start(key: str, assessment: Assessment, html: Callable[[], str], paper: str) -> Job:
    """The render of `key` in flight in this process, or a new one."""
    with _jobs_lock:
        now = time.perf_counter()
        done = sorted((j for j in _jobs.values() if j.done_at), key=lambda j: j.done_at)
        for old in done[: max(0, len(done) - KEEP_DONE)]:
            del _jobs[old.key]
        for old in done[-KEEP_DONE:]:
            if now - old.done_at > UNCACHED_KEEP_S:
                del _jobs[old.key]
        if (job := _jobs.get(key)) is not None:
            return job
    page = html()
    job = Job(key=key, assessment_pk=assessment.pk, cacheable=_fonts_ok(page, assessment))

    def run() -> bytes:
        started = time.perf_counter()
        try:
            return html_to_pdf(page, paper=paper)
        except PdfError:
            raise
        except Exception as error:  # whatever went wrong, the request gets the failure page
            raise PdfError(f"the PDF printer failed: {error!r}") from error
        finally:
            job.seconds = time.perf_counter() - started
            job.done_at = time.perf_counter()

    with _jobs_lock:
        if (running := _jobs.get(key)) is not None:  # another request was quicker
            return running
        job.future = printer.submit(run)
        _jobs[key] = job
    return job


def _fonts_ok(page: str, assessment: Assessment) -> bool:
    if renderer().cjk or not CJK.search(page):
        return True
    log.warning(
        "PDF of assessment %s has Chinese text but no Chinese font is installed "
        "(fc-list :lang=zh is empty; install fonts-noto-cjk): served, not cached",
        assessment.pk,
    )
    return False


def _job_collect(job: Job) -> bytes:
    """The finished job's PDF, stored and logged by the first request that sees it."""
    with _jobs_lock:
        first = not job.collected
        job.collected = True
        failed = job.future.exception() is not None
        # A failure is tried afresh; a stored PDF is read from the database from now on.
        if (failed or job.cacheable) and _jobs.get(job.key) is job:
            del _jobs[job.key]
    try:
        document = job.future.result()
    except PdfError as error:
        if first:
            log.error("PDF of assessment %s failed: %s", job.assessment_pk, error)
        raise
    if first:
        log.info(
            "PDF of assessment %s rendered in %.2f s (%.2f s in the queue, %d kB)",
            job.assessment_pk,
            job.seconds,
            max(0.0, job.done_at - job.queued_at - job.seconds),
            len(document) // 1024,
        )
        if job.cacheable:
            _store(job, document)
    return document


def _store(job: Job, document: bytes) -> None:
    ReportPdf.objects.update_or_create(
        key=job.key, defaults={"assessment_id": job.assessment_pk, "pdf": document}
    )
    stale = ReportPdf.objects.filter(assessment_id=job.assessment_pk).order_by("-created_at")
    stale = stale.values_list("pk", flat=True)[KEEP_PER_ASSESSMENT:]
    ReportPdf.objects.filter(pk__in=list(stale)).delete()


def report_pdf(
    assessment: Assessment,
    *,
    html: Callable[[], str],
    variant: tuple[str, ...],
    wait: float | None = None,
) -> bytes | None:
    """The PDF for this assessment version and variant: from the cache at once, else
    printed, waiting at most `wait` seconds (None: until done).

    None while it is still being made (ask again with the same arguments: the render
    in flight is found again); PdfError when it failed, PdfBusy when too many renders
    are queued to start this one.
    """
    key = pdf_key(assessment, variant)
    cached = ReportPdf.objects.filter(key=key).values_list("pdf", flat=True).first()
    if cached is not None:
        return bytes(cached)
    job = _job_start(key, assessment, html, paper=variant[-1])
    try:
        job.future.result(timeout=wait)
    except FutureTimeout:
        return None
    except PdfError:
        pass  # logged once, by the collect below
    return _job_collect(job)


# --- the download ------------------------------------------------------------------


def download_name(name: str) -> tuple[str, str]:
    """The file name of the PDF: (ASCII fallback, UTF-8 name), both safe in a header."""
    full = slugify(name, allow_unicode=True)[:60].strip("-_") or "assessment"
    ascii_only = slugify(name)[:60].strip("-_") or "assessment"
    return f"decider-{ascii_only}.pdf", f"decider-{full}.pdf"


def content_disposition(name: str) -> str:
    """`attachment` with a clean ASCII `filename=` and, when it differs, a UTF-8 `filename*=`."""
    fallback, full = download_name(name)
    header = f'attachment; filename="{fallback}"'
    if full != fallback:
        header += f"; filename*=UTF-8''{quote(full, safe='')}"
    return header
