"""A hosted model sold per token (issue 36, first slice): the price book, the price of the
work's tokens over the horizon, and the volume at which GPUs undercut it. The GPU side is
the cost model's own present value of the work sized at each volume."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from decider.engine import costs, evaluation, sizing, tokens
from tests.factories import make_answers, shipped_figures

BOOK_PATH = Path(__file__).resolve().parent.parent / "fixtures" / "token_prices.json"
BOOK = tokens.price_book(json.loads(BOOK_PATH.read_text(encoding="utf-8")))
HORIZON_YEARS = 3


def _service(params_b: float, tokens_per_day_m: float, peak_to_average: float) -> dict:
    answers = {
        key: value
        for key, value in make_answers("inference", horizon_years=HORIZON_YEARS).items()
        if key not in ("gpus", "base_gpus", "peak_share_pct", "utilization_pct", "cloud_share_pct")
    }
    work = {
        "params_b": params_b,
        "tokens_per_day_m": tokens_per_day_m,
        "peak_to_average": peak_to_average,
    }
    sized, _document, errors = sizing.answers_sized({**answers, "work": {"inference": work}})
    assert errors == {}
    return sized


@cache
def gpu_value(params_b: float, tokens_per_day_m: float, peak_to_average: float) -> float:
    """The cheapest GPU option's present value (owned, rented or both) for the work sized at
    this volume, as the cost section prices it."""
    computed = evaluation.answers_costs(
        answers=_service(params_b, tokens_per_day_m, peak_to_average),
        figures=shipped_figures(),
        excluded=(),
    )
    amounts = costs.outcome_amounts(computed["present_value"], computed["hybrid_reduces_to"])
    return min(float(amounts[key]) for key in computed["options_compared"])


def api_value(price: tokens.TokenPrice, tokens_per_day_m: float) -> float:
    share = sizing.INFER_INPUT_SHARE.value
    bills = tokens.monthly_costs(
        price,
        input_m_per_day=tokens_per_day_m * share,
        output_m_per_day=tokens_per_day_m * (1 - share),
        months=HORIZON_YEARS * 12,
    )
    return tokens.totals(bills, shipped_figures()["discount_rate"].value)[1]


def cheapest_global(model_class: str) -> tokens.TokenPrice:
    found = tokens.cheapest(
        BOOK.prices,
        model_class=model_class,
        market="global",
        input_share=sizing.INFER_INPUT_SHARE.value,
    )
    assert found is not None
    return found


# --- the price book --------------------------------------------------------------------------


def test_every_price_is_dated_sourced_and_paid():
    assert len(BOOK.prices) >= 40
    for price in BOOK.prices:
        assert re.fullmatch(r"20\d\d-\d\d(-\d\d)?", price.as_of), price
        assert len(price.source) > 20, price
        assert price.price_in_per_m > 0 or price.price_out_per_m > 0
        assert price.currency == {"global": "USD", "cn": "CNY"}[price.market]
        assert price.model_class in tokens.MODEL_CLASSES


def test_each_class_has_several_providers_and_the_china_market_its_own_in_cny():
    for model_class in tokens.MODEL_CLASSES:
        providers = {p.provider for p in BOOK.prices if p.model_class == model_class}
        assert len(providers) >= 3, model_class
    chinese = [p for p in BOOK.prices if p.market == "cn"]
    assert {p.model_class for p in chinese} == set(tokens.MODEL_CLASSES)
    assert all(p.jurisdiction == "cn" for p in chinese)


def test_a_class_nobody_in_the_market_prices_has_no_price():
    nothing = tokens.cheapest(BOOK.prices, model_class="8b", market="mars", input_share=0.5)
    assert nothing is None


# --- choosing and pricing --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params_b", "model_class"),
    [(8, "8b"), (20, "8b"), (70, "70b"), (120, "70b"), (671, "moe_large")],
)
def test_a_model_is_priced_at_its_class(params_b, model_class):
    assert tokens.model_class(params_b) == model_class


def test_the_cheapest_price_follows_the_mix_of_input_and_output():
    reading = tokens.cheapest(
        BOOK.prices, model_class="moe_large", market="global", input_share=0.95
    )
    writing = tokens.cheapest(
        BOOK.prices, model_class="moe_large", market="global", input_share=0.05
    )
    assert reading is not None and writing is not None
    every = [p for p in BOOK.prices if p.model_class == "moe_large" and p.market == "global"]
    assert reading.blended(0.95) == min(p.blended(0.95) for p in every)
    assert writing.blended(0.05) == min(p.blended(0.05) for p in every)


def test_a_jurisdiction_concern_keeps_to_providers_based_under_it():
    every = [p for p in BOOK.prices if p.model_class == "moe_large" and p.market == "global"]
    assert any(p.jurisdiction == "cn" for p in every)  # DeepSeek's own API is listed
    kept = tokens.cheapest(
        BOOK.prices,
        model_class="moe_large",
        market="global",
        input_share=0.5,
        own_jurisdiction=True,
    )
    assert kept is not None and kept.jurisdiction == "intl"


def test_the_bill_doubles_with_the_volume_and_follows_growth_and_falling_prices():
    price = cheapest_global("70b")
    one = tokens.monthly_costs(price, input_m_per_day=600, output_m_per_day=400, months=24)
    two = tokens.monthly_costs(price, input_m_per_day=1200, output_m_per_day=800, months=24)
    assert one[0] == 0 and two[1:] == pytest.approx(2 * one[1:])
    a_month = (600 * price.price_in_per_m + 400 * price.price_out_per_m) * 365 / 12
    assert one[1:] == pytest.approx([a_month] * 24)  # neither growth nor a falling price
    growing = tokens.monthly_costs(
        price, input_m_per_day=600, output_m_per_day=400, months=24, growth_pct_per_year=100
    )
    falling = tokens.monthly_costs(
        price, input_m_per_day=600, output_m_per_day=400, months=24, fall_pct_per_year=50
    )
    assert growing[12] == pytest.approx(2 * one[12])  # a year on, twice the tokens
    assert falling[12] == pytest.approx(0.5 * one[12])  # and half the price
    total, present = tokens.totals(one, 0.08)
    assert present < total == pytest.approx(one.sum())


@pytest.mark.parametrize(
    ("workload", "residency", "offered"),
    [("inference", "none", True), ("inference", "partial", True), ("inference", "all", False)]
    + [("training", "none", False), ("mixed", "none", True)],
)
def test_training_and_data_that_may_not_leave_rule_the_api_out(workload, residency, offered):
    reason = tokens.not_offered(workload=workload, residency=residency)
    assert (reason is None) == offered
    if not offered:
        assert reason.en and reason.zh


# --- against the GPUs (the done-when cases) -----------------------------------------


def test_an_8b_model_at_50m_tokens_a_day_is_cheapest_per_token():
    price = cheapest_global("8b")
    assert api_value(price, 50) < gpu_value(8, 50, 2.0) / 10  # not close: a tenth of it


def test_a_70b_model_at_10b_tokens_a_day_breaks_even_below_its_volume():
    """Steady, at 10 billion tokens a day: the GPUs are cheaper, so they break even below it,
    and just past the break-even they are cheaper while just short of it they are not."""
    price = cheapest_global("70b")
    volume = 10_000
    gpu_at = lambda v: gpu_value(70, round(v, 1), 1.0)  # noqa: E731
    api_at = lambda v: api_value(price, v)  # noqa: E731
    assert gpu_at(volume) < api_at(volume)
    found = tokens.break_even(api_at, gpu_at, volumes=[10, 100, 1_000, volume], steps=12)
    assert found is not None and found < volume
    assert gpu_at(found) <= api_at(found)
    assert gpu_at(found * 0.97) > api_at(found * 0.97)
    assert api_at(2 * volume) == pytest.approx(2 * api_at(volume))  # per token: linear


def test_without_any_crossing_there_is_no_break_even():
    assert tokens.break_even(lambda v: v, lambda v: 2 * v + 1, volumes=[1, 10, 100]) is None
