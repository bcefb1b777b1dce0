"""Forms in Debian's Chromium: Enter means Next, errors take the focus, switching keeps
what was typed, the keyboard reaches everything and sees where it is."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.conftest import new_page
from tests.factories import make_answers, make_assessment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots/forms")
BOTH = pytest.mark.parametrize("javascript", [True, False], ids=["htmx", "no-js"])


def open_step(browser, live_server, slug="utilization", *, javascript=True, **page_kwargs):
    _assessment, token, _view = make_assessment(answers=make_answers("growth"))
    page = new_page(browser, javascript=javascript, **page_kwargs)
    page.goto(f"{live_server.url}/a/{token}/step/{slug}/")
    return page, token


def focused_id(page) -> str:
    return page.evaluate("document.activeElement && document.activeElement.id")


@BOTH
def test_enter_in_a_number_field_means_next(browser, live_server, rules, javascript):
    page, _token = open_step(browser, live_server, javascript=javascript)
    gpus = page.get_by_label("GPUs needed at peak")
    gpus.fill("96")
    gpus.press("Enter")
    expect(page.get_by_role("heading", name="Operations capability")).to_be_visible()
    page.get_by_role("button", name="Back").click()
    expect(page.get_by_label("GPUs needed at peak")).to_have_value("96")
    assert page.errors == []


@BOTH
def test_a_bad_value_stays_typed_and_the_summary_takes_the_focus(
    browser, live_server, rules, javascript
):
    page, _token = open_step(browser, live_server, javascript=javascript)
    page.get_by_label("Expected average GPU utilization (%)").fill("150")
    gpus = page.get_by_label("GPUs needed at peak")
    gpus.fill("1e9")
    gpus.press("Enter")

    summary = page.locator("#error-summary")
    expect(summary).to_be_focused()
    expect(summary.get_by_role("link")).to_have_text(
        [
            "Expected average GPU utilization (%): enter a number from 0 to 100 %.",
            "GPUs needed at peak: enter a whole number from 1 to 100,000 GPUs.",
        ]
    )
    expect(gpus).to_have_value("1e9")
    expect(gpus).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Expected average GPU utilization (%)")).to_have_value("150")
    # The summary's link takes the keyboard to the field.
    summary.get_by_role("link", name=re.compile("GPUs needed at peak")).click()
    expect(gpus).to_be_focused()
    assert page.errors == []


@BOTH
def test_back_with_a_bad_value_keeps_it_and_says_why(browser, live_server, rules, javascript):
    page, _token = open_step(browser, live_server, javascript=javascript)
    page.get_by_label("GPUs needed at peak").fill("0")
    page.get_by_role("button", name="Back").click()
    expect(page.get_by_role("heading", name="Utilization and scale")).to_be_visible()
    expect(page.locator("#error-summary")).to_contain_text("Not saved yet")
    expect(page.get_by_label("GPUs needed at peak")).to_have_value("0")


@BOTH
def test_switching_language_keeps_what_was_typed_and_not_saved(
    browser, live_server, rules, javascript
):
    page, _token = open_step(browser, live_server, javascript=javascript)
    page.get_by_label("GPUs needed at peak").fill("96")
    page.get_by_label("Planning horizon (years)").fill("12")
    page.get_by_role("button", name="简体中文").click()
    expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
    expect(page.locator("#id_gpus")).to_have_value("96")
    expect(page.locator("#id_horizon_years")).to_have_value("12")
    expect(page.locator("#field-horizon_years .error")).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"step-switched-zh-{javascript}.png", full_page=True)
    page.get_by_role("button", name="USD").click()
    expect(page.locator("#id_gpus")).to_have_value("96")
    expect(page.get_by_role("button", name="USD")).to_have_attribute("aria-pressed", "true")
    assert page.errors == []


@BOTH
def test_a_changed_answer_goes_straight_to_the_result(browser, live_server, rules, javascript):
    page, token = open_step(browser, live_server, javascript=javascript)
    page.get_by_label("GPUs needed at peak").fill("128")
    page.get_by_role("button", name="Save and see the result").click()
    expect(page).to_have_url(f"{live_server.url}/a/{token}/")
    expect(page.locator("#answers")).to_contain_text("128")


def test_the_skip_link_is_the_first_stop_and_jumps_to_the_content(browser, live_server, rules):
    page, _token = open_step(browser, live_server)
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_visible()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    page.keyboard.press("Tab")  # the next stop is inside the content, not the header
    assert page.evaluate("document.querySelector('main').contains(document.activeElement)")


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _rgb(css: str) -> tuple[int, int, int]:
    r, g, b = (int(float(v)) for v in re.findall(r"[\d.]+", css)[:3])
    return r, g, b


BACKGROUND_JS = """el => {
  for (let node = el.parentElement; node; node = node.parentElement) {
    const colour = getComputedStyle(node).backgroundColor;
    if (colour !== 'rgba(0, 0, 0, 0)' && colour !== 'transparent') return colour;
  }
  return 'rgb(255, 255, 255)';
}"""


def test_the_focus_ring_stands_out_3_to_1_from_its_background(browser, live_server, rules):
    page, _token = open_step(browser, live_server)
    stops = 0
    while True:  # every stop once: links, buttons, radios, text boxes
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement === document.body") or stops > 60:
            break
        style = page.evaluate(
            "() => { const s = getComputedStyle(document.activeElement);"
            " return [s.outlineStyle, s.outlineWidth, s.outlineColor]; }"
        )
        element = page.evaluate("document.activeElement.outerHTML.slice(0, 120)")
        assert style[0] != "none", element
        assert float(style[1].removesuffix("px")) >= 2, element
        background = page.evaluate_handle("document.activeElement").evaluate(BACKGROUND_JS)
        assert contrast(_rgb(style[2]), _rgb(background)) >= 3, (element, style, background)
        stops += 1
    assert stops >= 20


@pytest.mark.parametrize("width", [1366, 390])
def test_screenshots_of_a_step_in_error(browser, live_server, rules, width):
    page, _token = open_step(browser, live_server)
    page.set_viewport_size({"width": width, "height": 1000})
    page.get_by_label("GPUs needed at peak").fill("1e9")
    page.get_by_label("GPUs needed at peak").press("Enter")
    expect(page.locator("#error-summary")).to_be_focused()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"step-error-{width}.png", full_page=True)
    page.goto(page.url.replace("/utilization/", "/ops/"))
    page.screenshot(path=SHOTS / f"step-actions-{width}.png", full_page=True)
    actions = page.locator(".actions")
    box = actions.get_by_role("button", name="Back").bounding_box()
    next_box = actions.get_by_role("button", name="Next").bounding_box()
    if width > 500:
        assert box["x"] < next_box["x"]  # Back on the left
