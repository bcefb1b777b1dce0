"""The PDF printer: one warm Chromium, "being prepared" while it prints, fonts, file names;
and the friendly 404 and the confirmation before a link is revoked or replaced."""

import json
import re
import subprocess
import sys
import threading
import time
from contextlib import suppress
from pathlib import Path
from urllib.parse import unquote

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.views.defaults import server_error

from decider import pdf, services, tasks
from decider.models import Assessment, ReportPdf
from tests.factories import make_assessment

ROOT = Path(__file__).resolve().parent.parent
FAKE_PDF = b"%PDF-1.4 fake"
TINY_PAGE = "<html><body data-charts-ready='true'><h1>%s</h1></body></html>"
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
SHOTS = Path("/tmp/shots/pdf")


class Gate:
    """Stands in for Chromium: prints nothing until the test opens the gate."""

    def __init__(self, *, error: Exception | None = None) -> None:
        self.opened = threading.Event()
        self.error = error
        self.calls: list[str] = []

    def __call__(self, html: str, **kwargs) -> bytes:
        self.calls.append(html)
        assert self.opened.wait(30), "the test never opened the gate"
        if self.error is not None:
            raise self.error
        return FAKE_PDF


@pytest.fixture(autouse=True)
def no_jobs_in_flight():
    cache.clear()  # what web and worker said about renders lives in the cache
    yield
    cache.clear()


@pytest.fixture
def gate(monkeypatch):
    gate = Gate()
    monkeypatch.setattr(pdf, "html_to_pdf", gate)
    yield gate
    gate.opened.set()
    pdf.printer.submit(lambda: None).result(timeout=30)  # the printer thread is free again


@pytest.fixture
def shared(rules):
    return make_assessment(name="2027 plan: 64 GPU inference + bursts")


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)


# --- one warm Chromium ------------------------------------------------------------


@pytest.mark.browser
def test_it_keeps_one_chromium_for_many_pdfs():
    pdf.html_to_pdf(TINY_PAGE % "warm up")
    before = pdf.printer.launches
    documents = [pdf.html_to_pdf(TINY_PAGE % n, paper="letter") for n in range(3)]
    assert all(d.startswith(b"%PDF-") for d in documents)
    assert pdf.printer.launches == before


