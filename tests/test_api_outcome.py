"""The fourth outcome (issue 36): a hosted model paid per token, weighed by the rule set
beside the GPUs for a service sized from what it serves, and ruled out where it may not go."""

from __future__ import annotations

import copy
import json
import random

import pytest

from decider.engine import scoring
from decider.engine.batch import recommendations_batch
from decider.engine.outcomes import COST_VERDICTS
from decider.engine.ruledocs import rulebook_from_document
from decider.engine.sensitivity import weight_sensitivity
from decider.engine.sizing import workload_parse
from decider.models import RuleSet
from decider.rulesets import ruleset_import
from tests.factories import FIXTURES, make_answers, shipped_rulebook, varied_answers
from tests.test_tokens import _created, _service_answers

SHIPPED = shipped_rulebook()
HOSTED = "Hosted model, paid per token"


def _served(**changes) -> dict:
    """8B at 50 M tokens a day, twice the average at the peak: nothing binding by default."""
    return _service_answers(8, 50, 2.0, **{"latency_critical": False, **changes})


@pytest.mark.django_db
def test_an_8b_service_at_50m_tokens_a_day_is_recommended_per_token(client, rules):
    result = _created(client, _served())["result"]
    assert result["recommendation"] == "api"
    assert set(result["scores"]) == {"onprem", "cloud", "hybrid", "api"}
    assert result["scores"]["api"] == max(result["scores"].values())
    assert result["costs"]["verdict"] == "api_clear"
    gpus = min(v for k, v in result["costs"]["present_value"].items() if k != "api")
    assert result["costs"]["present_value"]["api"] < gpus
    summary = result["summary"]
    assert summary["headline"].startswith(f"{HOSTED}: Run no GPUs")
    assert result["costs"]["api"]["provider"] in summary["headline"]
    titles = [item["title"] for item in summary["checklist"]]
    assert "Clear the provider's data terms" in titles
    assert not any("data" in t.lower() and "migrat" in t.lower() for t in titles)
    assert result["costs"]["api"]["provider"] in summary["next_steps"][0]["text"]
    assert summary["extra_cost"] is None  # the headline is the cheapest


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_data_that_may_not_leave_excludes_the_per_token_option_with_its_reason(
    client, rules, language
):
    created = _created(client, _served(residency="all"))
    result = created["result"]
    assert result["recommendation"] != "api"
    assert "premises" in result["excluded"]["api"]
    page = client.get(created["edit_url"], headers={"Accept-Language": language}).content.decode()
    words = "ruled out" if language == "en" else "已排除"
    assert words in page


@pytest.mark.django_db
def test_a_training_assessment_never_weighs_the_per_token_option(client, rules):
    result = _created(client, make_answers("research_lab"))["result"]
    assert "api" not in result["scores"] and "api" not in result["excluded"]
    assert not any(c["outcome"] == "api" for c in result["contributions"])


@pytest.mark.django_db
def test_strict_latency_lowers_it_and_says_that_no_latency_figure_is_published(client, rules):
    strict = _created(client, _served(latency_critical=True))["result"]
    relaxed = _created(client, _served())["result"]
    assert strict["scores"]["api"] < relaxed["scores"]["api"]
    latency = [
        c for c in strict["contributions"] if c["outcome"] == "api" and c["criterion"] == "latency"
    ]
    assert latency and latency[0]["points"] < 0
    assert "latency figure" in latency[0]["reason"]
    # Strict latency may override cost: the cheapest no longer takes the headline alone.
    assert strict["recommendation"] != "api"
    assert strict["summary"]["extra_cost"]["cheapest"] == "api"


@pytest.mark.django_db
def test_a_jurisdiction_concern_prices_only_providers_under_it(client, rules):
    # A large mixture of experts in the global market: DeepSeek's own API (based in China)
    # is listed beside providers based outside it.
    concerned = _service_answers(400, 500, 2.0, latency_critical=False, jurisdiction_concern=True)
    api = _created(client, concerned)["result"]["costs"]["api"]
    assert api is not None and api["jurisdiction"] == "intl"


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_page_and_the_report_lead_with_the_per_token_plan(client, rules, language):
    created = _created(client, _served())
    provider = created["result"]["costs"]["api"]["provider"]
    for url in (created["edit_url"], created["edit_url"].rstrip("/") + "/report/"):
        page = client.get(url, headers={"Accept-Language": language}).content.decode()
        decision = page[page.index('id="decision-plan"') :][:1500]
        assert provider in decision
        assert ("Run no GPUs" if language == "en" else "不使用 GPU") in decision
        assert 'data-option="api"' in page  # its column in the options table


