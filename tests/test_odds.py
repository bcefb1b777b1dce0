"""The odds: Monte Carlo over what is uncertain, checked against the cases that have an
analytic answer, and carried by decide and the API with a seed kept per saved result."""

import json

import numpy as np
import pytest
from django.urls import reverse

from decider.engine import odds, ranges
from decider.engine.costs import costs_compute
from decider.engine.validation import answers_validate
from tests.factories import make_answers, make_cost_answers, shipped_figures

FIXED = {name: (1.0, 1.0) for name in ranges.SPREADS}
CASES = [
    {},  # 12 GPUs at 50 %: the cloud
    {"gpus": 64, "utilization": 0.6},
    {"gpus": 1000, "utilization": 0.8, "horizon_months": 120},  # on-premises
]


def _odds(answers, figures=None, *, seed=7, **ranges):
    return odds.odds_compute(
        answers=answers,
        figures=figures or shipped_figures("h100"),
        ranges={**FIXED, **ranges},
        seed=seed,
    )


@pytest.mark.parametrize("case", CASES)
def test_with_nothing_uncertain_the_cost_models_cheapest_wins_every_draw(case):
    answers = make_cost_answers(**case)
    costs = costs_compute(answers=answers, figures=shipped_figures("h100"))
    found = _odds(answers)
    assert found["draws"] >= 10_000
    assert found["cheapest_probability"][costs["cheapest"]] == 1.0
    assert sum(found["cheapest_probability"].values()) == pytest.approx(1.0)
    # Every draw is the cost model itself: the percentiles collapse onto its figures.
    pv = found["present_value"]["onprem"]
    assert pv["p10"] == pv["p90"] == pytest.approx(costs["present_value"]["onprem"], abs=0.05)
    months = found["bands"]["months"]
    band = found["bands"]["cloud_on_demand"]
    expected = [costs["cumulative"]["cloud_on_demand"][m] for m in months]
    assert band["p10"] == pytest.approx(expected, abs=0.05)
    assert band["p90"] == pytest.approx(expected, abs=0.05)
    assert found["drivers"] == []  # nothing varied, nothing drives


def _at_break_even():
    """On-premises and the cloud at the same present value: the server price that makes
    them equal (on-premises is linear in it), with the hybrid left out."""
    answers = make_cost_answers(gpus=64, utilization=0.7, excluded=frozenset({"hybrid"}))

    def gap(price):
        pv = costs_compute(answers=answers, figures=shipped_figures("h100", server_price=price))[
            "present_value"
        ]
        cloud = min(pv[o] for o in ("cloud_on_demand", "cloud_reserved", "cloud_committed"))
        return pv["onprem"] - cloud

    low, high = 50_000.0, 600_000.0
    price = low - gap(low) * (high - low) / (gap(high) - gap(low))
    assert abs(gap(price)) < 1.0  # dollars apart
    return answers, shipped_figures("h100", server_price=price)


def test_a_symmetric_spread_around_the_break_even_gives_even_odds():
    answers, figures = _at_break_even()
    for name, spread in [("cloud_price", (0.8, 1.2)), ("hardware_price", (0.85, 1.15))]:
        found = _odds(answers, figures, **{name: spread})
        assert found["cheapest_probability"]["onprem"] == pytest.approx(0.5, abs=0.02), name
        assert [driver["name"] for driver in found["drivers"]] == [name]


def test_the_odds_move_the_way_the_prices_do():
    answers, figures = _at_break_even()
    cheaper_cloud = _odds(answers, figures, cloud_price=(0.6, 1.0))["cheapest_probability"]
    dearer_cloud = _odds(answers, figures, cloud_price=(0.9, 1.4))["cheapest_probability"]
    assert cheaper_cloud["cloud"] > 0.95
    # Today's figure is the median: the draws above it, half of them, and those just below.
    assert 0.5 < dearer_cloud["onprem"] < 0.6
    # A longer wait for the hardware is rented meanwhile: it can only favour the cloud.
    waiting = _odds(answers, figures, lead_time=(0.9, 3.0))["cheapest_probability"]
    assert waiting["cloud"] > 0.5
    # Busier GPUs make owning them pay.
    busier = _odds(answers, figures, utilization=(0.9, 1.3))["cheapest_probability"]
    assert busier["onprem"] > 0.5


