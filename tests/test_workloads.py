"""Several workloads decided together: one owned pool, and what pooling saves
(decider/engine/workloads.py, engine/evaluation.pooled_facts)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from decider import services
from decider.engine.demand import Demand
from decider.engine.evaluation import answers_evaluate, answers_plan
from decider.engine.validation import answers_validate
from decider.engine.workloads import Workload, placement, pooled, pooled_answers
from tests.factories import make_answers, make_assessment, shipped_figures, shipped_rulebook

DEMAND = ("gpus", "utilization_pct", "demand_shape", "base_gpus", "peak_share_pct")

# The three: steady inference on 48 GPUs, training bursts to 64 GPUs four months a
# year, a research group of 8 GPUs at 30 %.
THREE = [
    {"name": "serving", "workload": "inference", "gpus": 48, "utilization_pct": 90,
     "demand_shape": "steady"},
    {"name": "training", "workload": "training", "gpus": 64, "base_gpus": 0,
     "peak_share_pct": 33.3},
    {"name": "research", "workload": "training", "gpus": 8, "utilization_pct": 30,
     "demand_shape": "peaky"},
]  # fmt: skip


def company(workloads: list[dict[str, Any]] = THREE, **changes: Any) -> dict[str, Any]:
    """A company with a data centre and a team of its own, deciding for five years."""
    settled = {"residency": "none", "horizon_years": 5, "has_datacenter": True, "ops_fte": 2.0}
    answers = make_answers("growth", **(settled | changes))
    for key in DEMAND:
        answers.pop(key, None)
    answers["workloads"] = workloads
    return answers


def decided(answers: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    checked, errors = answers_validate(answers)
    assert errors == {}
    evaluation = answers_evaluate(
        answers=checked, rulebook=shipped_rulebook(), figures=shipped_figures()
    )
    plan = answers_plan(
        answers=checked,
        figures=evaluation.figures,
        excluded=evaluation.result.excluded,
        outcome=evaluation.result.recommendation,
    )
    return evaluation, plan


def test_three_workloads_together_own_a_busier_pool_and_cost_less_than_apart():
    # Over six years owning the serving base pays (over five, renting all of it is 1 %
    # cheaper, and the plan owns nothing: there is no pool to be busy).
    _evaluation, plan = decided(company(horizon_years=6))
    alone = [w["alone"]["utilization_pct"] for w in plan["workloads"]]
    assert plan["pooling"]["owned_gpus"] > 0
    assert plan["pooled_utilization_pct"] > max(alone)
    assert plan["pooling"]["together_present_value"] < plan["pooling"]["apart_present_value"]
    assert plan["pooling"]["saving"] == pytest.approx(
        plan["pooling"]["apart_present_value"] - plan["pooling"]["together_present_value"],
        abs=0.01,
    )
    # The shares of the plan add up to the plan.
    shares = sum(w["present_value"] for w in plan["workloads"])
    assert shares == pytest.approx(plan["chosen_present_value"], rel=1e-6)


def test_the_pool_s_demand_stands_in_for_the_answers_own():
    checked, _errors = answers_validate(company())
    assert checked["gpus"] == 48 + 64 + 8
    mean = 48 * 0.9 + 64 * 0.333 + 8 * 0.3
    pool = Demand(checked["gpus"], checked["base_gpus"], checked["peak_share_pct"] / 100)
    assert pool.mean == pytest.approx(mean, rel=1e-3)
    assert checked["workload"] == "mixed"


def test_a_workload_whose_data_may_not_leave_runs_on_owned_gpus_only():
    bound = [*THREE[:2], {**THREE[2], "residency": "all"}]
    evaluation, plan = decided(company(bound, cloud_provider="cheapest"))
    research = plan["workloads"][2]
    assert research["residency"] == "all"
    assert research["runs"] == "owned"
    assert research["owned_gpus"] >= research["peak_gpus"]
    assert research["rented_mean_gpus"] == 0
    # Decided alone it is never priced in the cloud either.
    assert research["alone"]["outcome"] != "cloud"
    assert evaluation.result.recommendation != "cloud"


def test_a_workload_is_as_bound_as_the_company():
    checked, _errors = answers_validate(company(residency="all"))
    assert {w["residency"] for w in checked["workloads"]} == {"all"}
    assert checked["residency"] == "all"


def test_the_bound_work_comes_first_on_the_owned_gpus():
    free = Workload("free", "training", "none", Demand(64, 0.0, 0.5))
    bound = Workload("bound", "training", "all", Demand(8, 2.0, 0.3))
    placed = {p["name"]: p for p in placement([free, bound], owned=10)}
    assert placed["bound"]["owned_gpus"] == 8
    assert placed["free"]["owned_gpus"] == 2
    assert pooled([free, bound]).peak == 72
    assert pooled_answers([free, bound])["cloud_share_pct"] == pytest.approx(64 / 72 * 100, 0.01)


@pytest.mark.parametrize(
    ("change", "key", "message"),
    [
        ([THREE[0]], "workloads", "2 to 8 workloads"),
        ([THREE[0], {**THREE[1], "gpus": 0}], "workloads.1.gpus", "greater than or equal to 1"),
        ([THREE[0], {**THREE[1], "colour": "red"}], "workloads.1.colour", "unknown key"),
        ([THREE[0], {"name": "x", "utilization_pct": 50}], "workloads.1.gpus", "missing"),
        ([THREE[0], {**THREE[1], "base_gpus": 80}], "workloads.1.base_gpus", "must not exceed"),
        ([THREE[0], "training"], "workloads.1", "give an object"),
    ],
)
def test_a_bad_workload_is_named_by_its_place(change, key, message):
    _checked, errors = answers_validate(company(change))
    assert message in errors[key]


def test_one_workload_has_no_pool():
    _evaluation, plan = decided(make_answers("growth"))
    assert plan["workloads"] is None
    assert plan["pooled_utilization_pct"] is None
    assert plan["pooling"] is None


# --- the API and the pages ----------------------------------------------------------------


@pytest.mark.django_db
def test_the_api_decides_the_workloads_together_and_the_page_shows_them(client, rules):
    response = client.post(
        reverse("decider-api-assessments"),
        data=json.dumps({"name": "Three teams", "answers": company()}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    data = response.json()
    view = client.get(data["view_json_url"]).json()["result"]
    assert [w["name"] for w in view["plan"]["workloads"]] == ["serving", "training", "research"]
    assert view["plan"]["pooling"]["saving"] > 0
    for language, says in (
        ("en", "Your workloads in one pool"),
        ("zh-hans", "多个工作负载共用一个资源池"),
    ):
        page = client.get(data["view_url"], headers={"Accept-Language": language})
        text = page.content.decode()
        assert says in text
        assert "research" in text
        assert 'id="summary-pooling"' in text


@pytest.mark.django_db
def test_a_what_if_on_the_demand_leaves_the_workloads_behind(client, rules):
    checked, _errors = answers_validate(company())
    assessment, edit, _view = make_assessment(answers=checked)
    services.assessment_score(assessment)
    assert services.assessment_plan(assessment, currency="USD")["workloads"] is not None
    trial = services.assessment_what_if(assessment, {**checked, "gpus": checked["gpus"] + 16})
    # The demand shown is no longer the workloads' pooled one: no per-workload split.
    assert services.assessment_plan(trial, currency="USD")["workloads"] is None


def _rows(*rows: dict[str, Any], total: int | None = None) -> dict[str, Any]:
    """The workloads page's form data: `rows` filled in, the rest of `total` left empty."""
    total = total or len(rows) + 1
    data: dict[str, Any] = {
        "form-TOTAL_FORMS": str(total),
        "form-INITIAL_FORMS": "0",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "8",
    }
    for number, row in enumerate(rows):
        data |= {f"form-{number}-{key}": value for key, value in row.items()}
    return data


