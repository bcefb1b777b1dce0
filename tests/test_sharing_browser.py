"""Sharing in real Chromium: three people, three fresh browsers, one assessment."""

import pytest
from playwright.sync_api import expect

from tests.conftest import new_page, open_folds

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

A4_WIDTH_PX = 794  # 210 mm at 96 px per inch


def _create_and_name(page, live_server) -> tuple[str, str]:
    """The CTO starts from a profile, goes straight to the result and names it."""
    page.goto(live_server.url)
    page.get_by_label("Growing company with mixed workloads").check()
    page.get_by_role("button", name="Start the assessment").click()
    page.goto(page.url.replace("/step/workload/", "/"))
    expect(page.locator("#recommendation")).to_be_visible()
    page.get_by_role("link", name="Share", exact=True).click()
    page.get_by_label("Name of this assessment").fill("2027 GPU plan")
    page.get_by_role("button", name="Save name").click()
    expect(page.get_by_text("Name saved.")).to_be_visible()
    return page.locator("#edit-link").input_value(), page.locator("#view-link").input_value()


def test_one_shares_a_second_only_reads_a_third_edits(browser, live_server, rules):
    cto = new_page(browser)
    edit_url, view_url = _create_and_name(cto, live_server)
    assert edit_url != view_url and "/v/" in view_url
    cto.context.grant_permissions(["clipboard-read", "clipboard-write"])
    cto.locator('[data-copy="view-link"]').click()
    assert cto.evaluate("navigator.clipboard.readText()") == view_url

    # The finance lead: a fresh browser with the view-only link.
    finance = new_page(browser)
    finance.goto(view_url)
    expect(finance.locator("#recommendation")).to_be_visible()
    expect(finance.locator("#view-only-note")).to_be_visible()
    expect(finance.get_by_text("2027 GPU plan").first).to_be_visible()
    expect(finance.get_by_role("link", name="Change answers")).to_have_count(0)
    expect(finance.get_by_role("link", name="change", exact=True)).to_have_count(0)
    expect(finance.locator("#share")).to_have_count(0)
    # The only forms in the page try a change or make the reader's own copy: none writes here.
    actions = finance.locator("main form").evaluate_all("fs => fs.map(f => f.action)")
    assert sorted(a.rsplit("/", 2)[-2] for a in actions) == ["scenario", "what-if"]
    assert all("/v/" in a for a in actions)
    token = view_url.rstrip("/").rsplit("/", 1)[1]
    response = finance.goto(f"{live_server.url}/a/{token}/step/utilization/")
    assert response.status == 404
    assert finance.errors == []

    # The infrastructure lead: another fresh browser, with the edit link.
    infra = new_page(browser)
    infra.goto(edit_url)
    open_folds(infra, "answers-fold")
    infra.get_by_role("link", name="change", exact=True).nth(1).click()
    expect(infra.get_by_role("heading", name="Utilization and scale")).to_be_visible()
    infra.get_by_label("Expected average GPU utilization (%)").fill("35")
    for heading in ("Operations capability", "Data and compliance", "Budget"):
        infra.get_by_role("button", name="Next").click()
        expect(infra.get_by_role("heading", name=heading)).to_be_visible()
    infra.get_by_role("button", name="See the recommendation").click()
    expect(infra.locator("#answers")).to_contain_text("35 %")

    # The finance lead opens the view link again and sees the new answer, still read-only.
    finance.goto(view_url)
    expect(finance.locator("#answers")).to_contain_text("35 %")
    expect(finance.locator("main form")).to_have_count(2)  # what-if, own copy


def test_a_revoked_view_link_stops_working_in_the_other_browser(browser, live_server, rules):
    cto = new_page(browser)
    _edit_url, view_url = _create_and_name(cto, live_server)
    reader = new_page(browser)
    assert reader.goto(view_url).status == 200
    cto.once("dialog", lambda dialog: dialog.accept())  # "The view-only link stops working…"
    cto.get_by_role("button", name="Revoke the view-only link").click()
    expect(cto.locator("#view-link-revoked")).to_be_visible()
    assert reader.goto(view_url).status == 404
    cto.get_by_role("button", name="Make a new view-only link").click()
    new_view_url = cto.locator("#view-link").input_value()
    assert new_view_url != view_url
    assert reader.goto(new_view_url).status == 200


def _plots_fit(page, width: int) -> None:
    plots = page.locator(".plot")
    expect(plots.first).to_have_attribute("data-drawn", "true")
    for index in range(plots.count()):
        box = plots.nth(index).locator("svg.main-svg").first.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (index, box)


def test_print_preview_keeps_the_charts_inside_the_page(browser, live_server, rules):
    page = new_page(browser)
    _edit_url, view_url = _create_and_name(page, live_server)
    page.set_viewport_size({"width": A4_WIDTH_PX, "height": 1123})

    page.goto(view_url)
    page.wait_for_selector("body[data-charts-ready]")
    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")  # what printing sends
    _plots_fit(page, A4_WIDTH_PX)
    expect(page.locator(".site-header")).to_be_hidden()
    expect(page.locator(".modebar-btn")).to_have_count(0)

    page.emulate_media(media="screen")
    page.goto(view_url + "report/")
    page.emulate_media(media="print")
    _plots_fit(page, A4_WIDTH_PX)
    expect(page.locator(".report-tools")).to_be_hidden()
    assert page.errors == []