def test_today_s_figure_is_the_median_and_the_likeliest_draw_however_lopsided_the_range():
    uniform = np.random.default_rng(3).random(200_000)
    for low, high in [(0.6, 1.1), (0.9, 1.2), (0.5, 2.0), (1.0, 1.4)]:
        drawn = odds.split_triangular(uniform, low, high)
        assert drawn.min() >= low and drawn.max() <= high
        assert np.median(drawn) == pytest.approx(1.0, abs=0.002)
        counts, edges = np.histogram(drawn, bins=40, range=(low, high))
        width = (high - low) / 40
        likeliest = edges[np.argmax(counts)] + width / 2
        assert abs(likeliest - 1.0) <= width  # the likeliest bin is at or beside 1


def test_the_odds_centre_on_the_cost_model_s_figures():
    """With the shipped ranges the median present value of every option is its point
    figure within 5 %; drawn from a plain triangle the cloud's sat 8 % below it."""
    for case in CASES:
        answers = make_cost_answers(**case)
        costs = costs_compute(answers=answers, figures=shipped_figures("h100"))
        found = odds.odds_compute(answers=answers, figures=shipped_figures("h100"), seed=11)
        for outcome, pv in found["present_value"].items():
            point = (
                min(costs["present_value"][o] for o in costs["present_value"] if "cloud" in o)
                if outcome == "cloud"
                else costs["present_value"][outcome]
            )
            assert pv["p50"] == pytest.approx(point, rel=0.05), (case, outcome)


def test_the_driver_is_the_widest_uncertainty_that_moves_the_lead():
    answers = make_cost_answers(gpus=1000, utilization=0.8, horizon_months=120)
    found = _odds(answers, cloud_price=(0.5, 1.5), hardware_price=(0.99, 1.01))
    assert found["drivers"][0]["name"] == "cloud_price"
    assert abs(found["drivers"][0]["rank_correlation"]) > 0.9
    assert {d["name"] for d in found["drivers"]} == {"cloud_price", "hardware_price"}


def test_the_same_seed_draws_the_same_and_another_seed_close_to_it():
    answers = make_cost_answers(gpus=1000, utilization=0.8, horizon_months=120)
    default = odds.ranges_of(None)
    first = _odds(answers, seed=11, **default)
    assert _odds(answers, seed=11, **default) == first
    other = _odds(answers, seed=12, **default)
    assert other != first
    for outcome, share in first["cheapest_probability"].items():
        assert other["cheapest_probability"][outcome] == pytest.approx(share, abs=0.03)


def test_the_bands_hold_the_middle_and_widen_over_time():
    answers = make_cost_answers(gpus=64, utilization=0.6)
    found = _odds(answers, **odds.ranges_of(None))
    for option in ("onprem", "cloud_on_demand", "hybrid"):
        band = found["bands"][option]
        low, mid, high = (np.array(band[p]) for p in ("p10", "p50", "p90"))
        assert (low <= mid).all() and (mid <= high).all()
        width = high - low
        assert width[-1] > width[1] > 0  # more months, more room to differ
    assert found["bands"]["months"][0] == 0 and found["bands"]["months"][-1] == 36


def test_the_default_ranges_are_sourced_and_dated():
    found = _odds(make_cost_answers(), **odds.ranges_of(None))
    for name, spread in found["ranges"].items():
        assert spread["low"] < 1 < spread["high"], name
        assert len(spread["source"]) > 30 and spread["as_of"][:2] == "20", name


@pytest.mark.parametrize(
    "given, key",
    [
        ({"demand": {"low": 0.5}}, "uncertainty.demand"),
        ({"cloud_price": {"low": 1.5}}, "uncertainty.cloud_price"),
        ({"cloud_price": {"high": "x"}}, "uncertainty.cloud_price.high"),
        ({"cloud_price": {"high": True}}, "uncertainty.cloud_price.high"),
        ({"cloud_price": {"mid": 1}}, "uncertainty.cloud_price"),
        ([0.5, 1.5], "uncertainty"),
    ],
)
def test_a_wrong_range_is_named_in_the_answers(given, key):
    _answers, errors = answers_validate({**make_answers("growth"), "uncertainty": given})
    assert key in errors


def test_ranges_in_the_answers_are_kept_and_drawn_from():
    answers, errors = answers_validate(
        {**make_answers("growth"), "uncertainty": {"cloud_price": {"low": 0.5}}}
    )
    assert errors == {}
    high = ranges.SPREADS["cloud_price"].high  # the side left out keeps its default
    assert answers["uncertainty"] == {"cloud_price": {"low": 0.5, "high": high}}
    assert odds.ranges_of(answers["uncertainty"])["cloud_price"] == (0.5, high)