WIZARD_ROWS = (
    {"name": "serving", "workload": "inference", "gpus": "48", "utilization_pct": "90",
     "demand_shape": "steady", "residency": "none"},
    {"name": "training", "workload": "training", "gpus": "64", "utilization_pct": "33",
     "demand_shape": "peaky", "residency": "none"},
    {"name": "research", "workload": "training", "gpus": "8", "utilization_pct": "30",
     "demand_shape": "peaky", "residency": "all"},
)  # fmt: skip


@pytest.mark.django_db
def test_the_wizard_takes_the_workloads_row_by_row_and_pools_them(client, rules):
    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    step = client.get(reverse("decider-step", args=[edit, "utilization"])).content.decode()
    url = reverse("decider-workloads", args=[edit])
    assert url in step
    page = client.get(url)
    assert page.status_code == 200
    assert len(page.context["formset"].forms) == 2  # two empty rows to start with
    response = client.post(url, _rows(*WIZARD_ROWS) | {"action": "use"})
    assert response.status_code == 302
    assert response.url == reverse("decider-step", args=[edit, "utilization"])
    assessment.refresh_from_db()
    answers = assessment.answers
    assert [w["name"] for w in answers["workloads"]] == ["serving", "training", "research"]
    assert answers["gpus"] == 120
    assert "utilization_pct" not in answers  # the pooled levels stand in for it
    # The growth persona's data may partly not leave: every workload at least that bound.
    assert [w["residency"] for w in answers["workloads"]] == ["partial", "partial", "all"]
    step = client.get(reverse("decider-step", args=[edit, "utilization"])).content.decode()
    assert "your 3 workloads pooled" in step
    result = client.get(reverse("decider-result", args=[edit])).content.decode()
    assert "Your workloads in one pool" in result
    # Shown again as saved, and taken back to one demand.
    rows = client.get(url).context["formset"].forms
    assert rows[2].initial["name"] == "research"
    response = client.post(url, _rows() | {"action": "remove"})
    assessment.refresh_from_db()
    assert "workloads" not in assessment.answers
    assert assessment.answers["gpus"] == 120  # the pooled demand stays, to change there


