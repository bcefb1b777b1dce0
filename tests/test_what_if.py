"""Trying a change on the result page: scored in place, nothing saved, kept only on request."""

import re

import pytest
from django.urls import reverse

from decider.models import Assessment
from tests.conftest import new_page, open_folds
from tests.factories import make_answers, make_assessment

pytestmark = pytest.mark.django_db


def levels_answers(**changes):
    answers = make_answers(
        "inference", gpus=96, base_gpus=64, peak_share_pct=20.0, horizon_years=5, **changes
    )
    del answers["utilization_pct"], answers["demand_shape"]
    return answers


def saved_scenario(client, edit):
    """The result shown, then saved as a scenario of 128 GPUs at $2.50 an hour: the
    redirect to the scenario."""
    client.get(reverse("decider-result", args=[edit]))
    form = {"gpus": 128, "base_gpus": 64, "peak_share_pct": 20, "horizon_years": 5}
    response = client.post(
        reverse("decider-edit-scenario", args=[edit]), form | {"gpu_hour_on_demand": 2.5}
    )
    assert response.status_code == 302
    return response


def what_if(client, name, token, **values):
    return client.get(reverse(name, args=[token]), values)


def summary_total(page: str, option: str) -> str:
    """The plain total of one option in the executive summary's table."""
    row = re.search(r"Total over \d+ months</th>(.*?)</tr>", page, re.S)
    assert row, "the summary has a total row"
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", row.group(1))
    options = ["onprem", "cloud_on_demand", "cloud_reserved", "cloud_committed", "hybrid"]
    return cells[options.index(option)]


def test_a_change_is_scored_in_place_and_nothing_is_saved(client, rules):
    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    saved_page = client.get(reverse("decider-result", args=[edit])).content.decode()
    assessment.refresh_from_db()
    before = (assessment.answers, assessment.revision, assessment.result)

    page = what_if(
        client,
        "decider-edit-what-if",
        edit,
        gpus=256,
        utilization_pct=90,
        horizon_years=5,
        gpu_hour_on_demand=4.0,
    ).content.decode()

    assert "What if: not saved." in page
    assert "GPUs needed at peak" in page.split('id="what-if-notice"')[1].split("</div>")[0]
    assert summary_total(page, "onprem") != summary_total(saved_page, "onprem")
    assert 'value="256"' in page  # the form shows what was tried
    assessment.refresh_from_db()
    assert (assessment.answers, assessment.revision, assessment.result) == before
    assert Assessment.objects.count() == 1


def test_a_what_if_keeps_the_pinned_price_figures(client, rules):
    from decider.models import Assumption

    assessment, edit, _view = make_assessment()
    client.get(reverse("decider-result", args=[edit]))  # scored with today's figures
    Assumption.objects.filter(name="server_price").update(value=1.0)  # a new price list
    page = what_if(
        client,
        "decider-edit-what-if",
        edit,
        gpus=64,
        utilization_pct=55,
        horizon_years=3,
        gpu_hour_on_demand=2.99,
    ).content.decode()
    # Owning still costs servers at the pinned price, not $1 apiece.
    onprem = int(summary_total(page, "onprem").replace("$", "").replace(",", ""))
    assert onprem > 1_000_000


@pytest.mark.parametrize(
    ("values", "field", "words"),
    [
        ({"gpus": "0"}, "gpus", "GPUs needed at peak"),
        ({"gpus": "1e9"}, "gpus", "100,000"),
        ({"gpu_hour_on_demand": "cheap"}, "gpu_hour_on_demand", "Cloud on-demand price"),
        (
            {"base_gpus": "120"},
            "base_gpus",
            "GPUs busy around the clock (the steady base): must not exceed",
        ),
    ],
)
def test_bad_input_gets_its_message_next_to_the_field(client, rules, values, field, words):
    assessment, edit, _view = make_assessment(answers=levels_answers())
    form = {"gpus": 96, "base_gpus": 64, "peak_share_pct": 20, "horizon_years": 5}
    form |= {"gpu_hour_on_demand": 2.99} | values
    response = what_if(client, "decider-edit-what-if", edit, **form)
    assert response.status_code == 200
    page = response.content.decode()
    error = re.search(rf'id="what-if-{field}_error">(.*?)</p>', page, re.S)
    assert error and words in error.group(1), page[page.find('id="what-if"') :][:3000]
    assert "What if: not saved." not in page  # the saved result stays on show
    assert f'value="{values[field]}"' in page  # what was typed is still there


