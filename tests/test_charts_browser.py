"""The charts in Chromium: drawn, every label inside the picture and clear of the others,
at a desktop width, a phone width and the report's print size; and read without JavaScript.

Set DECIDER_SHOTS=/some/dir to keep a screenshot of every chart for a person to look at.
"""

import io
import os
from pathlib import Path

import pypdf
import pytest
from playwright.sync_api import expect

from tests.conftest import new_page, open_folds
from tests.factories import make_answers, make_assessment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("DECIDER_SHOTS")
KEYS = ["cumulative", "plan", "per_hour", "hybrid", "tornado", "breakdown"]

# Boxes (x, y, width, height) of each chart's labels, by kind, and of its picture.
BOXES = """(plot) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
  const all = (selector) => [...plot.querySelectorAll(selector)]
    .filter((el) => el.getBoundingClientRect().width > 0 && el.textContent.trim())
    .map((el) => ({ text: el.textContent, box: box(el) }));
  return {
    svg: box(plot.querySelector("svg.main-svg")),
    annotations: all("g.annotation-text-g"),
    ticks: all(".xtick text, .ytick text"),
    yticks: all(".ytick text"),
    titles: all(".g-xtitle text, .g-ytitle text"),
    legend: all(".legendtext"),
  };
}"""


def overlap(a, b, slack=1.0):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return (
        ax + slack < bx + bw
        and bx + slack < ax + aw
        and ay + slack < by + bh
        and by + slack < ay + ah
    )


def inside(inner, outer, slack=1.0):
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return (
        x >= ox - slack
        and y >= oy - slack
        and x + w <= ox + ow + slack
        and y + h <= oy + oh + slack
    )


def assert_labels_read(page, key):
    boxes = page.locator(f"#chart-{key} .plot").evaluate(BOXES)
    labels = boxes["annotations"] + boxes["ticks"] + boxes["titles"] + boxes["legend"]
    cut = [label["text"] for label in labels if not inside(label["box"], boxes["svg"])]
    assert cut == [], f"{key}: cut off at the edge"
    for annotation in boxes["annotations"]:
        others = boxes["ticks"] + boxes["titles"] + boxes["legend"]
        others += [a for a in boxes["annotations"] if a is not annotation]
        hit = [o["text"] for o in others if overlap(annotation["box"], o["box"])]
        assert hit == [], f"{key}: {annotation['text']!r} runs into {hit}"
    return boxes


def shot(page, name):
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)


def open_result(browser, live_server, width, **kwargs):
    _assessment, edit, _view = make_assessment(**kwargs)
    page = new_page(browser)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/a/{edit}/")
    page.wait_for_function("document.body.dataset.chartsReady === 'true'")
    open_folds(page, "money", "plan-fold")  # the charts are drawn when their fold opens
    return page, edit


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("persona", ["growth", "inference"])
def test_every_chart_is_drawn_with_its_labels_whole_and_apart(
    browser, live_server, rules, width, persona
):
    page, _edit = open_result(browser, live_server, width, answers=make_answers(persona))
    for key in KEYS:
        figure = page.locator(f"#chart-{key}")
        expect(figure).to_have_attribute("data-state", "drawn")
        # Drawn: the table folds away behind its summary, a click opens it.
        expect(figure.locator("details.chart-table")).not_to_have_attribute("open", "")
        plot = figure.locator(".plot")
        assert plot.bounding_box()["x"] + plot.bounding_box()["width"] <= width + 1
        assert_labels_read(page, key)
        expect(figure.locator(".modebar")).to_have_count(0)
    shot(page, f"result-{persona}-{width}")
    assert page.errors == []


def test_on_a_phone_the_labels_shorten_and_the_band_names_give_way(browser, live_server, rules):
    page, _edit = open_result(browser, live_server, 390)
    per_hour = page.locator("#chart-per_hour .plot").evaluate(BOXES)
    texts = [a["text"] for a in per_hour["annotations"]]
    assert not any("source:" in text for text in texts)
    assert any(text.endswith("%") and not text.startswith("Break-even") for text in texts)
    cumulative = page.locator("#chart-cumulative .plot").evaluate(BOXES)
    assert any(a["text"].startswith("−$") for a in cumulative["annotations"])
    # Every tornado bar keeps its (wrapped) label on a phone too.
    tornado = page.locator("#chart-tornado .plot").evaluate(BOXES)
    rows = page.locator("#chart-tornado tbody tr").count()
    assert len(tornado["yticks"]) == rows


def test_the_printed_report_labels_every_bar_and_keeps_axis_titles_whole(
    browser, live_server, rules
):
    _assessment, edit, _view = make_assessment()
    page = new_page(browser)
    page.goto(f"{live_server.url}/a/{edit}/report/")
    page.wait_for_function("document.body.dataset.chartsReady === 'true'")
    page.emulate_media(media="print")
    page.evaluate("window.deciderCharts.resizeAll()")
    for key in KEYS:
        boxes = assert_labels_read(page, key)
        assert boxes["svg"][2] == pytest.approx(640, abs=1)
    tornado = page.locator("#chart-tornado .plot").evaluate(BOXES)
    bars = page.locator("#chart-tornado tbody tr").count()
    assert bars >= 15
    assert len(tornado["yticks"]) == bars
    per_hour = page.locator("#chart-per_hour .plot").evaluate(BOXES)
    assert any("per useful GPU-hour" in t["text"] for t in per_hour["titles"])
    assert [t["text"] for t in per_hour["ticks"] if t["text"].startswith("$")]
    if SHOTS:
        page.pdf(path=f"{SHOTS}/report.pdf", format="A4", print_background=True)
    assert page.errors == []


