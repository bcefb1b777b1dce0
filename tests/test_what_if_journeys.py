""" "Try a change" on assessments made as a person makes them: the wizard walked in Chromium.

The what-if re-checks every saved answer, so it meets whatever the wizard stored for the
questions a person leaves blank ("Where the compute will run", "Count the team you already
employ", "Whom would you rent cloud GPUs from?"). Each journey ends with a change of the demand
on the result page, with JavaScript on and off.
"""

import re

import pytest
from playwright.sync_api import expect

from decider.models import Assessment
from tests.conftest import new_page, open_folds

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STEP_HEADINGS = ("Utilization and scale", "Operations capability", "Data and compliance", "Budget")


def start(page, live_server, preset: str | None) -> None:
    page.goto(live_server.url)
    if preset:
        page.get_by_label(preset).check()
    page.get_by_role("button", name="Start the assessment").click()
    expect(page.get_by_role("heading", name="Workload and stage")).to_be_visible()


def next_through_every_step(page) -> None:
    for heading in STEP_HEADINGS:
        page.get_by_role("button", name="Next").click()
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
    page.get_by_role("button", name="See the recommendation").click()
    expect(page.locator("#recommendation")).to_be_visible()


def choose(page, question: str, answer: str) -> None:
    page.get_by_role("group", name=question).get_by_label(answer, exact=True).check()


def fill_every_step_by_hand(page) -> None:
    """Blank answers, each required question answered, each optional one left as it is."""
    choose(page, "Which describes you best?", "Growing company with mixed workloads")
    choose(page, "Main workload", "Mixed")
    choose(page, "Is the algorithm direction settled?", "Yes")
    choose(page, "How does your demand for GPUs vary?", "Moderate swings")
    choose(page, "How fast must new capacity arrive?", "Within days")
    for question in (
        "Does inference need strict latency and deterministic performance?",
        "Do you need to expand into other regions?",
        "Do you need to customise network or storage topology deeply?",
    ):
        choose(page, question, "No")
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("heading", name="Utilization and scale")).to_be_visible()
    page.get_by_label("Expected average GPU utilization (%)").fill("60")
    page.get_by_label("GPUs needed at peak").fill("32")
    page.get_by_label("Planning horizon (years)").fill("3")
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("heading", name="Operations capability")).to_be_visible()
    for question in (
        "Can someone on the team handle hardware failures independently?",
        "Can the team tune a parallel file system?",
        "Can the team resolve driver and CUDA compatibility problems?",
        "Do you have data-centre or colocation space of your own?",
    ):
        choose(page, question, "Yes")
    page.get_by_label("Size of the infrastructure team (full-time equivalents)").fill("2")
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("heading", name="Data and compliance")).to_be_visible()
    choose(
        page, "Must data stay inside your premises (data may not leave the domain)?", "No such rule"
    )
    choose(page, "How sensitive is the data?", "Medium")
    choose(page, "Are you concerned about the cloud provider’s legal jurisdiction?", "No")
    page.get_by_label("Size of the training data (TB)").fill("20")
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("heading", name="Budget")).to_be_visible()
    choose(page, "Is capital budget available up front?", "Yes")
    page.get_by_role("button", name="See the recommendation").click()
    expect(page.locator("#recommendation")).to_be_visible()


def enter_two_workloads(page) -> None:
    page.get_by_role("button", name="Next").click()
    page.get_by_role("link", name="Enter each workload").click()
    for number, (name, kind, gpus, pct, shape) in enumerate(
        [
            ("serving", "inference", "24", "90", "steady"),
            ("training", "training", "40", "35", "peaky"),
        ]
    ):
        page.locator(f"#id_form-{number}-name").fill(name)
        page.locator(f"#id_form-{number}-workload").select_option(kind)
        page.locator(f"#id_form-{number}-gpus").fill(gpus)
        page.locator(f"#id_form-{number}-utilization_pct").fill(pct)
        page.locator(f"#id_form-{number}-demand_shape").select_option(shape)
    page.get_by_role("button", name="Use these workloads").click()
    expect(page.get_by_label("GPUs needed at peak")).to_have_value("64")
    for heading in STEP_HEADINGS[1:]:
        page.get_by_role("button", name="Next").click()
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
    page.get_by_role("button", name="See the recommendation").click()
    expect(page.locator("#recommendation")).to_be_visible()