def test_the_batch_agrees_with_the_engine_when_per_token_is_weighed():
    rng = random.Random(36)
    rows = []
    for _ in range(1500):
        row = varied_answers(rng)
        if rng.random() < 0.6:
            row[scoring.PER_TOKEN] = True
            row["cost_verdict"] = rng.choice(COST_VERDICTS)
        rows.append(row)
    one_by_one = [scoring.answers_score(answers=r, rulebook=SHIPPED).recommendation for r in rows]
    assert recommendations_batch(answers_rows=rows, rulebook=SHIPPED) == one_by_one
    assert "api" in one_by_one  # some of them pick it


def test_weight_sensitivity_names_the_per_token_option_where_a_weight_gives_it():
    answers = {**make_answers("inference", latency_critical=False), scoring.PER_TOKEN: True}
    answers["cost_verdict"] = "api_clear"
    assert scoring.answers_score(answers=answers, rulebook=SHIPPED).recommendation == "onprem"
    found = {item.criterion: item for item in weight_sensitivity(answers=answers, rulebook=SHIPPED)}
    # Weigh the cost verdict higher and the cheapest, per token, takes the headline.
    assert found["cost"].up_to == "api" and found["cost"].up_factor > 1


@pytest.mark.django_db
def test_a_rule_set_written_before_the_fourth_outcome_still_imports(rules):
    document = json.loads((FIXTURES / "ruleset.json").read_text(encoding="utf-8"))
    old = copy.deepcopy(document)
    for criterion in old["criteria"]:
        criterion["options"] = [
            o for o in criterion["options"] if not o.get("value", "").startswith("api")
        ]
        for option in criterion["options"]:
            option["scores"].pop("api")
    old["constraints"] = [c for c in old["constraints"] if c["outcome"] != "api"]
    ruleset = ruleset_import(old, version=RuleSet.objects.count() + 100, publish=False)
    book = rulebook_from_document(old)
    answers = {**make_answers("startup"), scoring.PER_TOKEN: True, "cost_verdict": "api_clear"}
    result = scoring.answers_score(answers=answers, rulebook=book)
    assert result.scores["api"] == scoring.NEUTRAL  # no rule scores it: neutral, not an error
    assert ruleset.criteria.get(key="stage").options.first().score_api == 0


# --- the prices, in the admin ---------------------------------------------------------


@pytest.mark.django_db
def test_load_defaults_loads_every_shipped_price_once_and_keeps_an_edited_one(rules):
    from django.core.management import call_command

    from decider.models import TokenPrice

    shipped = json.loads((FIXTURES / "token_prices.json").read_text(encoding="utf-8"))["prices"]
    assert TokenPrice.objects.count() == len(shipped)
    edited = TokenPrice.objects.filter(market="cn").first()
    edited.price_in_per_m = 123.0
    edited.save()
    call_command("load_defaults", verbosity=0)
    assert TokenPrice.objects.count() == len(shipped)
    assert TokenPrice.objects.get(pk=edited.pk).price_in_per_m == 123.0