def test_a_scenario_is_a_copy_of_its_own_and_the_original_stays(client, rules):
    original, edit, _view = make_assessment(name="Plan A", answers=levels_answers())
    response = saved_scenario(client, edit)
    new_edit = response["Location"].strip("/").split("/")[-1]
    assert new_edit != edit
    scenario = Assessment.objects.by_token(new_edit, kind="edit")
    assert scenario.name == "Scenario of Plan A"
    assert scenario.answers["gpus"] == 128
    assert scenario.answers["costs"]["gpu_hour_on_demand"] == 2.5
    assert not scenario.needs_scoring()
    page = client.get(response["Location"]).content.decode()
    assert "Saved as a scenario" in page
    original.refresh_from_db()
    assert original.answers["gpus"] == 96 and "costs" not in original.answers


def test_a_viewer_can_try_changes_and_make_a_copy_of_their_own(client, rules):
    original, edit, view = make_assessment(name="Board pack")
    client.get(reverse("decider-result", args=[edit]))
    page = client.get(reverse("decider-view", args=[view])).content.decode()
    assert "Make my own copy" in page and "Try a change" in page
    form = {"gpus": 64, "utilization_pct": 30, "horizon_years": 3, "gpu_hour_on_demand": 2.99}
    tried = what_if(client, "decider-view-what-if", view, **form)
    assert "What if: not saved." in tried.content.decode()

    response = client.post(reverse("decider-view-scenario", args=[view]), form)
    assert response.status_code == 302 and response["Location"].startswith("/a/")
    mine = Assessment.objects.by_token(response["Location"].split("/")[2], kind="edit")
    assert mine.pk != original.pk and mine.answers["utilization_pct"] == 30
    original.refresh_from_db()
    assert original.answers["utilization_pct"] == make_answers()["utilization_pct"]


@pytest.mark.django_db(transaction=True)
def test_the_result_follows_a_change_in_the_browser(browser, live_server, rules):
    _assessment, edit, _view = make_assessment(answers=levels_answers())
    page = new_page(browser)
    page.goto(f"{live_server.url}/a/{edit}/")
    page.wait_for_selector("body[data-charts-ready]")
    open_folds(page, "money", "what-if-fold")
    before = page.locator("#options table [data-option=onprem]").count()
    assert before == 1
    saved_total = page.locator("#options table tbody tr").nth(1).inner_text()

    page.fill("#what-if-gpus", "160")
    page.fill("#what-if-base_gpus", "150")
    page.click("#what-if button[type=submit]")
    page.wait_for_selector("#what-if-notice")
    assert "/what-if/?" in page.url  # reload or share shows the same trial
    # The folds the reader opened stay open in the new result, its charts drawn.
    assert page.locator("#options table tbody tr").nth(1).inner_text() != saved_total
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 4")
    assert page.evaluate("document.activeElement.id") == "what-if-notice"

    page.fill("#what-if-gpus", "10")  # below the base: refused, and said where
    page.click("#what-if button[type=submit]")
    page.wait_for_selector("#what-if-base_gpus_error")
    assert page.input_value("#what-if-gpus") == "10"
    assert page.errors == []


def test_a_price_of_ones_own_stays_through_a_what_if_and_a_scenario(client, rules):
    answers = make_answers("growth")
    answers["costs"] = {"gpu_hour_on_demand": 9.0}
    _original, edit, _view = make_assessment(answers=answers)
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    price = re.search(r'<input[^>]*name="gpu_hour_on_demand"[^>]*>', page).group(0)
    assert 'value="9.0"' in price  # the form starts from the user's own price
    form = {"gpus": 64, "utilization_pct": 55, "horizon_years": 3, "gpu_hour_on_demand": 9.0}
    tried = what_if(client, "decider-edit-what-if", edit, **form).content.decode()
    assert "Nothing changed from the saved answers." in tried
    assert summary_total(tried, "cloud_on_demand") == summary_total(page, "cloud_on_demand")
    response = client.post(reverse("decider-edit-scenario", args=[edit]), form)
    scenario = Assessment.objects.by_token(response["Location"].split("/")[2], kind="edit")
    assert scenario.answers["costs"] == {"gpu_hour_on_demand": 9.0}


def test_the_demand_levels_cannot_be_left_out_of_a_what_if(client, rules):
    _original, edit, _view = make_assessment(answers=levels_answers())
    form = {"gpus": 96, "base_gpus": "", "peak_share_pct": 20, "horizon_years": 5}
    page = what_if(
        client, "decider-edit-what-if", edit, **form, gpu_hour_on_demand=2.99
    ).content.decode()
    error = re.search(r'id="what-if-base_gpus_error">(.*?)</p>', page, re.S)
    assert error and error.group(1).startswith("GPUs busy around the clock")
    assert "missing (allowed" not in page and "null" not in page


