"""What owning costs per GPU-hour of work, beside the published tiers it should be read
against (issue 51): the rent while the servers arrive is not a cost of owning, and a figure
per H100-equivalent hour says so."""

from __future__ import annotations

import pytest
from django.urls import reverse

from decider.engine import tiers
from decider.engine.evaluation import answers_costs
from tests.factories import make_answers, make_assessment, shipped_figures

pytestmark = pytest.mark.django_db

# Issue 51's case: 1,024 GPUs, five years, full use.
FULL_USE = {"gpus": 1024, "utilization_pct": 100.0, "horizon_years": 5, "demand_shape": "steady"}


def section(gpu_model: str, **changes):
    answers = make_answers("research_lab", gpu_model=gpu_model, **{**FULL_USE, **changes})
    return answers_costs(answers=answers, figures=shipped_figures(gpu_model), excluded=[])


@pytest.mark.parametrize("gpu_model", ["h100", "b200"])
def test_owning_at_full_use_costs_less_than_a_3_year_commitment(gpu_model):
    """In rented space, busy around the clock for five years, owning costs less per used
    GPU-hour than the published 3-year rental (docs/CALIBRATION.md: where it stands against
    the owned tiers)."""
    found = section(gpu_model, has_datacenter=False)["owned_per_used_gpu_hour"]
    *_owned, rented = (t.per_hour for t in tiers.tiers_for(gpu_model))
    assert found < rented, (found, rented)


@pytest.mark.parametrize("lead_time", [3, 12])
def test_the_rent_while_the_servers_arrive_is_not_a_cost_of_owning(lead_time):
    """Owning's cost per hour is on-prem's plan less its rent while the servers arrive, over
    the hours of work the servers do: the months after they arrive."""
    found = answers_costs(
        answers=make_answers("research_lab", gpu_model="h100", **FULL_USE),
        figures=shipped_figures("h100", lead_time_months=lead_time),
        excluded=[],
    )
    owning = found["totals"]["onprem"] - found["breakdown"]["onprem"]["bridge"]
    per_month = 1024 * 730  # GPU-hours of work a month, all 1,024 busy
    months_owned = owning / found["owned_per_used_gpu_hour"] / per_month
    assert months_owned == pytest.approx(60 - lead_time, abs=0.01)
    assert found["breakdown"]["onprem"]["bridge"] > 0
    plan_hour = found["totals"]["onprem"] / found["useful_gpu_hours"]
    assert found["owned_per_used_gpu_hour"] != pytest.approx(plan_hour, rel=1e-3)


@pytest.mark.parametrize(
    ("language", "currency", "said"),
    [("en", "USD", "per used GPU-hour"), ("zh-hans", "CNY", "不含服务器到货前的租用")],
)
def test_the_result_prints_owning_beside_the_published_tiers(
    client, rules, language, currency, said
):
    _assessment, edit, _view = make_assessment(answers=make_answers("research_lab"))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    url = reverse("decider-result", args=[edit]) + f"?currency={currency}"
    page = client.get(url).content.decode()
    at = page.index('id="owned-hour"')
    line = page[at : page.index("</p>", at)]
    assert said in line and "SemiAnalysis" in line
    if currency == "USD":
        assert "$1.17" in line and "$1.55" in line and "$2.00" in line
    else:
        assert "¥" in line and "$" not in line


@pytest.mark.parametrize(("gpu_model", "equivalent"), [("b200", True), ("h100", False)])
def test_a_figure_per_h100_equivalent_hour_says_so(client, rules, gpu_model, equivalent):
    _assessment, edit, _view = make_assessment(
        answers=make_answers("research_lab", gpu_model=gpu_model)
    )
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    assert ("Per useful H100-equivalent hour" in page) is equivalent