def _publisher(django_user_model, name: str = "paula", group: str = "publishers"):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(name, password="x" * 12, is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.mark.django_db
def test_a_publisher_edits_a_price_in_the_admin_and_the_next_assessment_pays_it(
    client, rules, django_user_model
):
    from decider.models import TokenPrice
    from tests.adminforms import change_form_data, change_url

    used = _created(client, _served())["result"]["costs"]["api"]
    row = TokenPrice.objects.get(provider=used["provider"], model=used["model"], market="global")
    client.force_login(_publisher(django_user_model))
    page = client.get(change_url(row))
    data = change_form_data(page) | {"price_in_per_m": "-1"}
    refused = client.post(change_url(row), data)
    assert refused.status_code == 200  # the form again, with the message at the field
    assert "greater than or equal to 0" in refused.content.decode()
    data |= {"price_in_per_m": str(used["price_in_per_m"] * 3)}
    assert client.post(change_url(row), data).status_code == 302
    assert row.history.count() == 2  # loaded, then edited: both kept
    client.logout()
    again = _created(client, _served())["result"]["costs"]["api"]
    if again["provider"] == used["provider"]:  # still the cheapest: at the new price
        assert again["price_in_per_m"] == pytest.approx(used["price_in_per_m"] * 3)
    else:  # dearer now than another provider's, which is priced instead
        assert again["price_in_per_m"] <= used["price_in_per_m"] * 3


@pytest.mark.django_db
def test_a_viewer_may_read_the_prices_and_change_none(client, rules, django_user_model):
    from decider.models import TokenPrice
    from tests.adminforms import change_form_data, change_url

    row = TokenPrice.objects.first()
    client.force_login(_publisher(django_user_model, "vera", "viewers"))
    page = client.get(change_url(row))
    assert page.status_code == 200
    response = client.post(change_url(row), change_form_data(page) | {"price_in_per_m": "9"})
    assert response.status_code == 403
    assert TokenPrice.objects.get(pk=row.pk).price_in_per_m == row.price_in_per_m


@pytest.mark.django_db
def test_the_price_fall_is_a_cost_figure_the_admin_sets(client, rules):
    from django.core.cache import caches

    from decider import caching
    from decider.models import Assumption

    held = _created(client, _served())["result"]["costs"]
    assert held["api"]["fall_pct_per_year"] == 50
    Assumption.objects.filter(name="token_price_fall").update(value=0.0)
    for alias in ("default", caching.CACHE):
        caches[alias].clear()
    flat = _created(client, _served())["result"]["costs"]
    assert flat["api"]["fall_pct_per_year"] == 0
    assert flat["present_value"]["api"] > held["present_value"]["api"]


@pytest.mark.django_db
def test_a_what_if_on_a_saved_result_keeps_its_token_price(client, rules):
    from django.db.models import F

    from decider import services
    from decider.models import Assessment, TokenPrice

    created = _created(client, _served())
    pinned = created["result"]["costs"]["api"]
    TokenPrice.objects.update(
        price_in_per_m=F("price_in_per_m") * 10, price_out_per_m=F("price_out_per_m") * 10
    )
    saved = Assessment.objects.latest("pk")
    trial = services.assessment_what_if(saved, {**saved.answers, "horizon_years": 5})
    tried = services.assessment_costs(trial, currency="USD")["api"]
    assert tried["price_in_per_m"] == pinned["price_in_per_m"]
    assert tried["provider"] == pinned["provider"]
    # A what-if on a model of another class is priced at today's prices for that class.
    bigger = {**saved.answers, "served": {**saved.answers["served"], "params_b": 70}}
    other = services.assessment_costs(services.assessment_what_if(saved, bigger), currency="USD")
    assert other["api"]["model_class"] == "70b"


# --- the steady base owned, the bursts per token ------------------------------------------


@pytest.mark.django_db
def test_owning_the_base_and_sending_the_bursts_per_token_is_priced_as_its_two_parts(client, rules):
    from decider.engine import evaluation, questionnaire
    from decider.engine.figures import figures_from_dict
    from tests.factories import shipped_figures

    created = _created(client, _service_answers(70, 3000, 3.0, latency_critical=False))
    costs = created["result"]["costs"]
    mixed = costs["api_hybrid"]
    answers = created["answers"]
    demand = questionnaire.demand_of(answers)
    assert 1 <= mixed["owned_gpus"] < answers["gpus"]
    assert mixed["owned_gpus"] in (int(demand.base), int(demand.base) + 1)
    assert 0 < mixed["burst_share_pct"] < 100
    owned = {k: v for k, v in answers.items() if k not in questionnaire.LEVELS_REPLACE} | {
        "gpus": mixed["owned_gpus"],
        "base_gpus": min(mixed["owned_gpus"], demand.base),
        "peak_share_pct": demand.peak_share * 100,
    }
    # Priced at the figures the result was priced at (the listed provider's, issue 53).
    priced = figures_from_dict(created["result"]["costs"]["assumptions"])
    figures = evaluation._figures_used(owned, {**shipped_figures(), **priced})
    owning = evaluation.answers_costs(answers=owned, figures=figures, excluded=[])
    # Per token, the bill is linear in the volume (no growth here): the bursts' share of it.
    bursts = costs["present_value"]["api"] * mixed["burst_share_pct"] / 100
    assert mixed["present_value"] == pytest.approx(
        owning["present_value"]["onprem"] + bursts, rel=1e-3
    )


@pytest.mark.django_db
def test_a_steady_service_has_no_bursts_to_send(client, rules):
    costs = _created(client, _service_answers(70, 10_000, 1.0))["result"]["costs"]
    assert costs["api_hybrid"] is None


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_page_says_what_owning_the_base_would_cost(client, rules, language):
    created = _created(client, _service_answers(70, 3000, 3.0, latency_critical=False))
    page = client.get(created["edit_url"], headers={"Accept-Language": language}).content.decode()
    line = page[page.index('id="api-hybrid"') :][:600]
    gpus = created["result"]["costs"]["api_hybrid"]["owned_gpus"]
    words = "for the steady base" if language == "en" else "稳定基线"
    assert words in line and str(gpus) in line


@pytest.mark.django_db
def test_each_option_s_cost_per_million_input_and_output_tokens_add_up_to_its_total(client, rules):
    created = _created(client, _service_answers(70, 3000, 3.0, latency_critical=False))
    costs = created["result"]["costs"]
    apart = costs["api_cost_per_m_tokens_apart"]
    _training, service, _errors = workload_parse({"inference": created["answers"]["served"]})
    input_m, output_m = service.tokens_apart()
    share = input_m / (input_m + output_m)
    for key, parts in apart.items():
        # Each token at its own price, over the mix served: the option's price of a token.
        mixed = parts["input"] * share + parts["output"] * (1 - share)
        assert mixed == pytest.approx(costs["api_cost_per_m_tokens"][key], rel=1e-3), key
    # On GPUs, a prompt token is read far faster than an answer token is written.
    for key in ("onprem", "cloud_on_demand", "hybrid"):
        assert apart[key]["input"] < apart[key]["output"] / 2
    # Per token, the two parts keep the price list's ratio.
    price = costs["api"]
    assert apart["api"]["input"] / apart["api"]["output"] == pytest.approx(
        price["price_in_per_m"] / price["price_out_per_m"], rel=1e-2
    )
    page = client.get(created["edit_url"]).content.decode()
    assert 'id="api-apart"' in page and ">Input</th>" in page


@pytest.mark.django_db
def test_with_part_of_the_data_bound_the_hybrid_sends_only_bursts_that_may_leave(client, rules):
    created = _created(
        client, _service_answers(70, 3000, 3.0, latency_critical=False, residency="partial")
    )
    result = created["result"]
    assert "Part of the data must stay" in result["excluded"]["api"]
    mixed = result["costs"]["api_hybrid"]
    assert 0 < mixed["burst_share_pct"] <= 50  # the share of the work whose data may leave
    # Cheaper than renting the bursts: it is the hybrid, at one price (issue 50).
    assert result["costs"]["hybrid_bursts"] == "per_token"
    assert mixed["present_value"] == result["costs"]["present_value"]["hybrid"]
    assert result["costs"]["breakdown"]["hybrid"]["tokens"] > 0
    assert result["recommendation"] == "hybrid"
    summary = result["summary"]
    provider = result["costs"]["api"]["provider"]
    assert f"Own {mixed['owned_gpus']} GPUs for the steady base" in summary["headline"]
    assert provider in summary["headline"]
    steps = " ".join(step["text"] for step in summary["next_steps"])
    assert "Get quotes" in steps and provider in steps
    titles = [item["title"] for item in summary["checklist"]]
    assert "Plan the build and its lead time" in titles
    assert "Clear the provider's data terms" in titles
    assert "Adapt job scheduling" not in titles  # no GPUs rented
    assert summary["extra_cost"] is None  # the cheapest the constraints allow