def test_an_empty_what_if_goes_back_to_the_result(client, rules):
    _original, edit, view = make_assessment()
    response = client.get(reverse("decider-view-what-if", args=[view]))
    assert response.status_code == 302 and response["Location"] == f"/v/{view}/"


@pytest.mark.parametrize("persona", ["growth", "startup"])
def test_a_what_if_shows_the_costs_saving_those_answers_would_show(client, rules, persona):
    """The what-if's page reuses the costs its scoring computed: they must be the costs of
    an assessment saved with the same answers, option by option."""
    answers = make_answers(persona)
    _a, edit, _v = make_assessment(answers=answers)
    tried = {"gpus": 200, "utilization_pct": 85, "horizon_years": 4}
    _b, saved_edit, _w = make_assessment(answers={**answers, **tried})
    # The price the what-if offers: the one the result's cloud is priced at.
    result = client.get(reverse("decider-result", args=[edit])).content.decode()
    shown = re.search(r'id="what-if-gpu_hour_on_demand"[^>]*value="([0-9.]+)"', result)
    shown = shown or re.search(r'value="([0-9.]+)"[^>]*id="what-if-gpu_hour_on_demand"', result)
    price = float(shown.group(1))

    page = what_if(
        client, "decider-edit-what-if", edit, **tried, gpu_hour_on_demand=price
    ).content.decode()
    saved = client.get(reverse("decider-result", args=[saved_edit])).content.decode()

    assert "What if: not saved." in page
    for option in ["onprem", "cloud_on_demand", "cloud_reserved", "cloud_committed", "hybrid"]:
        assert summary_total(page, option) == summary_total(saved, option), option


@pytest.mark.django_db
def test_on_a_cny_page_the_price_is_asked_in_cny_and_converted_back(client, rules):
    """Issue 34: a global (USD) assessment shown in CNY asks for the cloud price in CNY."""
    from decider import services
    from decider.whatif import PRICE, WhatIfForm

    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    services.assessment_score(assessment)
    figures = services.scored_figures(assessment)
    rate = figures["usd_cny"].value
    usd = figures[PRICE].value
    page = client.get(reverse("decider-result", args=[edit]) + "?currency=CNY").content.decode()
    shown = re.search(r'id="what-if-gpu_hour_on_demand"[^>]*value="([0-9.]+)"', page)
    shown = shown or re.search(r'value="([0-9.]+)"[^>]*id="what-if-gpu_hour_on_demand"', page)
    assert float(shown.group(1)) == pytest.approx(usd * rate, abs=0.006)
    assert "CNY per GPU-hour" in page

    # The price as shown is no change; another is converted back to the price set's USD.
    same = WhatIfForm(
        {"gpus": 64, "utilization_pct": 55, "horizon_years": 3, PRICE: shown.group(1)},
        answers=assessment.answers,
        figures=figures,
        currency="CNY",
    )
    assert same.is_valid(), same.errors
    assert PRICE not in same.trial.get("costs", {})
    typed = round(usd * rate / 2, 2)
    half = WhatIfForm(
        {"gpus": 64, "utilization_pct": 55, "horizon_years": 3, PRICE: str(typed)},
        answers=assessment.answers,
        figures=figures,
        currency="CNY",
    )
    assert half.is_valid(), half.errors
    assert half.trial["costs"][PRICE] == pytest.approx(typed / rate, abs=1e-4)
    # And back on the trial's page it reads as typed, in CNY.
    trial = client.get(
        reverse("decider-edit-what-if", args=[edit]),
        {"gpus": 64, "utilization_pct": 55, "horizon_years": 3, PRICE: typed, "currency": "CNY"},
    ).content.decode()
    assert f'value="{typed:g}"' in trial or f'value="{typed}"' in trial


@pytest.mark.django_db
def test_a_saved_scenario_s_first_view_computes_no_cost_section_again(client, rules, engine_calls):
    """Computed once, kept (issue 50): saving a what-if as a scenario scores it, and its
    first view found nothing kept and computed the cost section and the odds again."""
    _original, edit, _view = make_assessment(name="Plan A", answers=levels_answers())
    response = saved_scenario(client, edit)
    counted = engine_calls("answers_costs", "answers_odds")
    page = client.get(response["Location"], {"currency": "USD"})
    assert page.status_code == 200 and "Saved as a scenario" in page.content.decode()
    assert "answers_costs" not in counted
