"""The printable report and its PDF."""

import io
import re
import unicodedata

import pypdf
import pytest
from django.urls import reverse
from django.utils.html import escape

from decider import pdf
from decider.engine.figures import FIGURES
from decider.models import ReportPdf
from decider.report import report_page_html
from decider.services import assessment_score
from tests.factories import make_answers, make_assessment

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared(rules):
    return make_assessment(name="Board pack 2027")


def _pdf_text(content: bytes) -> tuple[int, str]:
    reader = pypdf.PdfReader(io.BytesIO(content))
    text = "\n".join(page.extract_text() for page in reader.pages)
    return len(reader.pages), unicodedata.normalize("NFKC", text)  # "ﬁ" ligatures to "fi"


def test_the_report_page_carries_every_answer_and_figure_without_the_site(client, shared):
    assessment, _edit, view = shared
    page = client.get(reverse("decider-view-report", args=[view])).content.decode()
    assert "Board pack 2027" in page
    assert "Rule set version 1" in page
    assessment.refresh_from_db()
    assert 'class="site-header"' not in page and "My assessments" not in page
    figures = assessment.result["assumptions"]
    # Each figure by its name a reader knows, with its value at its own precision.
    assert all(escape(FIGURES[name].label.en) in page for name in figures)
    assert '<td class="num">0.005</td>' in page  # cloud_fte: 0.005 FTE per GPU, not "0.01"
    assert all(
        f["source"][:30] in page.replace("&#x27;", "'").replace("&quot;", '"')
        for f in figures.values()
    )
    assert page.count('data-width="640"') == 6  # every chart at a fixed print size


def test_the_report_chooses_letter_or_a4(client, shared):
    _assessment, _edit, view = shared
    url = reverse("decider-view-report", args=[view])
    assert "size: letter" in client.get(url + "?paper=letter").content.decode()
    assert "size: A4" in client.get(url + "?paper=tabloid").content.decode()


@pytest.mark.browser
def test_the_pdf_is_a_real_pdf_with_the_recommendation_and_sources(client, shared):
    assessment, _edit, view = shared
    response = client.get(reverse("decider-view-pdf", args=[view]))
    assert response["Content-Type"] == "application/pdf"
    assert 'filename="decider-board-pack-2027.pdf"' in response["Content-Disposition"]
    content = b"".join(response.streaming_content) if response.streaming else response.content
    assert content.startswith(b"%PDF-")
    pages, text = _pdf_text(content)
    flat = " ".join(text.split())
    assert pages >= 3
    assert "Hybrid: own a base, burst to cloud" in flat or "On-premises GPU cluster" in flat
    assert "Cost figures used" in flat
    assert "Uptime Institute" in flat  # a source of the cost figures
    assert f"1 / {pages}" in flat  # page numbers


@pytest.mark.browser
def test_the_pdf_is_made_once_per_version(client, shared, monkeypatch):
    assessment, edit, view = shared
    calls = []
    real = pdf.html_to_pdf
    monkeypatch.setattr(pdf, "html_to_pdf", lambda html, **kw: calls.append(1) or real(html, **kw))
    url = reverse("decider-view-pdf", args=[view])
    first = client.get(url).content
    assert client.get(url).content == first
    assert len(calls) == 1
    # A new answer is a new version of the report.
    client.post(reverse("decider-rename", args=[edit]), {"name": "Renamed"})
    client.get(url)
    assert len(calls) == 2
    assert ReportPdf.objects.filter(assessment=assessment).count() == 2


@pytest.mark.browser
def test_the_chinese_pdf_prints_chinese(client, shared):
    _assessment, _edit, view = shared
    response = client.get(
        reverse("decider-view-pdf", args=[view]), headers={"Accept-Language": "zh-hans"}
    )
    _pages, text = _pdf_text(response.content)
    assert "推荐" in text or "混合" in text


def test_a_pdf_failure_is_a_clear_message_not_a_500(client, shared, monkeypatch, caplog):
    assessment, edit, view = shared

    def broken(html, **kwargs):
        raise pdf.PdfError("Chromium is not installed")

    monkeypatch.setattr(pdf, "html_to_pdf", broken)
    response = client.get(reverse("decider-view-pdf", args=[view]))
    assert response.status_code == 503
    assert "print" in response.content.decode().lower()
    # The operator is told which assessment failed and why, and never given a link.
    logged = [r.getMessage() for r in caplog.records if r.name == "decider.pdf"]
    assert logged == [f"PDF of assessment {assessment.pk} failed: Chromium is not installed"]
    assert not any(token in caplog.text for token in (edit, view))


