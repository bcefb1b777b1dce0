"""An admin in real Chromium: draft, change a weight, preview the impact, publish."""

import pytest
from playwright.sync_api import expect

from decider.models import Assessment, RuleSet
from decider.services import assessment_score
from tests.conftest import new_page
from tests.factories import make_answers, make_assessment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def scored(persona: str) -> Assessment:
    assessment, _edit, _view = make_assessment(answers=make_answers(persona))
    assessment_score(assessment)
    return assessment


def test_an_admin_publishes_a_draft_with_a_changed_weight(
    browser,
    live_server,
    rules,
    django_user_model,
):
    django_user_model.objects.create_superuser("admin", "a@example.com", "pw-Decider-1")
    saved = {persona: scored(persona) for persona in ("research_lab", "startup", "inference")}
    assert saved["inference"].recommendation == "onprem"

    page = new_page(browser)
    page.goto(f"{live_server.url}/admin/")
    page.get_by_label("Username").fill("admin")
    page.get_by_label("Password").fill("pw-Decider-1")
    page.get_by_role("button", name="Log in").click()

    page.get_by_role("link", name="Rule sets").click()
    page.get_by_role("link", name="Default rules from the source document").click()
    expect(page.locator("#ruleset-version")).to_contain_text("Version 1 is published")
    expect(page.get_by_role("button", name="Save")).to_have_count(0)
    page.get_by_role("button", name="Make a draft from this version").click()
    expect(page.locator("#ruleset-version")).to_contain_text("Version 2 is a draft")

    # Cost counts three times as much in the draft.
    draft = RuleSet.objects.get(version=2)
    keys = list(draft.criteria.order_by("order", "id").values_list("key", flat=True))
    weight = page.locator(f"#id_criteria-{keys.index('cost')}-weight")
    expect(weight).to_have_value("3.0")
    weight.fill("9")
    page.get_by_role("button", name="Save and continue editing").click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    page.screenshot(path="/tmp/admin-draft.png", full_page=False)

    page.get_by_role("link", name="Preview the impact").click()
    expect(page.locator("#impact-total")).to_have_text("3")
    expect(page.locator("#impact-changed")).to_have_text("1")
    row = page.locator("#impact-transitions tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("On-premises GPU cluster")
    expect(row).to_contain_text("Cloud GPU platform")
    expect(row.get_by_role("link")).to_have_text(f"#{saved['inference'].pk}")
    page.screenshot(path="/tmp/admin-impact.png", full_page=True)
    assert RuleSet.current().version == 1

    page.get_by_role("button", name="Yes, publish v2").click()
    expect(page.locator(".messagelist")).to_contain_text("Version 2 is published: new assessments")
    expect(page.locator("#ruleset-version")).to_contain_text("Version 2 is published")
    assert page.errors == []

    fresh = scored("inference")
    assert fresh.ruleset.version == 2
    assert fresh.result["scoring"]["ruleset_version"] == 2
    assert fresh.recommendation == "cloud"
    saved["inference"].refresh_from_db()
    assert (saved["inference"].ruleset.version, saved["inference"].recommendation) == (1, "onprem")


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_criteria_list_explains_the_weights_and_fits_at_1280(
    browser, live_server, rules, django_user_model, locale
):
    """Issue 52: the scale of the weights is explained, a published weight is text, and the
    list's last columns are on screen at 1280 px."""
    django_user_model.objects.create_superuser("admin", "a@example.com", "pw-Decider-1")
    page = new_page(browser, locale=locale)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/admin/login/?next=/admin/decider/criterion/")
    page.locator("#id_username").fill("admin")
    page.locator("#id_password").fill("pw-Decider-1")
    page.locator("input[type=submit]").click()
    expect(page.locator("#weight-scale")).to_be_visible()
    expect(page.locator("#result_list input[name$='-weight']")).to_have_count(0)
    expect(page.locator("#result_list .read-only-value").first).to_be_visible()
    overflow = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth,"
        " Math.round(document.querySelector('#result_list').getBoundingClientRect().right),"
        " Math.round((document.querySelector('#changelist-filter') ||"
        " {getBoundingClientRect: () => ({left: window.innerWidth})})"
        ".getBoundingClientRect().left)]"
    )
    page.screenshot(path=f"/tmp/admin-criteria-{locale}.png", full_page=False)
    scroll, inner, table_right, filters_left = overflow
    # On screen, and not under the filters beside it.
    assert scroll <= inner and table_right <= min(inner, filters_left), overflow


def test_a_publisher_reads_an_import_s_draft_and_makes_it_current(
    browser, live_server, rules, django_user_model
):
    """Issue 53 in Chromium: a recorded Azure page imported; the publisher sees the draft's
    diff and refusals, publishes the draft, and the large move stays waiting on its own."""
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from decider.models import FigureChange, ProviderPrice
    from tests.test_refresh_prices import AZURE

    ProviderPrice.objects.filter(
        provider__key="azure", name="gpu_hour_on_demand", gpu_model="h100"
    ).update(value=8.0)
    call_command("refresh_prices", "--source", "azure", "--from-file", str(AZURE))
    paul = django_user_model.objects.create_user("paul", password="pw-Decider-1", is_staff=True)
    paul.groups.add(Group.objects.get(name="publishers"))

    page = new_page(browser)
    page.goto(f"{live_server.url}/admin/")
    page.get_by_label("Username").fill("paul")
    page.get_by_label("Password").fill("pw-Decider-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Price imports").click()
    page.locator("#result_list tbody th a").first.click()
    draft = page.locator(".price-draft")
    expect(draft).to_contain_text("azure h100 on demand: 8 → 12.29 per GPU-hour")
    expect(draft).to_contain_text("large move: approve it on its own")
    expect(draft).to_contain_text("azure h100 reserved 1y: new → 7.8656 per GPU-hour")
    expect(page.locator(".field-refused_list")).to_contain_text("Windows: the price includes")

    page.get_by_role("link", name="Price imports").first.click()
    page.locator("#result_list tbody input[type=checkbox]").first.check()
    page.locator("select[name=action]").select_option("publish_drafts")
    page.get_by_role("button", name="Go").click()
    expect(page.locator(".messagelist")).to_contain_text("2 prices published")
    reserved = ProviderPrice.objects.get(
        provider__key="azure", name="gpu_hour_reserved_1y", gpu_model="h100"
    )
    assert reserved.value == pytest.approx(7.8656)
    assert (
        ProviderPrice.objects.get(
            provider__key="azure", name="gpu_hour_on_demand", gpu_model="h100"
        ).value
        == 8.0
    )  # the large move waits for its own approval
    assert FigureChange.objects.filter(large_move=True, state=FigureChange.WAITING).count() == 1