def try_a_change_of_demand(page, *, javascript: bool) -> None:
    """Open "Try a change", set the utilization (or, for a demand given as a steady base and
    bursts, the time at the peak) to 40 %, and see the result follow, with no error."""
    open_folds(page, "what-if-fold", javascript=javascript)
    form = page.locator("#what-if-form")
    field = form.locator("#what-if-utilization_pct")
    if not field.count():
        field = form.locator("#what-if-peak_share_pct")
    field.fill("40")
    form.get_by_role("button", name="Show the result").click()
    expect(page.locator("#what-if-notice")).to_contain_text("What if: not saved.")
    expect(page).to_have_url(re.compile(r"/what-if/\?"))
    expect(page.locator("#what-if .error")).to_have_count(0)
    expect(page.locator("#what-if-form")).not_to_contain_text("This field is required")
    expect(page.locator("#recommendation")).to_be_visible()
    expect(page.locator("#what-if-form input[value='40']")).to_have_count(1)


def stored_blanks() -> list[str]:
    """The answers any saved assessment holds as an empty string."""
    return [
        key for a in Assessment.objects.all() for key, value in a.answers.items() if value == ""
    ]


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_next_through_every_step_then_a_change(browser, live_server, rules, javascript):
    page = new_page(browser, javascript=javascript)
    start(page, live_server, "Startup or exploration phase")
    next_through_every_step(page)
    try_a_change_of_demand(page, javascript=javascript)
    assert stored_blanks() == []
    if javascript:
        assert page.errors == []


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_preset_saved_at_once_then_a_change(browser, live_server, rules, javascript):
    page = new_page(browser, javascript=javascript)
    start(page, live_server, "Research institution or large AI lab")
    page.get_by_role("button", name="Save and see the result").click()
    expect(page.locator("#recommendation")).to_be_visible()
    try_a_change_of_demand(page, javascript=javascript)
    assert stored_blanks() == []


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_every_step_filled_by_hand_then_a_change(browser, live_server, rules, javascript):
    page = new_page(browser, javascript=javascript)
    start(page, live_server, None)
    fill_every_step_by_hand(page)
    try_a_change_of_demand(page, javascript=javascript)
    assert stored_blanks() == []


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_after_the_workloads_page_then_a_change(browser, live_server, rules, javascript):
    page = new_page(browser, javascript=javascript)
    start(page, live_server, "Growing company with mixed workloads")
    enter_two_workloads(page)
    try_a_change_of_demand(page, javascript=javascript)
    # The demand tried is no longer the two workloads pooled: the page says they are set aside.
    expect(page.locator("#what-if-notice")).to_contain_text("workloads")
    assert stored_blanks() == []


OUTSIDE_THE_CARD = """() => {
    const card = document.querySelector('#what-if').getBoundingClientRect();
    return [...document.querySelectorAll('#what-if *')]
        .filter(e => e.getBoundingClientRect().right > card.right + 0.5)
        .map(e => e.textContent.trim().slice(0, 40));
}"""
SIDEWAYS = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_what_if_and_the_lists_of_assessments_fit_a_phone(browser, live_server, rules, locale):
    page = new_page(browser, locale=locale)
    page.goto(live_server.url)
    page.locator("input[name=preset][value=startup]").check()
    page.locator("form.start button[type=submit]").click()
    page.locator("button[name=finish]").click()
    expect(page.locator("#recommendation")).to_be_visible()
    open_folds(page, "what-if-fold")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 844})
        # The price's unit ("USD per GPU-hour", "元/卡·小时") stays inside its card.
        assert page.evaluate(OUTSIDE_THE_CARD) == [], width
    page.set_viewport_size({"width": 390, "height": 844})
    for path in ("/", "/mine/"):
        page.goto(f"{live_server.url}{path}")
        expect(page.locator("table.recent-list tbody tr")).to_have_count(1)
        assert page.evaluate(SIDEWAYS) == 0, path
