"""The PDF report: headless Chromium prints the same HTML page a browser shows.

Chromium runs the page's own JavaScript, so the Plotly charts in the PDF are
the charts on the page (vector SVG), and the print CSS (A4/Letter, page
numbers) is the one a person printing from the browser gets. The page is
served to Chromium from memory: static files come from our own storage and
every other request is refused, so rendering needs no running web server
and never reaches the network.

A web request never waits on Chromium. It renders the report's HTML and
enqueues a job (`report_pdf`); a Celery worker prints it (`render_job`,
decider/tasks.py) and stores it (`ReportPdf`), keyed by everything the PDF
shows, the fonts it was drawn with and the Chromium that drew it. The page
polls until it is there. At most `DECIDER_PDF_RENDERS` print at once across
every worker.

In a worker process one printer thread owns one long-lived Chromium (started
on the first PDF, restarted when it dies and after `RENDERS_PER_BROWSER`
prints, closed at exit) and prints one page at a time. The first report is
loaded into a fresh browser context; the page then stays, with plotly.js
loaded, and each next report is put into it (`Prepared`, `SWAP`): loading
plotly.js and a new context was more than half of a new PDF's time. After
`SWAPS_PER_PAGE` reports, or when a report needs other scripts, a new page is
loaded.
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
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.cache import cache
from django.db import connections, transaction
from django.utils.text import slugify

from decider.models import Assessment, ReportPdf
from decider.report import PAPERS, report_page_html

# Bump when the report template changes so cached PDFs are made again.
REPORT_FORMAT = 7  # 5: executive summary on page 1, appendix, readable charts; 6: hatching as
# lines; 7: this generation or the next
KEEP_PER_ASSESSMENT = 8
ORIGIN = "http://decider.report"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
# A long-lived Chromium slowly grows; a fresh one costs one cold start (~1 s).
RENDERS_PER_BROWSER = 100
# Renders waiting or running per process; past it a render is refused.
QUEUE_MAX = 8
# The "being prepared" page asks again every POLL_S seconds (a script is told so by
# Retry-After).
POLL_S = 1
# A PDF that may not be cached (fonts missing) is kept this long for the download
# that follows its "ready" poll.
UNCACHED_KEEP_S = 120
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
        self.loads = 0  # reports loaded into a new page (not swapped into a prepared one)
        self._prepared: Prepared | None = None

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
            browser = self._browser_get()
        except Error:
            self._browser_close()  # it may have died between the check and now
            raise
        self._renders += 1
        if self._prepared is not None:
            try:
                if (document := self._prepared.print(html, paper, timeout_ms)) is not None:
                    return document
            except Error as error:
                if not browser.is_connected():
                    self._browser_close()
                    raise
                log.warning("the prepared print page failed, loading afresh: %s", error)
            self._prepared_close()  # another report's code, worn out, or failed: load afresh
        try:
            context = browser.new_context()
        except Error:
            self._browser_close()
            raise
        self.loads += 1
        prepared = Prepared(context, context.new_page(), _router(html))
        try:
            document = prepared.load(paper, timeout_ms)
        except Error:
            with suppress(Error):
                context.close()
            if not browser.is_connected():
                self._browser_close()
            raise
        if prepared.reusable():
            self._prepared = prepared
        else:
            with suppress(Error):
                context.close()
        return document

    def _prepared_close(self) -> None:
        from playwright.sync_api import Error

        if self._prepared is not None:
            with suppress(Error):
                self._prepared.context.close()
        self._prepared = None

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

        self._prepared = None  # its page goes with the browser
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


def html_to_pdf(
    html: str,
    *,
    paper: str = "a4",
    timeout_ms: int = 20_000,
    tick: Callable[[], object] | None = None,
) -> bytes:
    """Print `html` in the warm Chromium and return the PDF; blocks until done, calling
    `tick` every TICK_S seconds meanwhile (a worker says it is still printing)."""
    from playwright.sync_api import Error

    def run() -> bytes:
        try:
            return printer.print(html, paper, timeout_ms)
        except Error as error:
            raise PdfError(f"Chromium could not render the report: {error}") from error

    if printer.on_thread():
        return run()
    future = printer.submit(run)
    while True:
        try:
            return future.result(timeout=TICK_S)
        except FutureTimeout:
            if tick is not None:
                tick()


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


# How many reports one prepared page prints before a new page is loaded.
SWAPS_PER_PAGE = 25

# A report put into a page that has printed another: plotly.js and the page's scripts stay
# loaded (loading them is half of a new PDF's time), the head's styles and the whole body
# are the new report's, and the charts are drawn again. False when the report needs other
# scripts (a deploy) or the page has no charts code: it is loaded into a new page instead.
SWAP = """async ([html, timeoutMs]) => {
  if (!window.deciderCharts || !window.Plotly) return false;
  const next = new DOMParser().parseFromString(html, "text/html");
  const scripts = (doc) =>
    [...doc.querySelectorAll("script[src]")].map((s) => s.getAttribute("src")).join(" ");
  if (scripts(next) !== scripts(document)) return false;
  // DOMParser parses as if scripts were off: <noscript> would come alive (its styles hide
  // the charts). A page loaded with scripts on ignores it.
  next.querySelectorAll("noscript").forEach((element) => element.remove());
  document.querySelectorAll(".js-plotly-plot").forEach((plot) => Plotly.purge(plot));
  document.documentElement.lang = next.documentElement.lang;
  // The report's own head elements; plotly.js adds its style sheet once and keeps it.
  const old = [...document.head.children].filter(
    (e) => e.tagName !== "SCRIPT" && !(e.id || "").startsWith("plotly.js"));
  const loads = [];
  for (const element of next.head.children) {
    if (element.tagName === "SCRIPT") continue;
    const same = old.findIndex((e) => e.outerHTML === element.outerHTML);
    if (same >= 0) {
      old.splice(same, 1); // loaded already: kept where it is (moved, a sheet loads again)
      continue;
    }
    const added = document.importNode(element, true);
    if (added.tagName === "LINK") {
      loads.push(new Promise((done) => { added.onload = added.onerror = done; }));
    }
    document.head.appendChild(added);
  }
  old.forEach((e) => e.remove());
  document.body.replaceWith(document.importNode(next.body, true));
  const late = new Promise((_, fail) =>
    setTimeout(() => fail(new Error("the report's charts took too long")), timeoutMs));
  await Promise.race([Promise.all(loads).then(() => window.deciderCharts.drawAll(document)), late]);
  return document.body.dataset.chartsReady === "true";
}"""


class Prepared:
    """A page that has printed a report and keeps plotly.js loaded for the next one."""

    def __init__(self, context: Any, page: Any, route: Callable[[Any], Any]) -> None:
        self.context, self.page = context, page
        self.problems: list[str] = []
        self.swaps = 0
        page.on("pageerror", lambda error: self.problems.append(str(error)))
        page.on("requestfailed", lambda request: self.problems.append(f"refused {request.url}"))
        page.route("**/*", route)

    def load(self, paper: str, timeout_ms: int) -> bytes:
        """The report the page was made for, loaded as a browser loads it, printed."""
        from playwright.sync_api import Error

        try:
            self.page.goto(f"{ORIGIN}/report", timeout=timeout_ms)
            self.page.wait_for_function(
                "document.body.dataset.chartsReady === 'true'", timeout=timeout_ms
            )
        except Error as error:
            raise self._failed(error) from error
        return self._pdf(paper)

    def print(self, html: str, paper: str, timeout_ms: int) -> bytes | None:
        """Another report put into the page and printed; None: it must be loaded afresh."""
        from playwright.sync_api import Error

        if self.swaps >= SWAPS_PER_PAGE:
            return None
        self.swaps += 1
        self.problems.clear()
        self.page.emulate_media(media="screen")  # the charts are drawn as on a fresh load
        try:
            if not self.page.evaluate(SWAP, [html, timeout_ms]):
                return None
        except Error as error:
            raise self._failed(error) from error
        return self._pdf(paper)

    def reusable(self) -> bool:
        """Whether the next report can be put into this page: it has the charts code."""
        from playwright.sync_api import Error

        try:
            return bool(self.page.evaluate("!!(window.deciderCharts && window.Plotly)"))
        except Error:
            return False

    def _pdf(self, paper: str) -> bytes:
        self.page.emulate_media(media="print")
        return bytes(
            self.page.pdf(
                format=PAPERS.get(paper, "A4"), print_background=True, prefer_css_page_size=True
            )
        )

    def _failed(self, error: Any) -> Any:
        from playwright.sync_api import Error

        return Error(f"{error.message} ({'; '.join(self.problems[:5]) or 'no page errors'})")


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
    """What the PDF shows and what prints it. The saved result is named by when it was
    scored (every re-score is a new moment), not hashed: the key costs nothing per ask."""
    drawn_with = renderer()
    shown = [REPORT_FORMAT, assessment.pk, assessment.revision, assessment.name]
    shown += [assessment.scored_at.isoformat() if assessment.scored_at else None]  # dates shown
    shown += [assessment.scored_revision, assessment.recommendation, list(variant)]
    shown += [drawn_with.chromium, drawn_with.fonts, drawn_with.cjk]
    return hashlib.sha256(json.dumps(shown).encode()).hexdigest()


# --- jobs: the web asks, a worker prints (decider/tasks.py) ----------------------------

# The shared cache (Redis in production) carries what web and worker say about a render.
MARK = "pdf:job:%s"  # a render of this key is on its way: queued or printing
FAILED = "pdf:failed:%s"  # why the last render of this key failed
UNCACHED = "pdf:uncached:%s"  # a PDF that may not be stored (fonts missing), for its download
SLOT = "pdf:slot:%d"  # one of settings.DECIDER_PDF_RENDERS render slots, held by a worker
# A render neither done nor failed by then is taken for lost (its job with it) and asked for
# again by the next poll. Queued, it may wait behind a burst (JOB_MARK_S); printing, the
# worker renews the mark every TICK_S seconds, so a worker that died is known within
# PRINTING_MARK_S.
JOB_MARK_S = 240
PRINTING_MARK_S = 20
TICK_S = 5
FAILED_KEEP_S = 120
# A slot is a lease the render renews every TICK_S seconds while it prints: a worker killed
# while it held one frees it within SLOT_LEASE_S (it once held it 90 s: after two kills the
# next PDF waited 87 s).
SLOT_LEASE_S = 2 * TICK_S + 1


class PdfLimited(PdfError):
    """This client started too many renders lately."""


@dataclass(frozen=True)
class Page:
    """Which report page a PDF prints: the kind of link it is read through and its variant.
    The worker renders it (`report_html`), so a web request spends nothing on the PDF. No
    link token: a job sits in the queue's Redis, whose append-only file keeps it on disk."""

    kind: str  # "edit" or "view"
    language: str
    currency: str
    paper: str

    def variant(self) -> tuple[str, ...]:
        return (self.language, self.currency, self.paper)