@pytest.mark.parametrize("name", ["Line one\r\nLine two", "集群规划 2027"])
def test_any_name_gives_a_valid_download_header(client, rules, name, monkeypatch):
    monkeypatch.setattr(pdf, "html_to_pdf", lambda html, **kwargs: b"%PDF-1.4 test")
    _assessment, edit, view = make_assessment()
    client.post(reverse("decider-rename", args=[edit]), {"name": name})
    response = client.get(reverse("decider-view-pdf", args=[view]))
    assert response.status_code == 200
    assert "\n" not in response["Content-Disposition"]
    assert response["Content-Disposition"].startswith("attachment;")


def test_a_tie_on_points_says_why_the_recommendation_goes_first(client, rules):
    answers = make_answers("inference", gpus=96, base_gpus=64, peak_share_pct=20.0, horizon_years=5)
    answers["has_datacenter"] = True
    del answers["utilization_pct"], answers["demand_shape"]
    _assessment, _edit, view = make_assessment(answers=answers)
    for name in ("decider-view", "decider-view-report"):
        page = client.get(reverse(name, args=[view])).content.decode()
        assert "level with On-premises GPU cluster; it goes first because it costs less" in page, (
            name
        )
        assert "points over" not in page


@pytest.mark.browser
def test_reports_printed_one_after_another_each_print_as_if_alone(rules):
    """The printer keeps plotly.js loaded in a page that has printed a report and puts the
    next report into it: each PDF must still be its own report, as a fresh page prints it
    (language, name, charts, page count), and only the first one loads a page."""
    english, _e, view_en = make_assessment(name="Board pack: growth")
    chinese, _c, view_zh = make_assessment(name="二〇二七 计划", answers=make_answers("startup"))
    assessment_score(english)
    assessment_score(chinese)
    html_en = report_page_html(
        english, token=view_en, kind="view", language="en", currency="USD", paper="a4"
    )
    html_zh = report_page_html(
        chinese, token=view_zh, kind="view", language="zh-hans", currency="CNY", paper="letter"
    )
    pdf.printer.submit(pdf.printer._prepared_close).result(timeout=30)
    loads = pdf.printer.loads

    alone = _pdf_text(pdf.html_to_pdf(html_en))
    after = _pdf_text(pdf.html_to_pdf(html_zh, paper="letter"))
    again = _pdf_text(pdf.html_to_pdf(html_en))

    assert pdf.printer.loads == loads + 1
    assert again == alone  # the same pages and words as when it was printed first
    pages, text = after
    flat = " ".join(text.split())
    assert "二〇二七 计划" in flat and "Board pack" not in flat
    assert "推荐" in flat or "混合" in flat
    assert f"1 / {pages}" in flat


@pytest.mark.browser
def test_a_page_without_the_reports_scripts_is_loaded_afresh(shared):
    """A report that needs other scripts than the prepared page holds (after a deploy, or
    another kind of page) is not put into it: it gets a page of its own."""
    assessment, _edit, view = shared
    assessment_score(assessment)
    report = report_page_html(
        assessment, token=view, kind="view", language="en", currency="USD", paper="a4"
    )
    other = "<html><body data-charts-ready='true'><h1>Another page</h1></body></html>"
    pdf.html_to_pdf(report)  # the prepared page holds the report's scripts now
    loads = pdf.printer.loads

    _pages, text = _pdf_text(pdf.html_to_pdf(other))
    assert "Another page" in text and "Board pack" not in text
    _pages, text = _pdf_text(pdf.html_to_pdf(report))
    assert "Board pack 2027" in " ".join(text.split())
    assert pdf.printer.loads == loads + 2  # each loaded into a page of its own


# --- a report link sent on opens as it was sent (issue 34) ----------------------------------


@pytest.mark.django_db
def test_the_result_page_s_report_links_carry_its_language_and_currency(client, rules):
    _assessment, edit, _view = make_assessment()
    page = client.get(
        reverse("decider-result", args=[edit]) + "?currency=CNY",
        headers={"Accept-Language": "zh-hans"},
    ).content.decode()
    report_link = re.search(r'href="([^"]+)" id="report-link"', page).group(1)
    pdf_link = re.search(r'href="([^"]+)" id="pdf-link"', page).group(1)
    for link in (report_link, pdf_link):
        assert "lang=zh-hans&amp;currency=CNY" in link


