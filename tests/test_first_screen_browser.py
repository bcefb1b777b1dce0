"""The first screen a board can quote (issue 52), in Chromium: the verdict line with the
runner-up and the difference, the options at a glance, and the break-even beside the user's
own figure, for the lab, the bank, the startup and an inference service, on a desktop and a
phone, in English and Chinese, with JavaScript on and off.

Set DECIDER_SHOTS=/some/dir to keep the screenshots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from decider import numbers
from decider.engine.outcomes import cost_option_label
from tests.factories import make_answers, make_assessment
from tests.test_result_browser import CASES as RESULT_CASES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path(os.environ.get("DECIDER_SHOTS", "/tmp/shots/first-screen"))
CASES = {
    "lab": make_answers("research_lab", gpus=256, utilization_pct=85.0, horizon_years=5),
    "bank": make_answers("research_lab", residency="all", gpus=256, gpu_model="h100"),
    "startup": make_answers("startup"),
    "service": RESULT_CASES["per_token"],  # 8B at 50 M tokens a day: per token in play
}
# (viewport, language, its locale, JavaScript on)
WAYS = {
    "desktop-en-js": ((1280, 800), "en", "en-US", True),
    "desktop-zh-nojs": ((1280, 800), "zh-hans", "zh-CN", False),
    "phone-en-nojs": ((390, 844), "en", "en-US", False),
    "phone-zh-js": ((390, 844), "zh-hans", "zh-CN", True),
}
CURRENCY = {"en": "USD", "zh-hans": "CNY"}
BESIDE = {"en": ("you expect", "you serve"), "zh-hans": ("您的预期", "您的用量")}


def _fully_on_first_screen(page, locator) -> bool:
    box = locator.bounding_box()
    return (
        box is not None
        and box["height"] > 0
        and box["y"] + box["height"] <= (page.viewport_size["height"])
    )


@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize("case", list(CASES))
def test_the_first_screen_holds_the_verdict_the_options_and_the_break_even(
    browser, live_server, rules, case, way
):
    (width, height), language, locale, javascript = WAYS[way]
    answers = dict(CASES[case])
    answers.pop("cloud_share_pct", None)
    _assessment, edit, _view = make_assessment(answers=answers)
    currency = CURRENCY[language]
    reader = Client(HTTP_ACCEPT_LANGUAGE=language)
    document = reader.get(reverse("decider-edit-json", args=[edit]), {"currency": currency})
    result = document.json()["result"]
    rows = result["decision"]["options"]
    recommended = next(row for row in rows if row["recommended"])
    others = [row for row in rows if not row["recommended"]]

    context = browser.new_context(
        locale=locale, java_script_enabled=javascript, viewport={"width": width, "height": height}
    )
    page = context.new_page()
    page.goto(f"{live_server.url}{reverse('decider-result', args=[edit])}?currency={currency}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"{case}-{way}.png")

    # The verdict line: the option, what it costs, the runner-up and the difference.
    verdict = page.locator("#verdict-line")
    assert _fully_on_first_screen(page, verdict), verdict.bounding_box()
    said = verdict.inner_text()
    with_language = "zh-hans" if language != "en" else "en"
    assert numbers.money_full(recommended["present_value"], currency, with_language) in said
    if others:
        runner = min(others, key=lambda row: row["present_value"])
        gap = abs(runner["present_value"] - recommended["present_value"])
        assert numbers.money_full(gap, currency, with_language) in said, said
        if runner["outcome"] != "cloud":
            with translation.override(with_language):
                assert cost_option_label(runner["outcome"]) in said, said

    # The options at a glance: each outcome once, the recommendation's row on screen.
    glance = page.locator("#at-a-glance")
    listed = glance.locator("li").evaluate_all("items => items.map(i => i.dataset.outcome)")
    assert listed[: len(rows)] == [row["outcome"] for row in rows]
    assert _fully_on_first_screen(page, glance.locator("li.recommended")), glance.bounding_box()

    # Where the money turns, beside the user's own figure, when there is such a point: the
    # lab's utilization, the service's volume of tokens (the bank may rent nothing).
    assert bool(result["summary"]["break_even"]) == (case in ("lab", "service"))
    if result["summary"]["break_even"]:
        line = page.locator(".break-even-line").first
        assert _fully_on_first_screen(page, line), line.bounding_box()
        assert any(words in line.inner_text() for words in BESIDE[language])
    context.close()