# --- decide and the API -------------------------------------------------------------


@pytest.mark.django_db
def test_decide_carries_the_odds_and_its_seed_repeats_them(rules, tmp_path, capsys):
    from tests.test_decide import run_decide

    answers = make_answers("growth")
    code, out, err = run_decide(tmp_path, capsys, answers, "--format", "json", "--seed", "5")
    assert code == 0, err
    data = json.loads(out)
    found = data["odds"]
    assert set(found["cheapest_probability"]) == set(data["costs"]["options_compared"])
    assert found["seed"] == 5 and found["draws"] >= 10_000
    assert set(found["bands"]) >= {"months", "onprem", "hybrid"}
    again = json.loads(run_decide(tmp_path, capsys, answers, "--format", "json", "--seed", "5")[1])
    assert again["odds"] == found
    assert "costs" in data and "scores" in data  # the keys printed before stay


@pytest.mark.django_db
def test_a_shared_link_shows_everyone_the_same_odds(client, rules):
    created = client.post(
        reverse("decider-api-assessments"),
        data=json.dumps({"answers": make_answers("growth")}),
        content_type="application/json",
    ).json()
    found = created["result"]["odds"]
    assert sum(found["cheapest_probability"].values()) == pytest.approx(1.0)
    from django.core.cache import caches

    caches["scored"].clear()  # drawn again from the saved seed, not read back
    assert client.get(created["view_json_url"]).json()["result"]["odds"] == found
    other = client.post(
        reverse("decider-api-assessments"),
        data=json.dumps({"answers": make_answers("growth")}),
        content_type="application/json",
    ).json()
    assert other["result"]["odds"]["seed"] != found["seed"]  # each saved result its own


# --- the result page ----------------------------------------------------------------


def _cumulative_figure(page: str) -> dict:
    start = page.index('id="figure-cumulative"')
    start = page.index(">", start) + 1
    return json.loads(page[start : page.index("</script>", start)])


@pytest.mark.django_db
def test_the_result_page_states_the_odds_and_draws_their_bands(client, rules):
    from decider.models import Assessment
    from tests.factories import make_assessment

    assessment, edit, _view = make_assessment(answers=make_answers("startup"))
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    assessment = Assessment.objects.get(pk=assessment.pk)
    assert "of 10,000 draws of what is uncertain" in page
    assert f"seed {assessment.result['odds_seed']}" in page
    for spread in ranges.SPREADS.values():
        assert spread.label in page and spread.source[:40].replace("'", "&#x27;") in page
    figure = _cumulative_figure(page)
    bands = [trace for trace in figure["data"] if trace.get("fill") == "tonexty"]
    lines = [
        trace
        for trace in figure["data"]
        if trace.get("mode") == "lines" and trace.get("showlegend") is not False
    ]
    assert len(bands) == len(lines) >= 4  # one band per option drawn
    chinese = client.get(
        reverse("decider-result", args=[edit]), headers={"Accept-Language": "zh-hans"}
    )
    assert "次抽样中" in chinese.content.decode()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_in_chromium_the_odds_link_opens_the_ranges_and_the_bands_are_drawn(
    browser, live_server, rules
):
    from tests.conftest import new_page, open_folds
    from tests.factories import make_assessment

    _assessment, edit, _view = make_assessment()
    page = new_page(browser)
    page.goto(f"{live_server.url}/a/{edit}/")
    page.wait_for_function("document.body.dataset.chartsReady === 'true'")
    assert not page.locator("#odds").evaluate("details => details.open")
    open_folds(page, "firm")
    page.locator("#odds-sentence a").click()
    assert page.locator("#odds").evaluate("details => details.open")
    assert page.locator("#odds tbody tr").count() == len(ranges.SPREADS)
    open_folds(page, "money")
    assert page.locator("#chart-cumulative path.js-fill").count() >= 4
    assert page.errors == []


# --- the rule engine reading the odds ------------------------------------------------------


