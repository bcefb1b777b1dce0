"""A reality check on the utilization a plan expects (issue 51): published fleets rarely run
as busy as plans say, so an answer above 70 % is kept, the result says how rare it is, and
the odds draw it down as far as the busiest published trace; below 15 % the result says
renting is the usual answer."""

from __future__ import annotations

import pytest
from django.urls import reverse

from decider.engine import odds, reality
from decider.engine.ranges import SPREADS
from tests.factories import make_answers, make_assessment

pytestmark = pytest.mark.django_db

DEFAULT_LOW = SPREADS["utilization"].low


def test_every_trace_is_sourced_and_dated():
    for trace in reality.TRACES:
        assert trace.source and trace.as_of[:2] == "20"
        assert trace.what.en and trace.what.zh and trace.what.en != trace.what.zh


@pytest.mark.parametrize("utilization", [0.3, 0.5, 0.7])
def test_an_ordinary_utilization_is_drawn_over_the_default_range(utilization):
    assert reality.utilization_check(utilization) is None
    drawn = odds.ranges_of(None, utilization=utilization)["utilization"]
    assert drawn == (DEFAULT_LOW, SPREADS["utilization"].high)


@pytest.mark.parametrize("utilization", [0.85, 0.9, 1.0])
def test_a_busy_answer_is_drawn_down_to_the_busiest_published_fleet(utilization):
    low, high = odds.ranges_of(None, utilization=utilization)["utilization"]
    assert low < DEFAULT_LOW and high == SPREADS["utilization"].high
    assert utilization * low == pytest.approx(reality.SEEN_BUSIEST)


def test_a_low_end_the_answers_give_is_kept():
    given = {"utilization": {"low": 0.95}}
    assert odds.ranges_of(given, utilization=0.9)["utilization"][0] == 0.95


def result_page(client, answers, language):
    _assessment, edit, _view = make_assessment(answers=answers)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    document = client.get(reverse("decider-edit-json", args=[edit])).json()["result"]
    return page, document


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "more than published fleets reach"),
        ("zh-hans", "高于已公开的GPU集群实际达到的水平"),
    ],
)
def test_an_answer_of_90_percent_shows_the_check_and_widens_the_odds(client, rules, language, said):
    page, document = result_page(
        client, make_answers("research_lab", utilization_pct=90.0), language
    )
    assert said in page
    assert ("Philly" in page) and ("Acme" in page)
    check = document["costs"]["utilization_check"]
    assert check["kind"] == "busy" and check["odds_low_pct"] == pytest.approx(62, abs=0.01)
    drawn = document["odds"]["ranges"]["utilization"]
    assert drawn["low"] == pytest.approx(reality.SEEN_BUSIEST / 0.9)


def test_at_70_percent_there_is_no_check_and_the_odds_keep_their_range(client, rules):
    page, document = result_page(client, make_answers("research_lab", utilization_pct=70.0), "en")
    assert document["costs"]["utilization_check"] is None
    assert "more than published fleets reach" not in page
    assert document["odds"]["ranges"]["utilization"]["low"] == DEFAULT_LOW


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "renting is the usual answer"), ("zh-hans", "租用通常是更合适的选择")],
)
def test_an_answer_of_10_percent_says_renting_is_the_usual_answer(client, rules, language, said):
    page, document = result_page(client, make_answers("startup", utilization_pct=10.0), language)
    assert document["costs"]["utilization_check"]["kind"] == "idle"
    assert said in page


@pytest.mark.parametrize(("language", "said"), [("en", "overstates"), ("zh-hans", "nvidia-smi")])
def test_the_question_says_what_utilization_means(client, rules, language, said):
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    page = client.get(reverse("decider-step", args=[edit, "utilization"])).content.decode()
    assert "GPU" in page and said in page


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("locale", "said"),
    [("en-US", "more than published fleets reach"), ("zh-CN", "高于已公开的GPU集群实际达到的水平")],
)
def test_a_person_who_types_90_percent_in_the_wizard_reads_the_check(
    browser, live_server, rules, locale, said
):
    """Walked in Chromium at a phone's width, JavaScript off: the utilization step says
    what utilization means, and the result's risks say how rare 90 % is."""
    from tests.conftest import new_page

    page = new_page(browser, locale=locale, javascript=False)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/?lang=" + ("zh-hans" if locale == "zh-CN" else "en"))
    page.locator("input[name=preset][value=research_lab]").check()
    page.locator("form button.primary[type=submit]").first.click()
    page.wait_for_url("**/step/workload/")
    page.locator("#step-form button.primary[name=next]").click()
    page.wait_for_url("**/step/utilization/")
    assert "nvidia-smi" in page.content()
    page.fill("#id_utilization_pct", "90")
    for slug in ("ops", "data", "budget"):
        page.locator("#step-form button.primary[name=next]").click()
        page.wait_for_url(f"**/step/{slug}/")
    page.locator("#step-form button.primary[name=next]").click()
    page.wait_for_url("**/a/*/")
    risks = page.locator("#summary-risks").inner_text()
    assert said in risks and "62" in risks