def report_pdf(
    assessment: Assessment,
    *,
    page: Page,
    enqueue: Callable[..., object],
    may_start: Callable[[], bool] | None = None,
) -> bytes | None:
    """The PDF of `page`, or None while a worker makes it.

    Never waits on Chromium and renders nothing: the first ask enqueues the job with the
    caller's `enqueue(key=, assessment_pk=, page=)` (tasks.render_pdf.delay), unless
    `may_start` says no (PdfLimited); asks while it is on its way find it again. Without a
    broker the job runs inline, so the PDF is there on return. PdfError once when the
    render failed; the ask after it tries again.
    """
    key = pdf_key(assessment, page.variant())
    if (document := _look(key)) is not None:
        return document
    if not cache.add(MARK % key, "queued", timeout=JOB_MARK_S):
        return None  # on its way
    try:
        if may_start is not None and not may_start():
            raise PdfLimited("too many PDFs started from this address")
        _enqueue(enqueue, {"key": key, "assessment_pk": assessment.pk, "page": asdict(page)})
    except BaseException:
        cache.delete(MARK % key)
        raise
    return _look(key)


def _enqueue(enqueue: Callable[..., object], job: dict[str, Any]) -> None:
    from kombu.exceptions import OperationalError

    try:
        enqueue(**job)
    except OperationalError as error:
        log.error("PDF of assessment %s not queued: %s", job["assessment_pk"], error)
        raise PdfError("the job queue cannot be reached") from error