def _odds_rulebook():
    """The shipped rules with the cost criterion pointed at the odds, as an admin would."""
    from dataclasses import replace

    from decider.engine.outcomes import COST_ODDS, OUTCOMES
    from decider.engine.scoring import Band
    from decider.engine.text import Text
    from tests.factories import shipped_rulebook

    points = {"sure": 2, "likely": 1, "lean": 0}
    bands = tuple(
        Band(
            scores={
                o: (points[value.split("_")[1]] if o == value.split("_")[0] else 0)
                for o in OUTCOMES
            },
            reason=Text("The odds favour it.", "概率偏向它。"),
            label=Text(value, value),
            value=value,
        )
        for value in COST_ODDS
    )
    rules = shipped_rulebook()
    return replace(
        rules,
        rules=tuple(
            replace(rule, question="cost_odds", bands=bands) if rule.key == "cost" else rule
            for rule in rules.rules
        ),
    )


def test_a_cost_criterion_pointed_at_the_odds_scores_by_them():
    from decider.engine.evaluation import answers_evaluate, cost_answers
    from tests.factories import shipped_rulebook

    # 1,000 GPUs busy 80 % for ten years, with cloud prices seen as likely to fall a lot
    # and unlikely to rise: owning is cheapest on today's figures, and by a slight margin.
    answers = make_answers(
        "growth",
        gpus=1000,
        utilization_pct=80.0,
        horizon_years=10,
        residency="none",
        uncertainty={"cloud_price": {"low": 0.4, "high": 1.05}},
    )
    figures = shipped_figures("h100")
    plain = answers_evaluate(answers=answers, rulebook=shipped_rulebook(), figures=figures)
    assert "cost_odds" not in plain.derived  # no rule reads them: not drawn
    by_odds = answers_evaluate(
        answers=answers, rulebook=_odds_rulebook(), figures=figures, odds_seed=3
    )
    expected = odds.odds_verdict(
        odds.odds_compute(
            answers=cost_answers(answers, excluded=frozenset(plain.result.excluded)),
            figures=figures,
            ranges=odds.ranges_of(answers["uncertainty"]),
            seed=3,
        )["cheapest_probability"]
    )
    assert by_odds.derived["cost_odds"] == expected
    leader = expected.split("_")[0]
    cost = [c for c in by_odds.result.contributions if c.criterion == "cost"]
    assert cost and all(c.outcome == leader and c.points > 0 for c in cost)


def test_the_odds_verdict_follows_its_thresholds():
    assert odds.odds_verdict({"onprem": 0.85, "cloud": 0.15}) == "onprem_sure"
    assert odds.odds_verdict({"onprem": 0.8, "cloud": 0.2}) == "onprem_sure"
    assert odds.odds_verdict({"onprem": 0.3, "cloud": 0.7}) == "cloud_likely"
    assert odds.odds_verdict({"onprem": 0.3, "cloud": 0.3, "hybrid": 0.4}) == "hybrid_lean"
    assert odds.odds_verdict({"onprem": 0.5, "cloud": 0.5}) == "cloud_likely"  # tie: cloud first
    assert odds.odds_verdict({"hybrid": 1.0}) is None


# --- the ranges on the budget step ----------------------------------------------------------


@pytest.mark.django_db
def test_the_budget_step_edits_the_ranges_the_odds_draw_from(client, rules):
    from decider.models import Assessment
    from tests.factories import STEP_POSTS, make_assessment

    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    step = reverse("decider-step", args=[edit, "budget"])
    page = client.get(step).content.decode()
    default = ranges.SPREADS["cloud_price"].low
    assert f'name="range_cloud_price_low" value="{default}"' in page  # to be changed
    form = {**STEP_POSTS["budget"], "finish": "1"}
    wrong = client.post(step, {**form, "range_cloud_price_low": "1.5"}).content.decode()
    assert "Cloud GPU-hour prices over the horizon: lowest: enter a number from 0.1 to 1" in wrong
    assert "uncertainty" not in Assessment.objects.get(pk=assessment.pk).answers  # not saved
    client.post(step, {**form, "range_cloud_price_low": "0.5", "range_lead_time_high": "3"})
    saved = Assessment.objects.get(pk=assessment.pk).answers["uncertainty"]
    assert saved == {
        "cloud_price": {"low": 0.5, "high": ranges.SPREADS["cloud_price"].high},
        "lead_time": {"low": 0.5, "high": 3.0},
    }
    result = client.get(reverse("decider-view-json", args=[_view])).json()["result"]["odds"]
    assert (
        result["ranges"]["cloud_price"]["low"] == 0.5 and result["ranges"]["lead_time"]["high"] == 3
    )
    back = {"range_cloud_price_low": str(default), "range_lead_time_high": "2"}
    client.post(step, {**form, **back})
    assert "uncertainty" not in Assessment.objects.get(pk=assessment.pk).answers  # defaults again
