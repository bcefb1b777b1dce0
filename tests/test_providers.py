"""The cloud priced at a provider the answers allow: the cheapest, named, with its runner-up
(decider/engine/providers.py, engine/evaluation.py)."""

from __future__ import annotations

import json
import statistics
from typing import Any

import pytest
from django.urls import reverse

from decider import services
from decider.engine.evaluation import Evaluation, answers_evaluate
from decider.engine.figures import Figure
from decider.engine.providers import Provider, allowed, choice_given, priced_at
from decider.models import Assessment, ProviderPrice
from decider.models import Provider as ProviderRow
from tests.factories import (
    STEP_POSTS,
    make_answers,
    make_assessment,
    make_growing_answers,
    shipped_figures,
    shipped_rulebook,
)

DATE = "2026-11-09"


def make_provider(key: str, kind: str, market: str = "global", **prices: float) -> Provider:
    """A provider publishing `prices` (figure name, or name__gpu model) for every model."""
    published = {}
    for spec, value in prices.items():
        name, _, model = spec.partition("__")
        published[(name, model)] = Figure(name, value, f"{key} price page", DATE, f"{key} 价目")
    return Provider(key, key.title(), "", kind, market, published)


LISTED = (
    make_provider("bigcloud", "hyperscaler", gpu_hour_on_demand=6.88, egress_price_tb=90),
    make_provider("othercloud", "hyperscaler", gpu_hour_on_demand=11.0, egress_price_tb=120),
    make_provider("gpuco", "neocloud", gpu_hour_on_demand=3.85, egress_price_tb=0),
    make_provider("cheapgpu", "neocloud", gpu_hour_on_demand=3.09, egress_price_tb=0),
    # Rents the H200 only: never a choice for an H100 fleet.
    make_provider("h200only", "neocloud", gpu_hour_on_demand__h200=1.0),
    make_provider("yuncloud", "hyperscaler", market="cn", gpu_hour_on_demand=1.0),
)


def cloud(costs: dict[str, Any]) -> float:
    """The cloud's present value at its cheapest pricing mode."""
    return costs["present_value"][costs["cheapest_cloud_mode"]]


def evaluate(providers: Any = None, *, listed: Any = LISTED, **changes: Any) -> Evaluation:
    answers = make_answers(**changes)
    if providers is not None:
        answers["providers"] = providers
    return answers_evaluate(
        answers=answers, rulebook=shipped_rulebook(), figures=shipped_figures(), listed=listed
    )


def at_market(**changes: Any) -> Evaluation:
    """Priced at the market's figures: no listed provider at all."""
    return evaluate(listed=[], **changes)


def test_the_cheapest_provider_allowed_prices_the_cloud_and_the_runner_up_is_named():
    costs = evaluate({}).costs
    assert costs["provider"]["key"] == "cheapgpu"
    assert costs["provider"]["kind"] == "neocloud"
    assert costs["provider_runner_up"]["key"] == "gpuco"
    # The cloud shown is the chosen provider's; the runner-up's costs more.
    assert costs["provider"]["present_value"] == pytest.approx(cloud(costs), abs=0.01)
    assert costs["provider_runner_up"]["present_value"] > cloud(costs)
    priced = {
        f["value"] for name, f in costs["assumptions"].items() if name == "gpu_hour_on_demand"
    }
    assert priced == {3.09}


def test_a_workload_that_requires_a_hyperscaler_never_lands_on_a_neocloud():
    costs = evaluate({"allow": ["hyperscaler"]}).costs
    assert costs["provider"]["key"] == "bigcloud"
    assert costs["provider"]["kind"] == "hyperscaler"
    assert costs["provider_runner_up"]["key"] == "othercloud"


def test_a_provider_excluded_by_name_or_kind_is_not_chosen():
    assert evaluate({"exclude": ["cheapgpu"]}).costs["provider"]["key"] == "gpuco"
    costs = evaluate({"exclude": ["neocloud", "bigcloud"]}).costs
    assert costs["provider"]["key"] == "othercloud"
    assert costs["provider_runner_up"] is None  # the one provider left


