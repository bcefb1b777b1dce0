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
    result = _created(client, _served(jurisdiction_concern=True, market="cn"))["result"]
    api = result["costs"]["api"]
    assert api is None or api["jurisdiction"] == "cn"


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
