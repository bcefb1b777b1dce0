"""GPUs already owned (issue 29): no second purchase and no bridge for them, sold by the options
that do not keep them, aged on the resale curve; checked as the answers' `owned` list."""

import pytest

from decider.engine import evaluation, validation
from decider.engine.fleet import fleet_of
from tests.factories import make_answers, shipped_figures, shipped_rulebook

PURCHASES = ("servers", "network", "storage", "spares", "setup")


def _owned(gpus: int, bought: str = "2025-06", model: str = "h100") -> list[dict]:
    return [{"gpu_model": model, "gpus": gpus, "bought": bought}]


def _evaluate(owned=None, **changes):
    answers = make_answers("growth", **changes)
    if owned is not None:
        answers |= {"owned": owned, "owned_as_of": "2026-12"}
    checked, errors = validation.answers_validate(answers)
    assert not errors, errors
    figures = shipped_figures(checked["gpu_model"], "global")
    found = evaluation.answers_evaluate(
        answers=checked, rulebook=shipped_rulebook(), figures=figures
    )
    return checked, found


def test_a_cluster_already_owned_pays_no_purchase_and_no_bridge():
    _answers, bare = _evaluate()
    _answers, owned = _evaluate(_owned(64))  # the persona's whole peak
    before, after = bare.costs["breakdown"]["onprem"], owned.costs["breakdown"]["onprem"]
    assert before["servers"] > 0 and before["bridge"] > 0
    assert all(after[line] == 0 for line in PURCHASES) and after["bridge"] == 0
    # It runs from month 0: a longer run of power than servers bought after the lead time.
    assert after["power"] > before["power"]
    assert owned.costs["present_value"]["onprem"] < bare.costs["present_value"]["onprem"]


def test_part_of_the_peak_owned_buys_only_the_rest_and_bridges_only_what_it_cannot_hold():
    _answers, bare = _evaluate()
    _answers, half = _evaluate(_owned(32))
    before, after = bare.costs["breakdown"]["onprem"], half.costs["breakdown"]["onprem"]
    assert after["servers"] == pytest.approx(before["servers"] / 2)
    assert after["storage"] == 0 and after["setup"] == 0  # the cluster has them already
    assert 0 < after["bridge"] < before["bridge"]


def test_renting_sells_the_fleet_today_for_its_age_and_an_old_one_fetches_nothing():
    _answers, young = _evaluate(_owned(64, "2026-06"))
    _answers, old = _evaluate(_owned(64, "2024-06"))
    _answers, ancient = _evaluate(_owned(64, "2016-01"))
    sale = [f.costs["breakdown"]["cloud_on_demand"]["fleet_sale"] for f in (young, old)]
    assert sale[0] < sale[1] < 0  # a credit, smaller as it ages
    assert "fleet_sale" not in ancient.costs["breakdown"]["cloud_on_demand"] or (
        ancient.costs["breakdown"]["cloud_on_demand"]["fleet_sale"] == 0
    )
    # Kept, the fleet is resold at the end for its age then: nothing after its life.
    assert ancient.costs["breakdown"]["onprem"]["residual"] == 0
    assert "fleet_sale" not in young.costs["breakdown"]["onprem"]


def test_a_fleet_larger_than_the_peak_sells_what_the_option_does_not_keep():
    _answers, big = _evaluate(_owned(128))
    onprem = big.costs["breakdown"]["onprem"]
    cloud = big.costs["breakdown"]["cloud_on_demand"]
    assert onprem["fleet_sale"] == pytest.approx(cloud["fleet_sale"] / 2)


def test_the_plan_over_growth_starts_from_the_fleet_and_buys_only_above_it():
    answers, owned = _evaluate(_owned(64), growth_pct=50)
    plan = evaluation.answers_plan(answers=answers, figures=owned.figures, excluded=[])
    _answers, bare = _evaluate(growth_pct=50)
    plan_bare = evaluation.answers_plan(answers=_answers, figures=bare.figures, excluded=[])
    bought = sum(stage["added_gpus"] for stage in plan["stages"])
    bought_bare = sum(stage["added_gpus"] for stage in plan_bare["stages"])
    assert bought <= bought_bare - 64 + 8  # the fleet is not bought again (a node's rounding)
    assert all(stage["owned_gpus"] > 64 for stage in plan["stages"])
    onprem = owned.costs["breakdown"]["onprem"]
    assert onprem["storage"] == 0 and onprem["setup"] == 0
    assert owned.costs["breakdown"]["cloud_on_demand"]["fleet_sale"] < 0


def test_gpus_of_another_model_are_kept_with_the_answers_but_not_priced():
    answers, found = _evaluate(_owned(64, model="a100"))
    fleet = fleet_of(answers)
    assert fleet.gpus == 0 and fleet.others[0]["gpu_model"] == "a100"
    assert found.costs["breakdown"]["onprem"]["servers"] > 0