def test_the_cheapest_listed_provider_prices_the_cloud_by_default():
    """Issue 53: without a `providers` answer every listed provider is allowed."""
    default, every = evaluate().costs, evaluate({}).costs
    assert default["provider"]["key"] == every["provider"]["key"] == "cheapgpu"
    assert default["present_value"] == every["present_value"]
    assert default["provider_unlisted"] is False


def test_dearer_list_prices_make_the_cloud_dearer_than_the_market_figures():
    market = at_market().costs
    hyperscaler = evaluate({"allow": ["hyperscaler"]}).costs
    assert market["provider"] is None and market["provider_runner_up"] is None
    assert cloud(hyperscaler) > cloud(market)
    # The servers owned do not depend on whom the cloud is rented from; the bridge rented
    # while they are delivered does.
    owned, market_owned = hyperscaler["breakdown"]["onprem"], market["breakdown"]["onprem"]
    assert owned["servers"] == market_owned["servers"]
    assert owned["bridge"] > market_owned["bridge"]


def test_data_that_may_not_leave_never_lands_on_a_provider():
    evaluation = evaluate({}, residency="all")
    assert evaluation.result.recommendation != "cloud"
    # The ruled-out cloud is shown at the price it would be rented at, and says so.
    assert evaluation.costs["provider"]["key"] == "cheapgpu"
    assert evaluation.costs["provider"]["ruled_out"] is True
    # One price: the sentence's present value is the cost table's (ruled-out) cloud.
    assert evaluation.costs["provider"]["present_value"] == pytest.approx(
        cloud(evaluation.costs), abs=0.01
    )
    assert "ruled_out" not in evaluate({}).costs["provider"]


def test_no_provider_allowed_that_rents_the_gpu_model_leaves_the_market_figures():
    costs = evaluate({"allow": ["h200only"]}).costs
    assert costs["provider"] is None
    assert costs["provider_unlisted"] is True
    assert evaluate().costs["provider_unlisted"] is False
    # The market's index: the median of the listed providers' own prices for the model.
    index = costs["assumptions"]["gpu_hour_on_demand"]
    assert index["source"].startswith("Market index: the median of 4 listed providers")
    assert index["value"] == pytest.approx(statistics.median([6.88, 11.0, 3.85, 3.09]))
    # Where no listed provider rents the model at all, the market's own figures stand.
    alone = at_market().costs
    assert (
        alone["assumptions"]["gpu_hour_on_demand"]["value"]
        == shipped_figures()["gpu_hour_on_demand"].value
    )


def test_a_provider_of_another_market_is_never_chosen():
    costs = evaluate({"allow": ["yuncloud", "gpuco"]}).costs
    assert costs["provider"]["key"] == "gpuco"


def test_a_price_the_provider_does_not_publish_is_derived_and_says_so():
    figures = shipped_figures()
    provider = make_provider("gpuco", "neocloud", gpu_hour_on_demand=4.0)
    priced = priced_at(figures, provider, gpu_model="h100")
    ratio = figures["gpu_hour_reserved_1y"].value / figures["gpu_hour_on_demand"].value
    assert priced["gpu_hour_on_demand"].value == 4.0
    assert not priced["gpu_hour_on_demand"].estimated
    assert priced["gpu_hour_reserved_1y"].value == pytest.approx(4.0 * ratio, abs=1e-4)
    assert priced["gpu_hour_reserved_1y"].estimated
    assert "Gpuco publishes no gpu_hour_reserved_1y" in priced["gpu_hour_reserved_1y"].source
    assert priced["egress_price_tb"].value == figures["egress_price_tb"].value
    assert priced["egress_price_tb"].estimated
    assert priced["egress_price_tb"].source_zh.startswith("估算")


