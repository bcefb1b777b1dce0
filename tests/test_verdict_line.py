"""The first screen's verdict (issue 52): the option recommended, what it costs, and the
money against the runner-up in one sentence; and where the money turns, beside the user's own
figure. The figures are the ledger's (`decision.options`), in both languages and currencies."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from decider import numbers, summary
from decider.engine.outcomes import cost_option_label
from tests.factories import make_answers, make_assessment
from tests.test_one_price import scored

pytestmark = pytest.mark.django_db

PERSONAS = ("research_lab", "startup", "growth", "inference")


def result(client, answers: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    _assessment, edit, _view = make_assessment(answers=answers)
    document = client.get(reverse("decider-edit-json", args=[edit])).json()["result"]
    return edit, document


def first_screen(client, edit: str, **query: str) -> str:
    page = client.get(reverse("decider-result", args=[edit]), query).content.decode()
    return page[page.index('id="decision"') :][:3000]


def ledger(document: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the recommended option's row, the cheapest other row the constraints allow)."""
    rows = document["decision"]["options"]
    recommended = next(row for row in rows if row["recommended"])
    others = [row for row in rows if not row["recommended"]]
    return recommended, min(others, key=lambda row: row["present_value"], default=None)


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_verdict_line_states_the_ledger_s_figures_against_the_runner_up(client, rules, persona):
    edit, document = result(client, make_answers(persona))
    recommended, runner = ledger(document)
    verdict = document["summary"]["verdict"]
    assert verdict["outcome"] == document["recommendation"]
    shown = first_screen(client, edit)
    line = re.search(r'id="verdict-line"[^>]*><strong>(.*?)</strong>', shown, re.S)
    assert line, shown[:500]
    text = line.group(1)
    assert numbers.money_full(recommended["present_value"], "USD", "en") in text
    if runner is None:
        assert "the only option" in text
        return
    assert verdict["runner_up"] == runner["outcome"]
    assert runner["outcome"] not in document["excluded"]
    gap = runner["present_value"] - recommended["present_value"]
    assert numbers.money_full(abs(gap), "USD", "en") in text
    assert ("less than" if gap >= 0 else "more than") in text
    if runner["outcome"] != "cloud":
        assert cost_option_label(runner["outcome"]) in text


def test_the_verdict_line_reads_the_same_in_chinese_and_in_yuan(client, rules):
    edit, document = result(client, make_answers("research_lab"))
    recommended, runner = ledger(document)
    assert runner is not None
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-hans"
    shown = first_screen(client, edit, currency="CNY")
    chinese = client.get(reverse("decider-edit-json", args=[edit]), {"currency": "CNY"}).json()
    rows = {row["outcome"]: row for row in chinese["result"]["decision"]["options"]}
    line = re.search(r'id="verdict-line"[^>]*><strong>(.*?)</strong>', shown, re.S)
    assert line
    text = line.group(1)
    mine = rows[recommended["outcome"]]["present_value"]
    theirs = rows[runner["outcome"]]["present_value"]
    assert numbers.money_full(mine, "CNY", "zh-hans") in text
    assert numbers.money_full(abs(theirs - mine), "CNY", "zh-hans") in text
    assert "现值" in text


def test_the_break_even_stands_beside_the_user_s_utilization(client, rules):
    answers = make_answers("research_lab", gpus=256, utilization_pct=85.0, horizon_years=5)
    edit, document = result(client, answers)
    tie = document["costs"]["break_even_utilization_pct"]
    assert tie is not None
    shown = first_screen(client, edit)
    assert f"cost the same at {tie:.0f} % average utilization; you expect 85 %" in shown
    assert f"{tie:.0f} %" in " ".join(document["summary"]["break_even"])


def test_the_per_token_break_even_stands_beside_the_volume_served(client, rules):
    answers = make_answers(
        "inference",
        work={"inference": {"params_b": 70, "tokens_per_day_m": 20_000, "peak_to_average": 2}},
    )
    for key in ("gpus", "utilization_pct", "demand_shape"):
        answers.pop(key, None)
    _assessment, edit, _checked = scored(answers)  # sized from the work, as the API does
    document = client.get(reverse("decider-edit-json", args=[edit])).json()["result"]
    volume = document["costs"].get("api_break_even_tokens_per_day_m")
    shown = first_screen(client, edit)
    if volume is None:
        assert "paying per token from" not in shown
    else:
        assert "GPUs cost less than paying per token from" in shown
        assert "you serve" in shown


GLANCE_CASES = {
    **{persona: make_answers(persona) for persona in PERSONAS},
    "bank": make_answers("growth", residency="all"),  # the data may not leave: cloud is out
}