def _look(key: str) -> bytes | None:
    stored = _stored(key)
    if stored is not None:
        return stored
    if (document := cache.get(UNCACHED % key)) is not None:
        return document
    if (why := cache.get(FAILED % key)) is not None:
        cache.delete(FAILED % key)  # told once: asking again tries again
        raise PdfError(why)
    return None


def _stored(key: str) -> bytes | None:
    """The stored PDF of `key`, or None. On PostgreSQL it is read in binary: Django's
    client-side cursor gets bytea as hex text, twice the bytes and three times the CPU of a
    350 KB PDF (read only: nothing here is written, so nothing the middleware watches)."""
    sql, _params = _stored_sql()
    connection = connections[ReportPdf.objects.db]
    if connection.vendor == "postgresql":
        import psycopg

        connection.ensure_connection()
        with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(sql, [key], binary=True)
            row = cursor.fetchone()
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql, [key])
            row = cursor.fetchone()
    return None if row is None else bytes(row[0])


@functools.cache
def _stored_sql() -> tuple[str, tuple[Any, ...]]:
    """The query of a stored PDF by its key ("%s"), built by the ORM once: building it cost
    more than running it."""
    return ReportPdf.objects.filter(key="key").values_list("pdf").query.sql_with_params()


def _fonts_ok(page: str, assessment: Assessment) -> bool:
    if renderer().cjk or not CJK.search(page):
        return True
    log.warning(
        "PDF of assessment %s has Chinese text but no Chinese font is installed "
        "(fc-list :lang=zh is empty; install fonts-noto-cjk): served, not cached",
        assessment.pk,
    )
    return False