def test_a_model_s_own_price_wins_over_the_provider_s_price_for_every_model():
    provider = make_provider(
        "gpuco", "neocloud", gpu_hour_on_demand=4.0, gpu_hour_on_demand__h200=5
    )
    assert provider.published("h200")["gpu_hour_on_demand"].value == 5
    assert provider.published("h100")["gpu_hour_on_demand"].value == 4.0
    assert [p.key for p in allowed(LISTED, {}, gpu_model="h200")].count("h200only") == 1
    assert "h200only" not in [p.key for p in allowed(LISTED, {}, gpu_model="h100")]


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ([], "give an object"),
        ({"only": ["aws"]}, "unknown key “only”"),
        ({"allow": "aws"}, "“allow” must be a list"),
        ({"allow": ["nobody"]}, "unknown provider or kind “nobody”"),
        ({"exclude": [3]}, "unknown provider or kind “3”"),
    ],
)
def test_a_providers_answer_that_names_nothing_known_is_refused(raw, problem):
    choice, found = choice_given(raw, known=["aws", "lambda"])
    assert choice == {}
    assert problem in found


def test_a_providers_answer_keeps_kinds_and_names_once():
    choice, problem = choice_given(
        {"allow": ["neocloud", "aws", "aws"], "exclude": []}, known=["aws"]
    )
    assert problem is None
    assert choice == {"allow": ["neocloud", "aws"]}


# --- shipped providers, the API, the saved result and the pages ---------------------------


def _post(client, answers):
    return client.post(
        reverse("decider-api-assessments"),
        data=json.dumps({"name": "Providers", "answers": answers}),
        content_type="application/json",
    )


@pytest.mark.django_db
def test_every_shipped_provider_price_is_dated_and_sourced(rules):
    assert ProviderRow.objects.filter(market="global").count() >= 8
    for price in ProviderPrice.objects.select_related("provider"):
        assert price.as_of is not None
        assert "http" in price.source, price
        assert price.source_zh, price
    # Every listed provider rents the default H100 at a price it publishes.
    listed = ProviderRow.listed("global")
    assert all(p.rents("h100") for p in listed)


@pytest.mark.django_db
def test_the_api_names_the_provider_and_a_hyperscaler_requirement_binds(client, rules):
    answers = make_answers("growth", providers={"allow": ["hyperscaler"]})
    data = _post(client, answers).json()["result"]
    provider, runner_up = data["costs"]["provider"], data["costs"]["provider_runner_up"]
    assert provider["kind"] == runner_up["kind"] == "hyperscaler"
    assert runner_up["present_value"] > provider["present_value"]
    # No provider asked for: the cheapest listed one of any kind (issue 53).
    plain = _post(client, make_answers("growth")).json()["result"]["costs"]
    every = _post(client, make_answers("growth", providers={})).json()["result"]["costs"]
    assert plain["provider"]["key"] == every["provider"]["key"]
    assert plain["provider"]["present_value"] == every["provider"]["present_value"]


@pytest.mark.django_db
def test_an_unknown_provider_is_refused_with_the_names_that_exist(client, rules):
    response = _post(client, make_answers("growth", providers={"exclude": ["amazon"]}))
    assert response.status_code == 400
    message = response.json()["errors"]["providers"]
    assert "unknown provider or kind “amazon”" in message
    assert "aws" in message
    assert Assessment.objects.count() == 0


