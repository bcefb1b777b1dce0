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
from decider.engine.vocabulary import MODEL_CLASSES
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
        assert price.model_class in MODEL_CLASSES


def test_each_class_has_several_providers_and_the_china_market_its_own_in_cny():
    for model_class in MODEL_CLASSES:
        providers = {p.provider for p in BOOK.prices if p.model_class == model_class}
        assert len(providers) >= 3, model_class
    chinese = [p for p in BOOK.prices if p.market == "cn"]
    assert {p.model_class for p in chinese} == set(MODEL_CLASSES)
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


# --- wired into the cost section: the API, the page, the report (second slice) ------------


def _service_answers(params_b: float, tokens_per_day_m: float, peak_to_average: float, **changes):
    answers = {
        key: value
        for key, value in make_answers("inference", horizon_years=HORIZON_YEARS, **changes).items()
        if key not in ("gpus", "base_gpus", "peak_share_pct", "utilization_pct", "cloud_share_pct")
    }
    answers["work"] = {
        "inference": {
            "params_b": params_b,
            "tokens_per_day_m": tokens_per_day_m,
            "peak_to_average": peak_to_average,
        }
    }
    return answers


def _created(client, answers) -> dict:
    from django.urls import reverse

    response = client.post(
        reverse("decider-api-assessments"),
        data=json.dumps({"answers": answers}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.django_db
def test_the_api_prices_an_8b_service_per_token_and_it_is_the_cheapest(client, rules):
    created = _created(client, _service_answers(8, 50, 2.0))
    costs = created["result"]["costs"]
    assert created["answers"]["served"]["tokens_per_day_m"] == 50  # what it serves, kept
    api = costs["api"]
    for key in ("provider", "model_class", "price_in_per_m", "price_out_per_m", "currency"):
        assert api[key] is not None
    assert api["model_class"] == "8b" and api["as_of"] and api["source"]
    gpu_options = [key for key in costs["present_value"] if key != "api"]
    assert costs["present_value"]["api"] < min(costs["present_value"][k] for k in gpu_options)
    assert costs["totals"]["api"] > 0
    assert costs["api_break_even_tokens_per_day_m"] is None or (
        costs["api_break_even_tokens_per_day_m"] > 50
    )
    # A token on GPUs costs more than per token, option by option.
    per_m = costs["api_cost_per_m_tokens"]
    assert all(per_m["api"] < per_m[key] for key in gpu_options)


@pytest.mark.django_db
def test_a_70b_service_at_10b_tokens_a_day_breaks_even_where_the_cost_section_says(client, rules):
    costs = _created(client, _service_answers(70, 10_000, 1.0))["result"]["costs"]
    found = costs["api_break_even_tokens_per_day_m"]
    gpu = min(v for k, v in costs["present_value"].items() if k != "api")
    if gpu < costs["present_value"]["api"]:  # GPUs cheaper at 10 B: they break even below it
        assert found is not None and found < 10_000
    else:  # per token cheaper: the break-even lies above 10 B, or nowhere looked at
        assert found is None or found > 10_000
    doubled = _created(client, _service_answers(70, 20_000, 1.0))["result"]["costs"]
    assert doubled["totals"]["api"] == pytest.approx(2 * costs["totals"]["api"], rel=1e-6)


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_data_that_may_not_leave_rules_the_api_out_and_says_why(client, rules, language):
    created = _created(client, _service_answers(8, 50, 2.0, residency="all"))
    costs = created["result"]["costs"]
    assert costs["api"] is None and "api" not in costs["present_value"]
    assert "premises" in costs["api_not_offered"]["en"] and costs["api_not_offered"]["zh"]
    page = client.get(created["edit_url"], headers={"Accept-Language": language}).content.decode()
    assert costs["api_not_offered"]["en" if language == "en" else "zh"] in page
    assert 'id="chart-api"' not in page


@pytest.mark.django_db
def test_a_gpu_count_typed_by_hand_says_nothing_of_tokens(client, rules):
    costs = _created(client, make_answers("inference"))["result"]["costs"]
    assert "api" not in costs and "api" not in costs["totals"]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_page_and_the_report_show_the_line_the_prices_and_the_chart(client, rules, language):
    created = _created(client, _service_answers(8, 50, 2.0))
    edit = created["edit_url"]
    page = client.get(edit, headers={"Accept-Language": language}).content.decode()
    report = client.get(edit + "report/", headers={"Accept-Language": language}).content.decode()
    words = {"en": "tokens a day; you serve 50 million", "zh-hans": "；您的用量为 5,000 万"}
    for shown in (page, report):
        assert 'id="api-sentence"' in shown and 'id="chart-api"' in shown
        assert words[language] in shown
        assert "DeepInfra" in shown or "Nebius" in shown or "Novita" in shown
    assert 'id="summary-api"' in page
    assert report.count('data-width="640"') == 7  # the six charts and this one, print-sized


@pytest.mark.django_db
def test_a_service_sized_in_the_wizard_is_priced_per_token_too(client, rules):
    from django.urls import reverse

    from decider.models import Assessment
    from tests.factories import make_assessment

    assessment, edit, _view = make_assessment(answers=make_answers("inference"))
    typed = {"inference-params_b": "8", "inference-tokens_per_day_m": "50"}
    typed["inference-peak_to_average"] = "2"
    response = client.post(reverse("decider-size", args=[edit]), {**typed, "action": "use"})
    assert response.status_code == 302
    assessment = Assessment.objects.get(pk=assessment.pk)
    assert assessment.answers["served"]["tokens_per_day_m"] == 50
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    assert 'id="api-sentence"' in page and "you serve 50 million" in page


@pytest.mark.django_db
def test_a_served_block_in_error_is_named_next_to_its_input(client, rules):
    from django.urls import reverse

    answers = {**make_answers("inference"), "served": {"params_b": -1, "peak_to_average": 2}}
    response = client.post(
        reverse("decider-api-assessments"),
        data=json.dumps({"answers": answers}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "served.params_b" in response.json()["errors"]


@pytest.mark.browser
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ("Per token instead of GPUs", "Per token or GPUs")),
        ("zh-hans", ("按 token 计费替代 GPU", "成本随用量变化")),
    ],
)
def test_the_pdf_prints_the_per_token_option_and_its_chart(client, rules, language, words):
    import io
    import unicodedata

    import pypdf

    created = _created(client, _service_answers(8, 50, 2.0))
    response = client.get(created["view_url"] + f"report.pdf?lang={language}")
    content = b"".join(response.streaming_content) if response.streaming else response.content
    text = "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(content)).pages)
    flat = " ".join(unicodedata.normalize("NFKC", text).split())  # "⽤" (a radical) to "用"
    assert all(word in flat for word in words), flat[:3000]


@pytest.mark.parametrize("persona", ["startup", "growth", "inference", "research_lab"])
def test_the_light_present_values_are_the_cost_section_s_own(persona):
    """The break-even prices the GPUs at other volumes with costs.present_values_of: the
    same numbers as the full cost section, without its facts."""
    answers = make_answers(persona)
    cost_in = evaluation.cost_answers(answers)
    full = costs.costs_compute(answers=cost_in, figures=shipped_figures(), currency="CNY")
    light = costs.present_values_of(answers=cost_in, figures=shipped_figures(), currency="CNY")
    assert light["present_value"] == full["present_value"]
    assert light["options_compared"] == full["options_compared"]
    assert light["hybrid_reduces_to"] == full["hybrid_reduces_to"]


@pytest.mark.django_db
def test_a_saved_result_keeps_the_token_price_it_was_scored_with(client, rules):
    """Prices an admin changes later leave a saved result as it was (like the figures); a new
    assessment takes them."""
    from django.core.cache import caches
    from django.db.models import F

    from decider import caching, services
    from decider.models import Assessment, TokenPrice

    created = _created(client, _service_answers(8, 50, 2.0))
    assessment = Assessment.objects.latest("pk")
    before = services.assessment_costs(assessment, currency="CNY")["present_value"]["api"]
    TokenPrice.objects.update(
        price_in_per_m=F("price_in_per_m") * 10, price_out_per_m=F("price_out_per_m") * 10
    )
    for alias in ("default", caching.CACHE):
        caches[alias].clear()  # nothing kept: the page computes its costs again
    again = services.assessment_costs(Assessment.objects.get(pk=assessment.pk), currency="CNY")
    assert again["present_value"]["api"] == before
    assert created["result"]["costs"]["api"]["price_in_per_m"] == again["api"]["price_in_per_m"]
    fresh = _created(client, _service_answers(8, 50, 2.0))["result"]["costs"]
    assert fresh["present_value"]["api"] == pytest.approx(
        10 * created["result"]["costs"]["present_value"]["api"], rel=1e-3
    )