@pytest.mark.django_db
def test_a_bad_workload_row_is_named_next_to_its_field_and_nothing_is_saved(client, rules):
    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    url = reverse("decider-workloads", args=[edit])
    bad = {**WIZARD_ROWS[1], "gpus": "-4"}
    response = client.post(url, _rows(WIZARD_ROWS[0], bad) | {"action": "use"})
    assert response.status_code == 200
    form = response.context["formset"].forms[1]
    assert "gpus" in form.errors
    assert 'id="error-summary"' in response.content.decode()
    one = client.post(url, _rows(WIZARD_ROWS[0]) | {"action": "use"})
    assert one.status_code == 200
    assert "2 to 8 workloads" in one.content.decode()
    assessment.refresh_from_db()
    assert "workloads" not in assessment.answers


@pytest.mark.django_db
def test_add_a_row_keeps_what_was_typed(client, rules):
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    url = reverse("decider-workloads", args=[edit])
    response = client.post(url, _rows(*WIZARD_ROWS[:2], total=2) | {"action": "add"})
    forms = response.context["formset"].forms
    assert len(forms) == 3
    assert forms[0]["name"].value() == "serving"


def test_a_service_in_another_region_is_decided_apart_from_the_pool():
    abroad = {"name": "serving-eu", "workload": "inference", "gpus": 16,
              "utilization_pct": 70, "demand_shape": "steady", "separate": True}  # fmt: skip
    checked, errors = answers_validate(company([*THREE, abroad]))
    assert errors == {}
    assert checked["gpus"] == 48 + 64 + 8  # not in the pool
    _evaluation, plan = decided(company([*THREE, abroad]))
    eu = plan["workloads"][3]
    assert eu["name"] == "serving-eu"
    assert eu["runs"] == "apart"
    assert eu["present_value"] == eu["alone"]["present_value"]
    pooled_only = decided(company())[1]["pooling"]
    pooling = plan["pooling"]
    # On both sides of the saving, decided alone: the saving is the pool's.
    assert pooling["saving"] == pytest.approx(pooled_only["saving"], abs=0.02)
    assert pooling["apart_present_value"] == pytest.approx(
        pooled_only["apart_present_value"] + eu["alone"]["present_value"], abs=0.02
    )