@pytest.mark.django_db
def test_a_saved_result_keeps_the_provider_prices_it_was_scored_with(client, rules):
    assessment, _edit, _view = make_assessment(answers=make_answers("growth", providers={}))
    services.assessment_score(assessment)
    before = services.assessment_costs(assessment, currency="USD")
    chosen = before["provider"]["key"]
    ProviderPrice.objects.filter(
        provider__key=chosen, name__startswith="gpu_hour", gpu_model="h100"
    ).update(value=0.5)
    # Scored again on changed answers, it keeps its pinned prices: the change is the answers'.
    assessment.answers = {**assessment.answers, "gpus": assessment.answers["gpus"] + 8}
    assessment.save()
    services.assessment_score(assessment)
    again = services.assessment_costs(assessment, currency="USD")
    # (On the changed answers another pinned provider may come out cheapest: the two
    # cheapest are within a fraction of a percent.)
    assert again["assumptions"]["gpu_hour_on_demand"]["value"] != 0.5
    # A new assessment is priced at the new price.
    fresh, _e, _v = make_assessment(answers=make_answers("growth", providers={}))
    services.assessment_score(fresh)
    fresh_costs = services.assessment_costs(fresh, currency="USD")
    assert fresh_costs["provider"]["key"] == chosen
    assert fresh_costs["assumptions"]["gpu_hour_on_demand"]["value"] == 0.5


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "says"),
    [("en", "list prices"), ("zh-hans", "公开标价")],
)
def test_the_result_page_names_the_provider_and_the_runner_up(client, rules, language, says):
    assessment, edit, _view = make_assessment(answers=make_answers("growth", providers={}))
    services.assessment_score(assessment)
    costs = services.assessment_costs(assessment, currency="USD")
    page = client.get(
        reverse("decider-result", args=[edit]), headers={"Accept-Language": language}
    ).content.decode()
    assert says in page
    name = costs["provider"]["name_zh"] if language != "en" else costs["provider"]["name"]
    assert name in page
    assert costs["provider_runner_up"]["name"] in page


@pytest.mark.django_db
def test_an_admin_edits_a_provider_price_with_history(admin_client, rules):
    price = ProviderPrice.objects.select_related("provider").first()
    page = admin_client.get(reverse("admin:decider_provider_change", args=[price.provider.pk]))
    assert page.status_code == 200
    assert price.source[:30] in page.content.decode()
    response = admin_client.post(
        reverse("admin:decider_providerprice_change", args=[price.pk]),
        {
            "provider": price.provider.pk,
            "name": price.name,
            "gpu_model": price.gpu_model,
            "value": "-1",
            "source": price.source,
            "source_zh": price.source_zh,
            "as_of": str(price.as_of),
        },
    )
    assert response.status_code == 200  # shown again, with the problem next to the value
    assert "errorlist" in response.content.decode()
    price.refresh_from_db()
    assert price.value >= 0
    admin_client.post(
        reverse("admin:decider_providerprice_change", args=[price.pk]),
        {
            "provider": price.provider.pk,
            "name": price.name,
            "gpu_model": price.gpu_model,
            "value": "4.25",
            "source": price.source,
            "source_zh": price.source_zh,
            "as_of": str(price.as_of),
        },
    )
    price.refresh_from_db()
    assert price.value == 4.25
    assert price.history.count() == 2  # loaded, then edited


@pytest.mark.django_db
def test_the_wizard_asks_whom_to_rent_from_and_the_result_follows(client, rules):
    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    step = reverse("decider-step", args=[edit, "data"])
    page = client.get(step).content.decode()
    assert "Whom would you rent cloud GPUs from?" in page
    response = client.post(
        step, {**STEP_POSTS["data"], "cloud_provider": "hyperscaler", "next": "1"}
    )
    assert response.status_code == 302
    assessment.refresh_from_db()
    assert assessment.answers["cloud_provider"] == "hyperscaler"
    result = client.get(reverse("decider-result", args=[edit])).content.decode()
    hyperscalers = ProviderRow.objects.filter(kind="hyperscaler").values_list("name", flat=True)
    assert "list prices" in result
    assert any(f"{name}'s list prices" in result.replace("&#x27;", "'") for name in hyperscalers)


@pytest.mark.django_db
def test_a_bad_provider_answer_is_named_next_to_the_field(client, rules):
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    step = reverse("decider-step", args=[edit, "data"])
    response = client.post(step, {**STEP_POSTS["data"], "cloud_provider": "moon", "next": "1"})
    assert response.status_code == 200
    assert "cloud_provider" in response.context["form"].errors