def test_ages_count_to_the_month_the_answers_carry_and_weigh_by_gpus():
    answers = {
        "gpu_model": "h100",
        "owned": [_owned(100, "2024-12")[0], _owned(300, "2026-12")[0]],
        "owned_as_of": "2026-12",
    }
    fleet = fleet_of(answers)
    assert fleet.gpus == 400 and fleet.age_years == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("owned", "key", "words"),
    [
        ("lots", "owned", "must be a list"),
        ([{"gpu_model": "h100", "gpus": 8}], "owned.0", "gpu_model, gpus and bought"),
        ([{"gpu_model": "x9", "gpus": 8, "bought": "2024-01"}], "owned.0.gpu_model", "one of"),
        ([{"gpu_model": "h100", "gpus": 0, "bought": "2024-01"}], "owned.0.gpus", "whole number"),
        ([{"gpu_model": "h100", "gpus": 8, "bought": "2024-13"}], "owned.0.bought", "YYYY-MM"),
        ([{"gpu_model": "h100", "gpus": 8, "bought": "2027-01"}], "owned.0.bought", "after"),
    ],
)
def test_a_wrong_entry_is_named_with_what_is_allowed(owned, key, words):
    answers = make_answers("growth", owned=owned, owned_as_of="2026-12")
    _checked, errors = validation.answers_validate(answers)
    assert key in errors and words in errors[key]


def test_checking_answers_without_the_month_sets_it_and_an_orphan_month_is_an_error():
    checked, errors = validation.answers_validate(make_answers("growth", owned=_owned(8)))
    assert not errors and len(checked["owned_as_of"]) == 7
    _checked, errors = validation.answers_validate(make_answers("growth", owned_as_of="2026-1"))
    assert "owned_as_of" in errors


@pytest.mark.django_db
def test_the_api_keeps_the_fleet_and_prices_it(client, rules):
    answers = make_answers("growth", owned=_owned(64), owned_as_of="2026-12")
    response = client.post(
        "/api/assessments", {"name": "fleet", "answers": answers}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["answers"]["owned"] == _owned(64) and data["answers"]["owned_as_of"] == "2026-12"
    assert data["result"]["costs"]["breakdown"]["onprem"]["servers"] == 0
    wrong = make_answers("growth", owned=[{"gpu_model": "h100", "gpus": -1, "bought": "2024-01"}])
    bad = client.post(
        "/api/assessments", {"answers": wrong}, content_type="application/json"
    ).json()
    assert "owned.0.gpus" in bad["errors"]


@pytest.mark.django_db
def test_the_result_page_says_what_the_fleet_is_worth_and_what_it_leaves_out(client, rules):
    from tests.factories import make_assessment

    owned = [*_owned(64), {"gpu_model": "a100", "gpus": 32, "bought": "2023-01"}]
    _assessment, token, _view = make_assessment(
        answers=make_answers("growth", owned=owned, owned_as_of="2026-12")
    )
    page = client.get(f"/a/{token}/").content.decode()
    assert "You own 64 GPUs of this model already (1.5 years old on average)" in page
    assert "GPUs you own of another model are not priced (32 × " in page
    assert "Resale of the GPUs you own now" in page


def test_a_plan_that_only_keeps_the_fleet_says_so_and_does_not_call_itself_cloud_only():
    from decider.charts import plan_sentence

    answers, found = _evaluate(_owned(32, "2024-06"))
    plan = evaluation.answers_plan(answers=answers, figures=found.figures, excluded=[])
    assert plan["owned_already"] == 32
    assert plan["timeline"]["owned_gpus"][0] == 32
    # Buying more does not pay at this demand: the plan keeps the fleet, and says so.
    assert plan["stages"] == [] and plan["chosen_plan"] == "staged"
    assert plan["chosen"][0]["action"] == "keep" and plan["chosen"][0]["gpus"] == 32
    assert plan_sentence(plan).startswith("Keep the 32 GPUs you own")
    # Owning the whole peak already: nothing waits for hardware.
    _answers, whole = _evaluate(_owned(64), residency="partial")
    assert whole.costs["onprem_delay_months"] == 0 and whole.costs["onprem_start_month"] == 0


def test_servers_are_replaced_at_the_end_of_their_life_in_the_costs_and_the_plan_alike():
    # Ten years with a five-year life: bought once more; over three years, never.
    _answers, short = _evaluate()
    _answers, long = _evaluate(horizon_years=10)
    assert "refresh" not in short.costs["breakdown"]["onprem"]
    assert long.costs["breakdown"]["onprem"]["refresh"] == pytest.approx(
        short.costs["breakdown"]["onprem"]["servers"]
        + short.costs["breakdown"]["onprem"]["network"]
        + short.costs["breakdown"]["onprem"]["spares"],
        rel=0.05,
    )
    # Growing demand prices the options over the plan's reckoning: the refresh is there too.
    _answers, growing = _evaluate(horizon_years=10, growth_pct=20)
    assert growing.costs["breakdown"]["onprem"]["refresh"] > 0
    # A fleet 2.5 years old is replaced 2.5 years in; one past its life runs on as it is.
    _answers, young = _evaluate(_owned(64, "2024-06"))
    _answers, old = _evaluate(_owned(64, "2019-01"))
    assert young.costs["breakdown"]["onprem"]["refresh"] > 0
    assert old.costs["breakdown"]["onprem"].get("refresh", 0) == 0


@pytest.mark.django_db
def test_gpus_owned_entered_before_any_gpu_model_is_answered_are_of_the_default_model(
    client, rules
):
    from django.urls import reverse

    from decider.engine.gpus import DEFAULT
    from decider.models import Assessment
    from tests.factories import STEP_POSTS

    started = client.post(reverse("decider-home"), {"preset": ""})  # blank: no GPU model yet
    token = started.url.split("/")[2]
    budget = {**STEP_POSTS["budget"], "owned_gpus": "16", "owned_bought": "2024-06"}
    response = client.post(reverse("decider-step", args=[token, "budget"]), budget)

    assert response.status_code == 302
    assert Assessment.objects.get().answers["owned"] == [
        {"gpu_model": DEFAULT, "gpus": 16, "bought": "2024-06"}
    ]