@pytest.mark.parametrize("case", GLANCE_CASES)
def test_the_options_at_a_glance_rank_each_outcome_once_at_the_ledger_s_price(client, rules, case):
    edit, document = result(client, GLANCE_CASES[case])
    rows = document["decision"]["options"]
    shown = first_screen(client, edit)
    glance = shown[shown.index('id="at-a-glance"') : shown.index("</ol>")]
    items = re.findall(r'<li data-outcome="([a-z_]+)"([^>]*)>(.*?)</li>', glance, re.S)
    listed = [outcome for outcome, _attrs, _body in items]
    excluded = list(document["excluded"])
    assert listed[: len(rows)] == [row["outcome"] for row in rows]
    ruled_out = listed[len(rows) :]
    assert sorted(ruled_out) == sorted(excluded)
    present = document["costs"]["present_value"]

    def priced(outcome: str) -> float:  # a ruled-out outcome at the figure the page shows
        if outcome == "cloud":
            return min(present[k] for k in ("cloud_on_demand", "cloud_reserved", "cloud_committed"))
        return present.get(outcome, float("inf"))

    assert [priced(o) for o in ruled_out] == sorted(priced(o) for o in ruled_out)
    for row, (_outcome, attrs, body) in zip(rows, items, strict=False):
        assert numbers.money_full(row["present_value"], "USD", "en") in body
        assert ('class="recommended"' in attrs) == row["recommended"]
        share = row["cheapest_probability"]
        if share is not None and 0.01 <= share <= 0.99:
            assert f"cheapest in {share * 100:.0f} % of draws" in body
        if not row["recommended"]:
            assert "in present value" in body  # what it costs against the recommendation
    for _outcome, _attrs, body in items[len(rows) :]:
        assert "Ruled out:" in body
    if case == "bank":
        assert "cloud" in excluded


def test_the_options_at_a_glance_read_in_chinese(client, rules):
    edit, _document = result(client, GLANCE_CASES["bank"])
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-hans"
    shown = first_screen(client, edit, currency="CNY")
    glance = shown[shown.index('id="at-a-glance"') : shown.index("</ol>")]
    assert "已排除" in glance and "¥" in glance and "Ruled out" not in glance


# --- one firmness (issue 52) -----------------------------------------------------------------


@given(
    margin=st.floats(0, 100),
    flip=st.none() | st.floats(0.01, 3),
    odds=st.none() | st.floats(0, 1),
    overriding=st.sampled_from([(), ("Data residency (all)",)]),
)
def test_firm_never_stands_beside_poor_odds_nor_a_close_call_beside_sure_ones(
    margin, flip, odds, overriding
):
    key, reason = summary.firmness(
        margin=margin, closest_flip=flip, odds=odds, runner="Hybrid", overriding=overriding
    )
    assert "points ahead of Hybrid on the answers' score" in reason  # ahead of what, and on what
    if key == "firm" and odds is not None and odds < summary.FIRM_NEEDS_ODDS:
        assert overriding and overriding[0] in reason  # the page names the overriding answer
    if key == "close_call":
        assert odds is None or odds <= summary.SURE_ODDS


@pytest.mark.parametrize("case", GLANCE_CASES)
def test_the_firmness_is_one_word_and_reason_wherever_it_is_shown(client, rules, case):
    edit, document = result(client, GLANCE_CASES[case])
    firmness = document["summary"]["firmness"]
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    shown = re.search(
        r'id="firmness" data-firmness="([a-z_]+)"><strong>.*?</strong>(.*?)</p>', page, re.S
    )
    assert shown, page[:200]
    assert shown.group(1) == firmness["level"]
    assert unescape(shown.group(2)).strip() == firmness["reason"]
    assert "a strong lead" not in page and "a clear lead" not in page  # no second word
    share = (document["odds"].get("cheapest_probability") or {}).get(document["recommendation"])
    if firmness["level"] == "firm" and share is not None and share < 0.6:
        assert "sets cost aside" in firmness["reason"]
    if firmness["level"] == "close_call":
        assert share is None or share <= 0.9


# --- why (issue 52) --------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_why_opens_with_the_recommendation_and_a_ruled_out_option_sits_apart(
    client, rules, language
):
    """The bank: the hybrid it may not choose can outscore the recommendation; its reasons
    sit under their own heading after the recommendation's."""
    edit, document = result(client, GLANCE_CASES["bank"])
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    why = page[page.index('class="drivers"') :]
    groups = re.findall(r'class="driver-group[^"]*" data-outcome="([a-z_]+)"', why)
    assert groups[0] == document["recommendation"]
    excluded = [outcome for outcome in groups if outcome in document["excluded"]]
    assert excluded and groups[-len(excluded) :] == excluded
    heading = why.index('id="ruled-out-reasons"')
    assert heading > why.index(f'data-outcome="{document["recommendation"]}"')
    assert heading < why.index(f'data-outcome="{excluded[0]}"')
    assert why.count('id="ruled-out-reasons"') == 1