@pytest.mark.django_db
def test_a_market_without_listed_providers_says_the_market_price_is_used(client, rules):
    answers = make_answers("growth", market="cn", gpu_model="h20", cloud_provider="hyperscaler")
    data = _post(client, answers).json()
    assert data["result"]["costs"]["provider"] is None
    assert data["result"]["costs"]["provider_unlisted"] is True
    page = client.get(data["view_url"]).content.decode()
    assert "No listed provider of the kind your answers allow" in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "says"),
    [("en", "at its list prices costs"), ("zh-hans", "比按市场典型价格多花")],
)
def test_the_summary_and_the_report_state_what_the_provider_costs_against_the_market(
    client, rules, language, says
):
    answers = make_answers("growth", cloud_provider="hyperscaler")
    assessment, edit, _view = make_assessment(answers=answers)
    services.assessment_score(assessment)
    costs = services.assessment_costs(assessment, currency="USD")
    provider = costs["provider"]
    # Hyperscalers list dearer GPU-hours than the market's typical (GPU cloud) price.
    assert provider["present_value"] > provider["market_present_value"]
    for url in (
        reverse("decider-result", args=[edit]),
        reverse("decider-edit-report", args=[edit]),
    ):
        page = client.get(url, headers={"Accept-Language": language}).content.decode()
        assert 'id="summary-provider"' in page
        assert says in page


@pytest.mark.django_db
def test_the_provider_s_money_follows_the_currency_shown(rules):
    assessment, _edit, _view = make_assessment(answers=make_answers("growth", providers={}))
    services.assessment_score(assessment)
    usd = services.assessment_costs(assessment, currency="USD")
    cny = services.assessment_costs(assessment, currency="CNY")
    rate = cny["present_value"]["onprem"] / usd["present_value"]["onprem"]
    for key in ("provider", "provider_runner_up"):
        assert cny[key]["present_value"] == pytest.approx(
            usd[key]["present_value"] * rate, rel=1e-6
        )
    assert cny["provider"]["market_present_value"] == pytest.approx(
        usd["provider"]["market_present_value"] * rate, rel=1e-6
    )


@pytest.mark.django_db
def test_decide_prices_at_the_provider_and_names_an_unknown_one(rules, tmp_path, capsys):
    from tests.test_decide import run_decide

    answers = make_answers("startup", providers={"allow": ["neocloud"], "exclude": ["paperspace"]})
    code, out, _err = run_decide(tmp_path, capsys, answers, "--format", "json")
    assert code == 0
    costs = json.loads(out)["costs"]
    assert costs["provider"]["kind"] == "neocloud"
    assert costs["provider"]["key"] != "paperspace"
    answers["providers"] = {"allow": ["amazon"]}
    code, _out, err = run_decide(tmp_path, capsys, answers, "--format", "json")
    assert code == 2
    assert "providers: “allow”: unknown provider or kind “amazon”" in err


@pytest.mark.parametrize("grows", [False, True])
def test_the_provider_s_present_value_is_the_cost_section_s_cloud(grows):
    answers = make_growing_answers() if grows else make_answers("inference")
    answers["providers"] = {}
    evaluation = answers_evaluate(
        answers=answers, rulebook=shipped_rulebook(), figures=shipped_figures(), listed=LISTED
    )
    costs = evaluation.costs
    assert costs["provider"]["present_value"] == pytest.approx(cloud(costs), abs=0.01)
    # The market's index (no provider allowed that rents the model) gives the market's cloud.
    market = answers_evaluate(
        answers={**answers, "providers": {"allow": ["h200only"]}},
        rulebook=shipped_rulebook(),
        figures=shipped_figures(),
        listed=LISTED,
    ).costs
    assert costs["provider"]["market_present_value"] == pytest.approx(cloud(market), abs=0.01)