HATCHED = """() => [...document.querySelectorAll(".pattern_filled")].map((shape) => ({
  fill: shape.style.fill,
  lines: shape.nextElementSibling ? shape.nextElementSibling.querySelectorAll("[clip-path] path").length : 0,
}))"""


def test_the_printed_report_hatches_with_lines_so_its_pdf_holds_no_pictures(
    browser, live_server, rules
):
    """Chromium prints an SVG pattern fill as a 300 dpi picture of the shape, about 77 KB a
    bar: the report's PDF was 2 MB. The report draws the same hatching as lines instead."""
    _assessment, edit, _view = make_assessment()
    page = new_page(browser)
    page.goto(f"{live_server.url}/a/{edit}/report/")
    page.wait_for_function("document.body.dataset.chartsReady === 'true'")
    hatched = page.evaluate(HATCHED)
    assert len(hatched) >= 15  # the tornado's +20 % bars, the breakdown's lines, legends
    assert all("url(" not in shape["fill"] and shape["lines"] > 0 for shape in hatched)
    page.emulate_media(media="print")
    document = page.pdf(format="A4", print_background=True)
    reader = pypdf.PdfReader(io.BytesIO(document))
    assert sum(len(sheet.images) for sheet in reader.pages) == 0
    assert len(document) < 600_000
    # The result page on screen keeps Plotly's own patterns (hover redraws them).
    page.emulate_media(media="screen")
    page.goto(f"{live_server.url}/a/{edit}/")
    page.wait_for_function("document.body.dataset.chartsReady === 'true'")
    open_folds(page, "money", "plan-fold")
    assert any("url(" in shape["fill"] for shape in page.evaluate(HATCHED))
    assert page.errors == []


@pytest.mark.parametrize("where", ["result", "report", "compare"])
def test_without_javascript_every_chart_shows_its_numbers(browser, live_server, rules, where):
    _a, first, _v = make_assessment(name="Plan A")
    _b, second, _w = make_assessment(name="Plan B", answers=make_answers("startup"))
    page = new_page(browser, javascript=False)
    page.goto(
        {
            "result": f"{live_server.url}/a/{first}/",
            "report": f"{live_server.url}/a/{first}/report/",
            "compare": f"{live_server.url}/compare/?a={first}&a={second}",
        }[where]
    )
    if where == "result":
        open_folds(page, "money", "plan-fold", javascript=False)
    figures = page.locator("figure.chart")
    expect(figures.first).to_be_visible()
    assert figures.count() == (1 if where == "compare" else len(KEYS))
    for index in range(figures.count()):
        figure = figures.nth(index)
        expect(figure.locator(".plot")).to_be_hidden()  # no empty box
        expect(figure.locator("figcaption")).to_be_visible()
        expect(figure.locator("table")).to_be_visible()
        assert figure.locator("tbody tr").count() >= 2
    if where == "compare":
        expect(page.locator("figure.chart thead")).to_contain_text("Δ Plan B − Plan A")
    shot(page, f"nojs-{where}")


def test_when_plotly_fails_to_load_the_tables_open_instead(browser, live_server, rules):
    _assessment, edit, _view = make_assessment()
    page = new_page(browser)
    page.route("**/plotly-basic-*.js", lambda route: route.abort())
    page.goto(f"{live_server.url}/a/{edit}/")
    open_folds(page, "money", "plan-fold")
    figure = page.locator("#chart-cumulative")
    expect(figure).to_have_attribute("data-state", "failed")
    expect(figure.locator(".plot")).to_be_hidden()
    expect(figure.locator("table")).to_be_visible()


def test_the_compare_chart_is_drawn_at_both_widths(browser, live_server, rules):
    _a, first, _v = make_assessment(name="Plan A")
    _b, second, _w = make_assessment(name="Plan B", answers=make_answers("startup"))
    for width in (1366, 390):
        page = new_page(browser)
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/compare/?a={first}&a={second}")
        page.wait_for_function("document.body.dataset.chartsReady === 'true'")
        expect(page.locator("#chart-compare")).to_have_attribute("data-state", "drawn")
        boxes = assert_labels_read(page, "compare")
        assert len(boxes["legend"]) == 5
        shot(page, f"compare-{width}")
        assert page.errors == []


def test_in_chinese_on_a_phone_every_label_reads_too(browser, live_server, rules):
    _assessment, edit, _view = make_assessment()
    page = new_page(browser, locale="zh-CN")
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(f"{live_server.url}/a/{edit}/")
    page.wait_for_function("document.body.dataset.chartsReady === 'true'")
    open_folds(page, "money", "plan-fold")
    for key in KEYS:
        assert_labels_read(page, key)
    shot(page, "result-zh-390")
    assert page.errors == []