@contextmanager
def render_slot(*, limited: bool) -> Iterator[Callable[[], None] | None]:
    """One of `DECIDER_PDF_RENDERS` slots shared by every worker: its renewal (call it at
    least every TICK_S seconds while rendering), or None when none is free."""
    if not limited:
        yield lambda: None
        return
    holder = uuid.uuid4().hex
    for slot in range(settings.DECIDER_PDF_RENDERS):
        name = SLOT % slot
        if cache.add(name, holder, timeout=SLOT_LEASE_S):

            def renew(name: str = name) -> None:
                cache.touch(name, SLOT_LEASE_S)

            try:
                yield renew
            finally:
                if cache.get(name) == holder:
                    cache.delete(name)
            return
    yield None


def render_job(*, key: str, assessment_pk: int, page: Page, limited: bool) -> bool:
    """Render the report page, print it and leave the PDF where `report_pdf` looks (in a
    worker). False when every render slot is taken: the caller tries again shortly."""
    if ReportPdf.objects.filter(key=key).exists():  # a second delivery of a job done
        cache.delete(MARK % key)
        return True
    assessment = Assessment.objects.filter(pk=assessment_pk).first()
    if assessment is None:  # deleted since it was asked for
        cache.delete(MARK % key)
        return True
    with render_slot(limited=limited) as renew:
        if renew is None:
            return False
        cache.set(MARK % key, "printing", timeout=PRINTING_MARK_S)
        started = time.perf_counter()

        def tick() -> None:
            renew()
            cache.touch(MARK % key, PRINTING_MARK_S)

        try:
            html = report_html(assessment, page)
            tick()
            cacheable = _fonts_ok(html, assessment)
            document = html_to_pdf(html, paper=page.paper, tick=tick)
        except Exception as error:  # whatever went wrong, the person gets the failure page
            why = (
                str(error) if isinstance(error, PdfError) else f"the PDF printer failed: {error!r}"
            )
            log.error("PDF of assessment %s failed: %s", assessment_pk, why)
            cache.set(FAILED % key, why, timeout=FAILED_KEEP_S)
            cache.delete(MARK % key)
            return True
    log.info(
        "PDF of assessment %s rendered in %.2f s (%d kB)",
        assessment_pk,
        time.perf_counter() - started,
        len(document) // 1024,
    )
    if not cacheable:
        cache.set(UNCACHED % key, document, timeout=UNCACHED_KEEP_S)
    elif not _store(key, assessment_pk, document):
        log.info("PDF of assessment %s dropped: the assessment is gone", assessment_pk)
    cache.delete(MARK % key)
    return True


# The link a printed report is drawn through: none that works. Every link of the page that
# would carry it is taken out of the PDF (printed_links).
PRINT_TOKEN = "printed-report-has-no-link"
# A link in a PDF goes to the deployment's own address or nowhere: the method page (the "§"
# citations) and the page's own anchors; external sources stay as they are.
_HREF = re.compile(r'(<a\b[^>]*?)\shref="(/[^"]*)"')


def report_html(assessment: Assessment, page: Page) -> str:
    """The printable report as someone reading it through a link of `page.kind` gets it, its
    links fit for a file that travels (printed_links)."""
    html = report_page_html(assessment, token=PRINT_TOKEN, **asdict(page))
    return printed_links(html, site=settings.DECIDER_SITE_URL)


def printed_links(html: str, *, site: str) -> str:
    """The report's links as a PDF keeps them: a link to the method page points at the
    deployment's own address (`DECIDER_SITE_URL`), or is dropped without one; any other
    link into the app (the assessment's own pages) is dropped, anchors and external sources
    stay. Chromium would otherwise resolve them against the address the report was loaded
    from inside the printer (`ORIGIN`), a domain nobody owns."""

    def fixed(match: re.Match[str]) -> str:
        tag, path = match.groups()
        if site and path.startswith("/method/") and PRINT_TOKEN not in path:
            return f'{tag} href="{site.rstrip("/")}{path}"'
        return tag

    return _HREF.sub(fixed, html)


def _store(key: str, assessment_pk: int, document: bytes) -> bool:
    with transaction.atomic():
        if not Assessment.objects.filter(pk=assessment_pk).select_for_update().exists():
            return False
        ReportPdf.objects.update_or_create(
            key=key, defaults={"assessment_id": assessment_pk, "pdf": document}
        )
    stale = ReportPdf.objects.filter(assessment_id=assessment_pk).order_by("-created_at")
    stale = stale.values_list("pk", flat=True)[KEEP_PER_ASSESSMENT:]
    ReportPdf.objects.filter(pk__in=list(stale)).delete()
    return True


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