@pytest.mark.parametrize(
    ("language", "said"), [("en", "pay per token"), ("zh-hans", "按 token 付费")]
)
def test_the_home_page_and_the_report_say_what_decider_decides(client, rules, language, said):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    home = client.get(reverse("decider-home")).content.decode()
    assert said in home
    _assessment, _edit, view = make_assessment(answers=make_answers("inference"))
    report = client.get(reverse("decider-view-report", args=[view])).content.decode()
    eyebrow = re.search(r'<p class="eyebrow">(.*?)</p>', report, re.S)
    assert eyebrow and said in eyebrow.group(1)


# --- per token beside the GPUs, month by month (issue 52) -----------------------------------


def test_per_token_is_a_line_of_the_cumulative_chart_and_a_column_of_the_years(client, rules):
    from decider.charts import chart_cumulative

    answers = make_answers(
        "inference",
        work={"inference": {"params_b": 70, "tokens_per_day_m": 2_000, "peak_to_average": 2}},
    )
    for key in ("gpus", "utilization_pct", "demand_shape"):
        answers.pop(key, None)
    _assessment, edit, _checked = scored(answers)
    costs = client.get(reverse("decider-edit-json", args=[edit])).json()["result"]["costs"]
    assert costs["api"], "per token is priced for this service"
    total = costs["totals"]["api"]
    # One price: the line ends at the per-token total, the years add up to it.
    assert costs["cumulative"]["api"][-1] == pytest.approx(total, abs=0.01 * 61)
    assert sum(costs["yearly"]["api"]) == pytest.approx(total, abs=0.01 * 61)
    chart = chart_cumulative(costs)
    names = [trace.get("legendgroup") for trace in chart.figure["data"]]
    assert "api" in names
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    years = page[page.index("Spending year by year") :]
    years = years[: years.index("</table>")]
    assert cost_option_label("api") in years
    assert numbers.money_full(costs["yearly"]["api"][0], "USD", "en") in years


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_stage_reason_never_contradicts_the_direction_answered(client, rules, language):
    """The startup that answered its direction is settled is not told it is unsettled: not
    in the reasons the JSON gives for every contribution, nor on the page."""
    settled = make_answers("startup", direction_settled=True)
    _assessment, edit, _view = make_assessment(answers=settled)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    document = client.get(reverse("decider-edit-json", args=[edit])).json()["result"]
    reasons = " ".join(str(item["reason"]) for item in document["contributions"])
    page = unescape(client.get(reverse("decider-result", args=[edit])).content.decode())
    for unsettled in ("not yet settled", "not yet fully settled", "尚未完全确定", "尚未确定"):
        assert unsettled not in reasons, unsettled
        assert unsettled not in page, unsettled


def test_the_sensitivity_sentence_names_its_own_gap_beside_the_verdict_s(client, rules):
    """Issue 52: "moves the gap by $5.93 M, not enough to reverse it" beside a verdict gap of
    0.88 % read as a contradiction; the sentence now says which gap it moves and how large
    that gap is, from the same totals the page shows."""
    edit, document = result(client, make_answers("growth"))
    costs = document["costs"]
    page = unescape(client.get(reverse("decider-result", args=[edit])).content.decode())
    gap = abs(costs["totals"]["onprem"] - costs["totals"]["cloud_on_demand"])
    found = re.search(r"(The cost figure that matters most|A 20 % change in)[^<]*", page)
    assert found, "the sensitivity sentence"
    assert "owning every GPU and renting them all on demand" in found.group(0)
    assert numbers.money_full(gap, "USD", "en") in found.group(0)


# --- one place for each price (issue 53's symptom) -----------------------------------------


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_data_step_quotes_the_listed_providers_prices(client, rules, language):
    """The wizard said H100 costs "$3–6 at GPU clouds, $7–12 at hyperscalers" while the
    listed providers' figures said otherwise; it now reads those figures."""
    from decider.engine.providers import listed_ranges
    from decider.formats import small_price
    from decider.models import Provider

    _assessment, edit, _view = make_assessment(answers=make_answers("growth", gpu_model="h100"))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    page = unescape(client.get(reverse("decider-step", args=[edit, "data"])).content.decode())
    ranges = listed_ranges(Provider.listed("global"), "h100")
    assert {item.kind for item in ranges} >= {"neocloud", "hyperscaler"}
    for item in ranges:
        assert (
            f"{small_price(item.low, 'USD')}" in page and f"{small_price(item.high, 'USD')}" in page
        )
    assert "$3 to $6" not in page and "$7 to $12" not in page