@pytest.mark.browser
def test_a_burst_of_pdfs_queues_on_the_one_chromium():
    pdf.html_to_pdf(TINY_PAGE % "warm up")
    before = pdf.printer.launches
    results: list[bytes] = []
    threads = [
        threading.Thread(target=lambda n=n: results.append(pdf.html_to_pdf(TINY_PAGE % n)))
        for n in range(5)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(results) == 5 and all(r.startswith(b"%PDF-") for r in results)
    assert pdf.printer.launches == before


@pytest.mark.browser
def test_a_crashed_chromium_is_started_again_for_the_next_pdf():
    from playwright.sync_api import Error

    pdf.html_to_pdf(TINY_PAGE % "before the crash")
    before = pdf.printer.launches

    def crash() -> None:
        browser = pdf.printer._browser
        session = browser.new_browser_cdp_session()
        with suppress(Error):  # the answer never comes: the browser is gone
            session.send("Browser.crash")
        deadline = time.monotonic() + 10
        while browser.is_connected() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not browser.is_connected()

    pdf.printer.submit(crash).result(timeout=30)
    assert pdf.html_to_pdf(TINY_PAGE % "after the crash").startswith(b"%PDF-")
    assert pdf.printer.launches == before + 1


@pytest.mark.browser
def test_chromium_is_renewed_after_its_share_of_pdfs(monkeypatch):
    monkeypatch.setattr(pdf, "RENDERS_PER_BROWSER", 2)
    pdf.html_to_pdf(TINY_PAGE % "a fresh browser")  # counts from a browser at most 1 old
    before = pdf.printer.launches
    for n in range(4):
        pdf.html_to_pdf(TINY_PAGE % n)
    assert pdf.printer.launches - before in (1, 2)


def test_the_queue_is_bounded_and_says_so():
    printer = pdf.Printer(queue_max=2)
    release = threading.Event()
    first = printer.submit(release.wait)
    second = printer.submit(lambda: "second")
    with pytest.raises(pdf.PdfBusy):
        printer.submit(lambda: "one too many")
    release.set()
    assert first.result(timeout=10) is True and second.result(timeout=10) == "second"
    assert printer.submit(lambda: "room again").result(timeout=10) == "room again"
    printer.stop()
    assert not printer._thread.is_alive()


@pytest.mark.browser
@pytest.mark.slow
def test_chromium_is_closed_when_the_process_exits():
    script = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from decider import pdf
assert pdf.html_to_pdf("<body data-charts-ready='true'>x</body>").startswith(b"%PDF-")

def children(pid):
    found = []
    for stat in __import__("glob").glob("/proc/[0-9]*/stat"):
        try:
            fields = open(stat).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            child = int(stat.split("/")[2])
            found += [child, *children(child)]
    return found

print(json.dumps(children(os.getpid())))
"""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", script, str(ROOT)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    spawned = json.loads(done.stdout.strip().splitlines()[-1])
    assert spawned, "Playwright's driver and Chromium ran as children"

    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        return state != "Z"

    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in spawned) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in spawned)
    assert time.monotonic() - started < 60


# --- "being prepared" instead of a link that hangs ------------------------------------


def _until(ask, done, seconds: float = 10):
    deadline = time.monotonic() + seconds
    while not done(answer := ask()):
        assert time.monotonic() < deadline, answer
        time.sleep(0.05)
    return answer


def test_a_browser_sees_the_pdf_being_prepared_and_the_page_polls(client, shared, gate, worker):
    _assessment, _edit, view = shared
    url = reverse("decider-view-pdf", args=[view]) + "?paper=letter"
    started = time.monotonic()
    page = client.get(url, headers={"Accept": BROWSER_ACCEPT})
    assert time.monotonic() - started < 5  # the web never waits on Chromium (gate shut)
    assert page.status_code == 202 and page["Content-Type"].startswith("text/html")
    assert page["Retry-After"] == "1"
    text = page.content.decode()
    assert "Your PDF is being prepared" in text
    assert f'hx-get="{url}"' in text and 'hx-trigger="every 1s"' in text  # with JavaScript
    assert '<noscript><meta http-equiv="refresh" content="1"></noscript>' in text  # without
    assert page["Cache-Control"] == "no-store"

    poll = client.get(url, headers={"HX-Request": "true"})
    assert poll.status_code == 200 and "<html" not in poll.content.decode()
    assert 'hx-trigger="every 1s"' in poll.content.decode()

    gate.opened.set()
    ready = _until(
        lambda: client.get(url, headers={"HX-Request": "true"}).content.decode(),
        lambda text: "data-pdf-ready" in text,
    )
    assert "hx-trigger" not in ready  # the polling stops
    assert "Your PDF is ready" in ready

    download = client.get(url, headers={"Accept": BROWSER_ACCEPT})
    assert download["Content-Type"] == "application/pdf" and download.content == FAKE_PDF
    assert len(gate.calls) == 1  # reloads and polls found the render on its way
    assert "size: letter" in gate.calls[0]


def test_a_script_gets_202_until_the_worker_is_done(client, shared, gate, worker):
    _assessment, _edit, view = shared
    url = reverse("decider-view-pdf", args=[view])
    first = client.get(url, headers={"Accept": "application/pdf"})
    assert first.status_code == 202 and first["Retry-After"] == "1"
    gate.opened.set()
    done = _until(lambda: client.get(url), lambda response: response.status_code == 200)
    assert done["Content-Type"] == "application/pdf" and done.content == FAKE_PDF


def test_without_a_job_queue_a_script_gets_the_pdf_at_once(client, shared, monkeypatch):
    """`make run` has no broker: the job runs inline, in the request."""
    _assessment, _edit, view = shared
    url = reverse("decider-view-pdf", args=[view])

    def slow(html, **kwargs):
        time.sleep(0.3)
        return FAKE_PDF

    monkeypatch.setattr(pdf, "html_to_pdf", slow)
    for accept in (
        {},
        {"Accept": "*/*"},
        {"Accept": "application/pdf"},
        {"Accept": BROWSER_ACCEPT},
    ):
        ReportPdf.objects.all().delete()
        response = client.get(url, headers=accept)
        assert response.status_code == 200, accept
        assert response.content == FAKE_PDF


def test_a_cached_pdf_is_served_at_once_to_a_browser(client, shared, gate):
    _assessment, _edit, view = shared
    url = reverse("decider-view-pdf", args=[view])
    gate.opened.set()
    assert client.get(url).content == FAKE_PDF
    gate.opened.clear()  # a new render would now hang: the cached one must not need it
    response = client.get(url, headers={"Accept": BROWSER_ACCEPT})
    assert response["Content-Type"] == "application/pdf" and response.content == FAKE_PDF
    assert len(gate.calls) == 1


def test_a_failure_while_preparing_shows_the_friendly_page(client, shared, gate, worker, caplog):
    assessment, _edit, view = shared
    gate.error = pdf.PdfError("Chromium crashed")
    url = reverse("decider-view-pdf", args=[view])
    assert client.get(url, headers={"Accept": BROWSER_ACCEPT}).status_code == 202
    gate.opened.set()
    poll = _until(
        lambda: client.get(url, headers={"HX-Request": "true"}),
        lambda response: "hx-trigger" not in response.content.decode(),
    )
    assert poll.status_code == 200  # htmx swaps it into the waiting page
    assert "The PDF could not be made just now" in poll.content.decode()
    assert reverse("decider-view-report", args=[view]) in poll.content.decode()
    logged = [r.getMessage() for r in caplog.records if r.name == "decider.pdf"]
    assert logged == [f"PDF of assessment {assessment.pk} failed: Chromium crashed"]
    # Asking again tries again.
    assert client.get(url, headers={"Accept": BROWSER_ACCEPT}).status_code == 202
    _until(lambda: len(gate.calls), lambda calls: calls == 2)


def test_a_failure_seen_at_once_is_the_full_page_with_503(client, shared, gate):
    _assessment, _edit, view = shared
    gate.error = pdf.PdfError("Chromium crashed")
    gate.opened.set()
    url = reverse("decider-view-pdf", args=[view])
    failed = client.get(url, headers={"Accept": BROWSER_ACCEPT})
    assert failed.status_code == 503 and "could not be made" in failed.content.decode()


def _ask(assessment, page: pdf.Page) -> bytes | None:
    """As the view asks: the job goes to the queue (inline in the tests' worker fixture)."""
    return pdf.report_pdf(assessment, page=page, enqueue=tasks.render_pdf.delay)


def _page(view: str, **changes) -> pdf.Page:
    return pdf.Page(
        **{"kind": "view", "language": "en"}
        | changes
        | {"currency": changes.get("currency", "USD"), "paper": changes.get("paper", "a4")}
    )


def test_the_same_pdf_asked_twice_at_once_is_printed_once(shared, gate, worker):
    assessment, _edit, view = shared
    services.assessment_score(assessment)  # as the link's page does before any PDF
    page = _page(view)
    assert _ask(assessment, page) is None
    assert _ask(assessment, page) is None
    gate.opened.set()
    done = _until(lambda: _ask(assessment, page), bool)
    assert done == FAKE_PDF
    assert len(gate.calls) == 1
    assert ReportPdf.objects.filter(assessment=assessment).count() == 1


def test_the_worker_prints_the_page_as_the_person_asked_for_it(shared, gate, worker):
    """The report is rendered in the worker: the asker's link, language, currency, paper."""
    assessment, _edit, view = shared
    services.assessment_score(assessment)  # as the link's page does before any PDF
    gate.opened.set()
    page = _page(view, language="zh-hans", currency="CNY", paper="letter")
    _until(lambda: _ask(assessment, page), bool)
    html = gate.calls[0]
    assert '<html lang="zh-Hans">' in html and "size: letter" in html
    assert "¥" in html.split("<body", 1)[1]  # amounts in the currency asked for


def test_a_lost_job_is_asked_for_again_by_the_next_poll(shared, gate, worker):
    """A job the queue lost (Redis restarted, nothing on disk) stops being "on its way"
    after JOB_MARK_S; the next ask queues it again."""
    assessment, _edit, view = shared
    services.assessment_score(assessment)  # as the link's page does before any PDF
    page = _page(view)
    lost: list[dict] = []
    into_nowhere = lambda **job: lost.append(job)  # noqa: E731
    assert pdf.report_pdf(assessment, page=page, enqueue=into_nowhere) is None
    assert pdf.report_pdf(assessment, page=page, enqueue=into_nowhere) is None
    assert len(lost) == 1  # the second ask found it on its way
    cache.delete(pdf.MARK % lost[0]["key"])  # JOB_MARK_S went by
    gate.opened.set()
    done = _until(lambda: _ask(assessment, page), bool)
    assert done == FAKE_PDF and len(gate.calls) == 1


def test_renders_at_once_are_limited_across_workers(shared, settings):
    """Every render slot taken (by other workers): the job says so, to be tried again."""
    assessment, _edit, _view = shared
    settings.DECIDER_PDF_RENDERS = 1
    job = {"key": "k" * 64, "assessment_pk": assessment.pk, "page": _page(_view)}
    job |= {"limited": True}
    cache.add(pdf.SLOT % 0, "another worker", timeout=60)
    assert pdf.render_job(**job) is False
    assert not ReportPdf.objects.exists()


def test_renders_started_are_rate_limited_and_polls_are_not(
    client, shared, gate, worker, settings, still_limit_clock
):
    _assessment, _edit, view = shared
    settings.RATELIMIT_ENABLE = True
    settings.DECIDER_RATES = {**settings.DECIDER_RATES, "pdf": "2/m"}
    urls = [reverse("decider-view-pdf", args=[view]) + f"?paper={p}" for p in ("a4", "letter")]
    for url in urls:
        assert client.get(url, headers={"Accept": BROWSER_ACCEPT}).status_code == 202
        for _poll in range(5):  # polls of a render on its way start nothing
            assert client.get(url, headers={"HX-Request": "true"}).status_code == 200
    chinese = client.get(urls[0], headers={"Accept": BROWSER_ACCEPT, "Accept-Language": "zh-hans"})
    assert chinese.status_code == 429 and int(chinese["Retry-After"]) == 60
    assert "请在 1 分钟后重试" in chinese.content.decode()
    gate.opened.set()


# --- fonts and renderer ---------------------------------------------------------------


def test_this_machine_has_chromium_and_a_chinese_font():
    """`make test`, `make run` and the image install both; the cache key names them."""
    drawn_with = pdf.renderer()
    assert drawn_with.chromium.startswith("Chromium ")
    assert drawn_with.cjk
    assert drawn_with.fonts


def test_the_cache_key_names_the_fonts_and_the_chromium(shared, monkeypatch):
    assessment, _edit, _view = shared
    variant = ("en", "USD", "a4")
    keys = set()
    for chromium, fonts in (("Chromium 1", "a"), ("Chromium 2", "a"), ("Chromium 1", "b")):
        drawn_with = pdf.Renderer(chromium=chromium, fonts=fonts, cjk=True)
        monkeypatch.setattr(pdf, "renderer", lambda d=drawn_with: d)
        keys.add(pdf.pdf_key(assessment, variant))
    assert len(keys) == 3


def test_a_chinese_pdf_without_a_chinese_font_is_served_but_not_cached(
    client, shared, monkeypatch, caplog
):
    assessment, _edit, view = shared
    calls = []
    monkeypatch.setattr(pdf, "html_to_pdf", lambda html, **kw: calls.append(1) or FAKE_PDF)
    no_cjk = pdf.Renderer(chromium="Chromium 1", fonts="latin only", cjk=False)
    monkeypatch.setattr(pdf, "renderer", lambda: no_cjk)
    url = reverse("decider-view-pdf", args=[view])
    chinese = client.get(url, headers={"Accept-Language": "zh-hans"})
    assert chinese.status_code == 200 and chinese.content == FAKE_PDF
    assert not ReportPdf.objects.exists()
    warned = [r for r in caplog.records if r.name == "decider.pdf" and r.levelname == "WARNING"]
    assert len(warned) == 1 and "no Chinese font" in warned[0].getMessage()
    # A page without a Chinese character needs no Chinese font. (The English report
    # quotes the source's sections, "§四.1", so it needs one too.)
    assert pdf._fonts_ok(TINY_PAGE % "plain", assessment)
    assert not pdf._fonts_ok(TINY_PAGE % "§四.1", assessment)


@pytest.mark.slow
def test_make_run_make_test_and_the_image_install_the_chinese_fonts():
    for target in ("run", "test", "bench"):
        plan = subprocess.run(
            ["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60
        ).stdout
        assert "fonts-noto-cjk" in plan and "fc-list :lang=zh" in plan, target
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "fonts-noto-cjk" in dockerfile and "fc-list :lang=zh | grep -q ." in dockerfile


# --- the file name ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fallback", "full"),
    [
        (
            "2027 plan: 64 GPU inference + bursts",
            "decider-2027-plan-64-gpu-inference-bursts.pdf",
            None,
        ),
        ("集群规划 2027", "decider-2027.pdf", "decider-集群规划-2027.pdf"),
        ("推理集群", "decider-assessment.pdf", "decider-推理集群.pdf"),
        ("Ünïcödé café", "decider-unicode-cafe.pdf", "decider-ünïcödé-café.pdf"),
        ('../../etc/passwd"; rm -rf', "decider-etcpasswd-rm-rf.pdf", None),
        ("Line one\r\nLine two", "decider-line-one-line-two.pdf", None),
        ("", "decider-assessment.pdf", None),
        ("🚀 launch", "decider-launch.pdf", None),
    ],
)
def test_the_pdf_gets_a_clean_file_name(name, fallback, full):
    header = pdf.content_disposition(name)
    assert header.startswith(f'attachment; filename="{fallback}"')
    assert header.isascii() and "\n" not in header and "\r" not in header
    if full is None:
        assert "filename*" not in header
    else:
        assert "; filename*=UTF-8''" in header
        assert unquote(header.split("''", 1)[1]) == full


def test_a_long_name_is_cut_to_a_clean_length():
    fallback, full = pdf.download_name("GPU plan " * 30)
    assert len(fallback) <= len("decider-.pdf") + 60
    assert not fallback.removesuffix(".pdf").endswith("-") and fallback == full


def test_the_download_carries_the_clean_name(client, rules, monkeypatch):
    monkeypatch.setattr(pdf, "html_to_pdf", lambda html, **kwargs: FAKE_PDF)
    _assessment, edit, view = make_assessment()
    client.post(reverse("decider-rename", args=[edit]), {"name": "集群规划: 2027"})
    response = client.get(reverse("decider-view-pdf", args=[view]))
    assert response["Content-Disposition"] == (
        "attachment; filename=\"decider-2027.pdf\"; filename*=UTF-8''"
        "decider-%E9%9B%86%E7%BE%A4%E8%A7%84%E5%88%92-2027.pdf"
    )


# --- revoked and unknown links: a friendly 404 ----------------------------------------------


def _dead_links(client, shared) -> list[str]:
    _assessment, edit, view = shared
    client.post(reverse("decider-links", args=[edit]), {"action": "revoke-view", "confirm": "1"})
    unknown = "x" * 32
    return [
        reverse("decider-view", args=[view]),  # revoked
        reverse("decider-view-report", args=[view]),
        reverse("decider-view-pdf", args=[view]),
        reverse("decider-result", args=[unknown]),  # never existed
        reverse("decider-step", args=[unknown, "workload"]),
    ]


@pytest.mark.parametrize("debug", [True, False])
def test_a_revoked_or_unknown_link_gets_the_friendly_404(client, shared, settings, debug):
    settings.DEBUG = debug
    for url in _dead_links(client, shared):
        response = client.get(url)
        page = response.content.decode()
        assert response.status_code == 404, url
        assert "This link does not work" in page, url
        assert "revoked or replaced" in page and 'href="/"' in page
        assert "URLconf" not in page and "Page not found" not in page  # no technical page
        assert response["Cache-Control"] == "no-store"
        assert response["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize("debug", [True, False])
def test_posting_to_a_dead_link_gets_the_friendly_404(client, shared, settings, debug):
    settings.DEBUG = debug
    response = client.post(reverse("decider-rename", args=["y" * 32]), {"name": "x"})
    assert response.status_code == 404 and "This link does not work" in response.content.decode()


def test_an_unknown_address_gets_the_same_page_in_production(client, rules, settings):
    settings.DEBUG = False
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "This link does not work" in response.content.decode()


def test_the_404_page_speaks_chinese_to_a_chinese_browser(client, shared):
    response = client.get(
        reverse("decider-view", args=["z" * 32]), headers={"Accept-Language": "zh-hans"}
    )
    page = response.content.decode()
    assert response.status_code == 404 and 'lang="zh-Hans"' in page
    assert "这个链接无法打开" in page


def test_the_500_page_stands_alone(rf):
    response = server_error(rf.get("/"))
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.content.decode()


# --- revoking and replacing ask first ------------------------------------------------------


def _stored(assessment) -> dict:
    """What is saved of an assessment, but when it was last opened (asking opens it)."""
    return Assessment.objects.values().get(pk=assessment.pk) | {"opened_at": None}


@pytest.mark.parametrize(
    ("action", "question"),
    [
        ("revoke-view", "Revoke the view-only link?"),
        ("new-view", "Replace the view-only link?"),
        ("new-edit", "Replace the edit link?"),
    ],
)
def test_breaking_a_link_asks_first_and_changes_nothing(client, shared, action, question):
    assessment, edit, view = shared
    before = _stored(assessment)
    response = client.post(reverse("decider-links", args=[edit]), {"action": action})
    page = response.content.decode()
    assert response.status_code == 200 and question in page
    assert f'<input type="hidden" name="action" value="{action}">' in page
    assert 'name="confirm" value="1"' in page
    assert f'href="{reverse("decider-result", args=[edit])}#share"' in page  # cancel
    assert _stored(assessment) == before
    assert client.get(reverse("decider-view", args=[view])).status_code == 200
    assert client.get(reverse("decider-result", args=[edit])).status_code == 200

    confirmed = client.post(
        reverse("decider-links", args=[edit]), {"action": action, "confirm": "1"}
    )
    assert confirmed.status_code == 302
    assert _stored(assessment) != before


def test_the_result_page_buttons_ask_before_breaking_a_link(client, shared):
    _assessment, edit, _view = shared
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    for action in ("new-edit", "new-view", "revoke-view"):
        button = page.split(f'value="{action}"', 1)[1].split(">", 1)[0]
        assert "data-confirm=" in button and "stops working" in button, action


# --- in Chromium ------------------------------------------------------------------------------


def _live(live_server, name: str, *args: str) -> str:
    return live_server.url + reverse(name, args=args)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("javascript", [True, False])
def test_in_chromium_the_download_waits_on_a_page_then_starts(
    browser, live_server, rules, gate, worker, javascript
):
    from playwright.sync_api import expect

    from tests.conftest import new_page

    _assessment, _edit, view = make_assessment(name="2027 GPU plan")
    page = new_page(browser, javascript=javascript)
    page.goto(_live(live_server, "decider-view-report", view))
    with page.expect_download(timeout=30_000) as download_info:
        page.get_by_role("link", name="Download PDF (A4)").click()
        expect(page.get_by_role("heading", name="Your PDF is being prepared")).to_be_visible()
        if javascript:
            _shot(page, "preparing")
        gate.opened.set()
    download = download_info.value
    assert download.suggested_filename == "decider-2027-gpu-plan.pdf"
    assert Path(download.path()).read_bytes() == FAKE_PDF
    if javascript:
        expect(page.get_by_role("heading", name="Your PDF is ready")).to_be_visible()
        _shot(page, "ready")
    assert page.errors == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_in_chromium_revoking_asks_and_cancel_keeps_the_link(browser, live_server, rules):
    from playwright.sync_api import expect

    from tests.conftest import new_page

    _assessment, edit, view = make_assessment(name="2027 GPU plan")
    cto = new_page(browser)
    cto.goto(_live(live_server, "decider-result", edit))
    cto.get_by_role("link", name="Share", exact=True).click()
    asked = []
    cto.once("dialog", lambda dialog: asked.append(dialog.message) or dialog.dismiss())
    cto.get_by_role("button", name="Revoke the view-only link").click()
    expect(cto.locator("#view-link")).to_be_visible()
    assert asked and "stops working at once" in asked[0]
    assert new_page(browser).goto(_live(live_server, "decider-view", view)).status == 200

    cto.once("dialog", lambda dialog: dialog.accept())
    cto.get_by_role("button", name="Revoke the view-only link").click()
    expect(cto.locator("#view-link-revoked")).to_be_visible()
    reader = new_page(browser)
    assert reader.goto(_live(live_server, "decider-view", view)).status == 404
    expect(reader.get_by_role("heading", name="This link does not work")).to_be_visible()
    _shot(reader, "404")
    assert cto.errors == [] and reader.errors == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_without_javascript_revoking_asks_on_a_page(browser, live_server, rules):
    from playwright.sync_api import expect

    from tests.conftest import new_page

    _assessment, edit, view = make_assessment(name="2027 GPU plan")
    cto = new_page(browser, javascript=False)
    cto.goto(_live(live_server, "decider-result", edit))
    cto.get_by_role("link", name="Share", exact=True).click()  # opens its fold without JS too
    cto.get_by_role("button", name="Revoke the view-only link").click()
    expect(cto.get_by_role("heading", name="Revoke the view-only link?")).to_be_visible()
    _shot(cto, "confirm")
    cto.get_by_role("link", name="Cancel: keep the link").click()
    expect(cto.locator("#view-link")).to_be_visible()
    cto.get_by_role("button", name="Revoke the view-only link").click()
    cto.get_by_role("button", name="Revoke the view-only link").click()  # on the confirm page
    expect(cto.locator("#view-link-revoked")).to_be_visible()
    assert new_page(browser).goto(_live(live_server, "decider-view", view)).status == 404


def test_a_worker_printing_keeps_saying_so(monkeypatch):
    """The mark a poll reads is renewed while Chromium prints: a worker that died stops
    renewing it, and the next poll asks for the PDF again within PRINTING_MARK_S."""
    monkeypatch.setattr(pdf, "TICK_S", 0.05)
    monkeypatch.setattr(pdf.printer, "print", lambda *args: time.sleep(0.4) or FAKE_PDF)
    ticks = []
    assert pdf.html_to_pdf(TINY_PAGE % "x", tick=lambda: ticks.append(1)) == FAKE_PDF
    assert len(ticks) >= 3
    assert pdf.PRINTING_MARK_S > 2 * pdf.TICK_S  # one late tick does not lose the render


def test_a_pdf_job_carries_no_link_token(shared, monkeypatch):
    """Issue 49: jobs sat in Redis's append-only file with working edit and view links."""
    assessment, edit, view = shared
    services.assessment_score(assessment)
    jobs = []
    pdf.report_pdf(
        assessment, page=_page(view, kind="edit"), enqueue=lambda **job: jobs.append(job)
    )
    (job,) = jobs
    assert job["assessment_pk"] == assessment.pk and job["page"]["kind"] == "edit"
    assert edit not in repr(job) and view not in repr(job)


@pytest.mark.parametrize("site", ["", "https://decider.example.com"])
def test_a_pdf_links_to_the_site_itself_or_nowhere(shared, settings, site):
    """Its "§" citations once pointed at http://decider.report/method/..., a domain nobody
    owns; links to the assessment's own pages would carry no working token."""
    assessment, _edit, view = shared
    services.assessment_score(assessment)
    settings.DECIDER_SITE_URL = site
    html = pdf.report_html(assessment, _page(view))
    hrefs = re.findall(r'<a\b[^>]*\shref="([^"]*)"', html)
    assert hrefs and all(not h.startswith("/") for h in hrefs)
    assert pdf.PRINT_TOKEN not in " ".join(hrefs)
    method = [h for h in hrefs if "/method/" in h]
    assert bool(method) == bool(site)
    assert all(h.startswith(f"{site}/method/") for h in method)
    assert 'rel="stylesheet" href="/static/' in html  # the page's own files still load


def test_a_render_killed_holding_a_slot_frees_it_within_its_lease(shared, settings):
    """Issue 49: a killed render held its slot 90 s (the next PDF waited 87 s). A slot is now
    a lease the render renews while it prints: one nobody renews is free within seconds."""
    settings.DECIDER_PDF_RENDERS = 1
    held = pdf.render_slot(limited=True)
    renew = held.__enter__()  # a render that starts, and is killed: never leaves the block
    assert renew is not None
    with pdf.render_slot(limited=True) as other:
        assert other is None  # taken meanwhile
    key = cache.make_key(pdf.SLOT % 0)
    assert cache._expire_info[key] - time.time() <= pdf.SLOT_LEASE_S <= 2 * pdf.TICK_S + 1
    renew()  # alive: the lease goes on
    assert cache._expire_info[key] - time.time() > pdf.SLOT_LEASE_S - 1
    cache._expire_info[key] = time.time() - 1  # SLOT_LEASE_S went by with no renewal
    with pdf.render_slot(limited=True) as after_the_kill:
        assert after_the_kill is not None