@pytest.mark.parametrize(
    ("workloads", "key", "message"),
    [
        ([{**w, "separate": True} for w in THREE], "workloads", "at least one workload"),
        ([THREE[0], {**THREE[1], "separate": "yes"}], "workloads.1.separate", "true or false"),
    ],
)
def test_a_pool_needs_a_workload_in_it(workloads, key, message):
    _checked, errors = answers_validate(company(workloads))
    assert message in errors[key]


@pytest.mark.django_db
def test_the_wizard_keeps_a_service_abroad_out_of_the_pool(client, rules):
    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    url = reverse("decider-workloads", args=[edit])
    abroad = {**WIZARD_ROWS[0], "name": "serving-eu", "gpus": "16", "separate": "on"}
    response = client.post(url, _rows(*WIZARD_ROWS, abroad) | {"action": "use"})
    assert response.status_code == 302
    assessment.refresh_from_db()
    assert assessment.answers["workloads"][3]["separate"] is True
    assert "separate" not in assessment.answers["workloads"][0]
    assert assessment.answers["gpus"] == 120
    result = client.get(reverse("decider-result", args=[edit])).content.decode()
    assert "apart, in a region of its own" in result
    assert client.get(url).context["formset"].forms[3].initial["separate"] is True


def test_each_workload_grows_at_its_own_rate_and_the_pool_with_them():
    growing = [{**THREE[0], "growth_pct": 50}, THREE[1], THREE[2]]
    checked, errors = answers_validate(company(growing, growth_pct=10))
    assert errors == {}
    years = checked["growth_years"]
    assert len(years) == 5  # the horizon
    # Year 2: serving's 48 grown by half, the rest by the company's 10 %.
    assert years[1]["peak_gpus"] == pytest.approx(48 * 1.5 + (64 + 8) * 1.1, abs=0.01)
    assert years[0]["peak_gpus"] == 120
    _evaluation, plan = decided(company(growing, growth_pct=10))
    assert plan["future"]["years"]  # the plan prices the pool's growth year by year
    still, _e = answers_validate(company(growth_pct=10))
    assert "growth_years" not in still  # no workload of its own rate: the company's holds
    _c, refused = answers_validate(company(growth_years=[{"base_gpus": 1, "peak_gpus": 2}]))
    assert "instead" in refused["growth_years"]


@pytest.mark.django_db
def test_the_wizard_takes_a_workload_s_own_growth(client, rules):
    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    url = reverse("decider-workloads", args=[edit])
    rows = [{**WIZARD_ROWS[0], "growth_pct": "40"}, *WIZARD_ROWS[1:]]
    assert client.post(url, _rows(*rows) | {"action": "use"}).status_code == 302
    assessment.refresh_from_db()
    assert assessment.answers["workloads"][0]["growth_pct"] == 40
    assert len(assessment.answers["growth_years"]) == assessment.answers["horizon_years"]
    # Saved again without it: the pool's growth years go with it.
    assert client.post(url, _rows(*WIZARD_ROWS) | {"action": "use"}).status_code == 302
    assessment.refresh_from_db()
    assert "growth_years" not in assessment.answers


def test_a_latency_bound_workload_makes_the_pool_s_latency_need():
    bound = [{**THREE[0], "latency_critical": True}, THREE[1], THREE[2]]
    checked, errors = answers_validate(company(bound, latency_critical=False))
    assert errors == {}
    assert checked["latency_critical"] is True
    plain, _errors = answers_validate(company(latency_critical=False))
    assert plain["latency_critical"] is False
    assert [w["latency_critical"] for w in checked["workloads"]] == [True, False, False]


@pytest.mark.django_db
def test_the_wizard_takes_a_workload_s_latency_need(client, rules):
    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    url = reverse("decider-workloads", args=[edit])
    rows = [{**WIZARD_ROWS[0], "latency_critical": "true"}, *WIZARD_ROWS[1:]]
    assert client.post(url, _rows(*rows) | {"action": "use"}).status_code == 302
    assessment.refresh_from_db()
    assert assessment.answers["latency_critical"] is True
    assert client.get(url).context["formset"].forms[0].initial["latency_critical"] == "true"