@pytest.mark.django_db
def test_a_report_link_opens_in_its_language_whatever_the_reader_s_browser_asks(client, rules):
    _assessment, _edit, view = make_assessment()
    url = reverse("decider-view-report", args=[view])
    chinese = client.get(url + "?lang=zh-hans&currency=CNY", headers={"Accept-Language": "en"})
    text = chinese.content.decode()
    assert '<html lang="zh-Hans">' in text
    assert "决策摘要" in text and "¥" in text
    # The PDF links on it keep the language.
    assert "lang=zh-hans" in text
    english = client.get(url + "?lang=en", headers={"Accept-Language": "zh-hans"}).content
    assert b'<html lang="en">' in english
    # A language the app does not speak is the reader's own.
    other = client.get(url + "?lang=fr", headers={"Accept-Language": "en"}).content
    assert b'<html lang="en">' in other


@pytest.mark.django_db
def test_a_pdf_link_prints_in_its_language_whatever_the_reader_s_browser_asks(
    client, rules, monkeypatch
):
    from decider import pdf

    printed = []

    def fake(html, **kwargs):
        printed.append(html)
        return b"%PDF-1.4 fake"

    monkeypatch.setattr(pdf, "html_to_pdf", fake)
    _assessment, _edit, view = make_assessment()
    url = reverse("decider-view-pdf", args=[view]) + "?lang=zh-hans&currency=CNY"
    response = client.get(url, headers={"Accept-Language": "en", "Accept": "application/pdf"})
    assert response.status_code == 200
    assert '<html lang="zh-Hans">' in printed[0]
    assert "¥" in printed[0].split("<body", 1)[1]


@pytest.mark.django_db
def test_the_figures_table_gives_money_in_the_page_s_currency_beside_the_price_set_s(client, rules):
    from decider import services

    assessment, edit, _view = make_assessment()
    services.assessment_score(assessment)
    figures = services.scored_figures(assessment)
    rate = figures["usd_cny"].value
    price = figures["gpu_hour_on_demand"].value
    url = reverse("decider-result", args=[edit])
    cny = client.get(url + "?currency=CNY").content.decode()
    row = re.search(r"<code class=\"figure-key\">gpu_hour_on_demand</code>.*?</tr>", cny, re.S)
    assert f"≈ ¥{price * rate:,.2f}" in row.group(0)
    assert "USD per GPU-hour" in row.group(0)  # the price set's own value and unit beside it
    usd = client.get(url + "?currency=USD").content.decode()
    assert 'class="converted"' not in usd


# A4 in points, and the report's page margins (report.css: 16 mm above, 18 mm below).
MM = 72 / 25.4
TOP, BOTTOM = 16 * MM, 18 * MM


def _page_fill(content: bytes) -> list[float]:
    """How far down each page its text reaches, as a share of the page's text block (the
    footer's page number left out): 1.0 is a full page. A chart's tick labels are text, so
    a chart at the foot of a page counts."""
    fills = []
    for page in pypdf.PdfReader(io.BytesIO(content)).pages:
        height = float(page.mediabox.height)
        lows: list[float] = []

        def visit(text, cm, tm, _font, _size, lows=lows):
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]  # the text's baseline, page space
            if text.strip() and y > BOTTOM:
                lows.append(y)

        page.extract_text(visitor_text=visit)
        block = height - TOP - BOTTOM
        fills.append((height - TOP - min(lows)) / block if lows else 0.0)
    return fills


@pytest.mark.browser
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_no_page_of_a_startup_s_pdf_but_the_last_is_under_a_third_full(client, rules, language):
    """A startup's PDF used to leave page 2 four-fifths empty before a forced page break
    (issue 34); and `?lang=` decides its language whatever the browser asks for."""
    answers = make_answers("startup")
    answers.pop("cloud_share_pct", None)
    assessment, _edit, view = make_assessment(answers=answers)
    assessment_score(assessment)
    other = "zh-hans" if language == "en" else "en"
    response = client.get(
        reverse("decider-view-pdf", args=[view]) + f"?lang={language}",
        headers={"Accept-Language": other},
    )
    content = b"".join(response.streaming_content) if response.streaming else response.content
    assert content.startswith(b"%PDF-")
    pages, text = _pdf_text(content)
    assert ("决策摘要" in text) == (language == "zh-hans")
    assert ("Executive summary" in text) == (language == "en")
    fills = _page_fill(content)
    assert len(fills) == pages >= 3
    assert all(fill >= 1 / 3 for fill in fills[:-1]), [round(f, 2) for f in fills]
