import json
import math
from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from decider.engine.cashflow import lines_total
from decider.engine.costs import (
    HOURS_PER_MONTH,
    OPTIONS,
    UTILIZATION_GRID_PCT,
    CostAnswers,
    _cashflow,
    _fixed_plans,
    _hybrid_best,
    _hybrid_curve,
    _option_lines,
    _per_hour,
    _Plan,
    cost_verdict,
    costs_compute,
    hybrid_bases,
)
from decider.engine.figures import (
    FIGURE_NAMES,
    FIGURES,
    SENSITIVITY_NAMES,
    figures_select,
    figures_values,
)
from decider.engine.questionnaire import GPU_MODELS
from tests.examples import examples
from tests.factories import make_cost_answers as make_answers
from tests.factories import make_figures, shipped_figure_rows, shipped_figures

H = 730  # hours per month


def make_costs(answers: CostAnswers | None = None, **values: float) -> dict:
    return costs_compute(answers=answers or make_answers(), figures=make_figures(**values))


def line_delta(key: str, answers: CostAnswers | None = None, **values: float) -> float:
    """How much switching the given assumptions on moves `key`'s total."""
    return make_costs(answers, **values)["totals"][key] - make_costs(answers)["totals"][key]


def walk(value):
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str)
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)
    else:
        yield value


answers_strategy = st.builds(
    CostAnswers,
    gpus=st.integers(1, 200),
    utilization=st.floats(0, 1),
    horizon_months=st.integers(1, 120),
    dataset_tb=st.floats(0, 500),
    has_datacenter=st.booleans(),
    demand_shape=st.sampled_from(["steady", "moderate", "peaky"]),
)
DEFAULTS = shipped_figures("h100")


# --- assumptions ---------------------------------------------------------


def test_it_lists_every_figure_once():
    money = {name for name, spec in FIGURES.items() if spec.kind == "money"}
    assert len(FIGURE_NAMES) == len(set(FIGURE_NAMES)) == 40
    assert FIGURE_NAMES[0] == "gpus_per_node"
    assert FIGURE_NAMES[-1] == "usd_cny"
    assert {"server_price", "kwh_price", "gpu_hour_on_demand", "egress_price_tb"} <= money
    assert not money & {"pue", "usd_cny", "idle_share", "lead_time_months"}
    assert set(SENSITIVITY_NAMES) <= set(FIGURE_NAMES)
    for spec in FIGURES.values():
        assert spec.label.en and spec.label.zh and spec.unit.en and spec.unit.zh
        assert (spec.kind == "share") == (spec.max == 1 and "share" in spec.unit.en)


def test_it_names_a_missing_assumption():
    figures = make_figures()
    del figures["kwh_price"]
    with pytest.raises(ValueError, match="kwh_price"):
        costs_compute(answers=make_answers(), figures=figures)


@pytest.mark.parametrize(
    "values",
    [
        {"kwh_price": -1},
        {"spot_share": 1.5},
        {"gpus_per_node": 0},
        {"gpus_per_node": 2.5},
        {"pue": math.nan},
    ],
)
def test_it_rejects_impossible_assumptions(values):
    with pytest.raises(ValueError):
        make_costs(**values)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"gpus": 0},
        {"utilization": 1.2},
        {"utilization": -0.1},
        {"horizon_months": 0},
        {"demand_shape": "wavy"},
    ],
)
def test_it_rejects_impossible_answers(kwargs):
    with pytest.raises(ValueError):
        make_answers(**kwargs)


def test_it_rejects_an_unknown_currency():
    with pytest.raises(ValueError, match="currency"):
        costs_compute(answers=make_answers(), figures=make_figures(), currency="EUR")


def test_it_lets_a_model_specific_row_override_the_generic_one():
    rows = [
        {
            "name": "server_price",
            "gpu_model": "",
            "value": 1,
            "unit": "USD",
            "source": "a",
            "as_of": "2025-01-01",
        },
        {
            "name": "server_price",
            "gpu_model": "b200",
            "value": 2,
            "unit": "USD",
            "source": "b",
            "as_of": "2025-01-01",
        },
        {
            "name": "node_kw",
            "gpu_model": "",
            "value": 3,
            "unit": "kW",
            "source": "c",
            "as_of": "2025-01-01",
        },
    ]
    assert figures_select(rows=rows, gpu_model="b200")["server_price"].value == 2
    assert figures_select(rows=rows, gpu_model="h100")["server_price"].value == 1
    assert figures_select(rows=rows, gpu_model="b200")["node_kw"].value == 3


def test_it_ships_a_generic_default_with_a_source_for_every_figure():
    rows = shipped_figure_rows()
    generic = {row["name"] for row in rows if row["gpu_model"] == ""}
    assert generic == set(FIGURE_NAMES)
    assert len(generic) == len([row for row in rows if row["gpu_model"] == ""])
    for row in rows:
        assert row["name"] in FIGURE_NAMES
        assert row["gpu_model"] in {""} | {model for model, _name in GPU_MODELS}
        assert isinstance(row["value"], int | float)
        assert row["source"]
        assert date(2024, 1, 1) <= date.fromisoformat(row["as_of"]) <= date(2026, 12, 31)
    for model, _name in GPU_MODELS:
        figures_values(shipped_figures(model))  # valid for every model


def test_it_marks_model_specific_guesses_as_estimates():
    rows = shipped_figure_rows()
    sourced = {("b200", "server_price"), ("b200", "node_kw"), ("a100", "node_kw")}
    # The servers a GPU model is sold in: read off the vendors' product lines.
    sourced |= {(model, "smallest_server_gpus") for model in ("b200", "h800", "h20", "ascend_910b")}
    for row in rows:
        if row["name"].startswith("perf_"):
            continue  # speeds: their own test
        if row["gpu_model"] and (row["gpu_model"], row["name"]) not in sourced:
            assert "estimate" in row["source"].lower(), row


@pytest.mark.parametrize("market", ["global", "cn"])
def test_every_speed_against_an_h100_names_its_basis(market):
    """A benchmark, a derivation from the specifications, or an estimate saying so."""
    for row in shipped_figure_rows(market):
        if row["name"].startswith("perf_") and row["gpu_model"]:
            basis = row["source"].split(":", 1)[0].lower()
            assert any(
                word in row["source"]
                for word in (
                    "MLPerf",
                    "Benchmark",
                    "Spheron",
                    "proxy",
                    "Third-party",
                    "H100's chip",
                )
            ) or basis in ("estimate", "derived", "derived from the specifications"), row
            assert row["source_zh"], row


def test_it_ships_the_domain_figures_for_h100():
    values = {name: a.value for name, a in DEFAULTS.items()}
    assert values["server_price"] == 310_000
    assert 15_000 <= values["network_per_node"] <= 34_000
    assert values["pue"] == 1.56
    assert values["colo_kw_month"] == 184
    assert values["fte_cost"] == pytest.approx(96_800 * 1.3)
    assert values["onprem_fte"] == 0.02
    assert values["gpu_hour_reserved_1y"] == 2.35
    assert values["egress_price_tb"] == 90
    assert values["cloud_storage_tb_month"] == 23
    assert (
        values["gpu_hour_reserved_3y"]
        < values["gpu_hour_reserved_1y"]
        < values["gpu_hour_on_demand"]
    )


# --- hand-worked figures -------------------------------------------------


def test_it_prices_only_servers_and_gpu_hours_when_everything_else_is_off():
    costs = make_costs(make_answers(gpus=12, utilization=0.5, horizon_months=36))
    nodes = 2  # ceil(12 / 8)
    onprem = nodes * 300_000
    cloud = 12 * H * 0.5 * 3.0 * 36
    assert costs["totals"]["onprem"] == pytest.approx(onprem)
    assert costs["totals"]["cloud_on_demand"] == pytest.approx(cloud)
    # Cloud grows linearly with utilization, on-prem does not move: the
    # totals meet at their ratio.
    assert costs["break_even_utilization_pct"] == pytest.approx(
        100 * onprem / (cloud / 0.5), abs=0.01
    )


def test_it_finds_the_break_even_month():
    # 600,000 up front against 13,140 a month: caught up in month 46.
    costs = make_costs(make_answers(horizon_months=60))
    assert costs["break_even_month"] == math.ceil(600_000 / (12 * H * 0.5 * 3.0)) == 46
    assert make_costs(make_answers(horizon_months=36))["break_even_month"] is None


def test_it_has_no_break_even_utilization_when_the_lines_are_parallel_or_meet_outside():
    # Lead time as long as the horizon: on-prem is cloud plus free hardware.
    assert make_costs(server_price=0, lead_time_months=36)["break_even_utilization_pct"] is None
    assert make_costs(server_price=10_000_000)["break_even_utilization_pct"] is None


def test_it_adds_power():
    answers = make_answers(utilization=0.5)
    delta = line_delta("onprem", answers, node_kw=10, idle_share=0.4, pue=1.5, kwh_price=0.1)
    assert delta == pytest.approx(2 * 10 * (0.4 + 0.6 * 0.5) * 1.5 * H * 0.1 * 36)


def test_it_adds_colocation_only_without_a_datacenter():
    assert line_delta("onprem", node_kw=10, colo_kw_month=184) == pytest.approx(2 * 10 * 184 * 36)
    assert (
        line_delta("onprem", make_answers(has_datacenter=True), node_kw=10, colo_kw_month=184) == 0
    )


def test_it_adds_maintenance_on_all_hardware():
    delta = line_delta(
        "onprem", maintenance_rate=0.1, network_per_node=25_000, storage_capex_per_tb=150
    )
    hardware = 2 * (300_000 + 25_000) + 50 * 150
    added_hardware = 2 * 25_000 + 50 * 150  # servers are in the base already
    assert delta == pytest.approx(added_hardware + 0.1 * hardware / 12 * 36)


def test_it_adds_onprem_staff():
    delta = line_delta("onprem", onprem_fte=0.02, fte_cost=120_000)
    assert delta == pytest.approx(2 * 0.02 * 120_000 / 12 * 36)


def test_it_adds_storage_capex():
    assert line_delta("onprem", storage_capex_per_tb=150) == pytest.approx(50 * 150)


def test_it_adds_setup():
    assert line_delta("onprem", setup_cost=20_000) == pytest.approx(20_000)


def test_it_adds_network():
    assert line_delta("onprem", network_per_node=25_000) == pytest.approx(2 * 25_000)


def test_it_credits_the_resale_value_on_a_declining_curve():
    values = {"residual_value": 0.8, "depreciation_years": 5, "resale_decline": 0.3}
    delta = line_delta("onprem", **values)
    assert delta == pytest.approx(-2 * 300_000 * 0.7**3 * 0.8)
    # Worth less than the straight-line book value (40 % left after 3 of 5 years).
    assert -delta < 2 * 300_000 * (1 - 36 / 60) * 0.8
    assert make_costs(**values)["breakdown"]["onprem"]["residual"] == pytest.approx(delta)
    # A share of 0 ignores it.
    assert line_delta("onprem", **{**values, "residual_value": 0}) == 0
    # Past its useful life a server is replaced: over 72 months those bought at month 0 are
    # replaced at month 60, and the replacements, a year old at the end, are what is resold.
    long = make_costs(make_answers(horizon_months=72), **values)["breakdown"]["onprem"]
    assert long["refresh"] == pytest.approx(2 * 300_000)
    assert long["residual"] == pytest.approx(-2 * 300_000 * 0.7 * 0.8)
    # No life given (0): nothing is replaced and nothing resold.
    assert "refresh" not in make_costs(make_answers(horizon_months=72))["breakdown"]["onprem"]


def test_it_bridges_the_lead_time_on_cloud_and_starts_running_costs_after_it():
    power_month = 2 * 10 * 1.0 * 1.0 * H * 0.1  # idle_share 1: full power whatever the load
    delta = line_delta("onprem", lead_time_months=3, node_kw=10, idle_share=1, pue=1, kwh_price=0.1)
    bridge = 12 * H * 0.5 * 3.0 * 3
    # The base has no power line: after the bridge, 33 months of power are added.
    assert delta == pytest.approx(bridge + power_month * (36 - 3))


def test_it_blends_spot_hours_into_the_cloud_rate():
    delta = line_delta("cloud_on_demand", spot_share=0.25, gpu_hour_spot=2.0)
    assert delta == pytest.approx(12 * H * 0.5 * (0.75 * 3.0 + 0.25 * 2.0 - 3.0) * 36)


def test_it_switches_reserved_pricing_from_1_to_3_years_at_36_months():
    values = {"gpu_hour_reserved_1y": 2.35, "gpu_hour_reserved_3y": 1.9}
    for months, rate in ((35, 2.35), (36, 1.9)):
        costs = make_costs(make_answers(horizon_months=months), **values)
        # Reserved capacity is paid every hour, whatever the utilization.
        assert costs["totals"]["cloud_reserved"] == pytest.approx(12 * H * rate * months)


def test_it_adds_cloud_storage():
    assert line_delta("cloud_on_demand", cloud_storage_tb_month=23) == pytest.approx(50 * 23 * 36)
    assert line_delta("cloud_reserved", cloud_storage_tb_month=23) == pytest.approx(50 * 23 * 36)


def test_it_adds_egress():
    assert line_delta("cloud_on_demand", egress_tb_month=2, egress_price_tb=90) == pytest.approx(
        2 * 90 * 36
    )


def test_it_adds_cloud_staff():
    delta = line_delta("cloud_on_demand", cloud_fte=0.005, fte_cost=120_000)
    assert delta == pytest.approx(2 * 0.005 * 120_000 / 12 * 36)


def test_the_team_already_there_costs_nothing_unless_the_answers_count_it():
    # 1,024 H100s owned by a team of 3 that covers their 0.02 FTE a node: no hire, no line.
    staffing = {"onprem_fte": 0.02, "cloud_fte": 0.005, "onprem_min_fte": 1, "fte_cost": 200_000}
    answers = make_answers(gpus=1024, utilization=0.9, horizon_months=60, team_fte=3.0)
    free = make_costs(answers, **staffing)
    assert "team" not in free["breakdown"]["onprem"] and not free["breakdown"]["onprem"]["staff"]
    counted = make_costs(replace(answers, count_team=True), **staffing)
    # Owned: 128 nodes need 2.56 FTE, all from the team; renting 128 nodes needs 0.64.
    assert counted["breakdown"]["onprem"]["team"] == pytest.approx(2.56 * 200_000 * 5)
    assert counted["breakdown"]["cloud_on_demand"]["team"] == pytest.approx(0.64 * 200_000 * 5)
    moved = {k: counted["totals"][k] - free["totals"][k] for k in ("onprem", "cloud_on_demand")}
    assert moved["onprem"] > moved["cloud_on_demand"]  # owning pays for the people it keeps


def test_an_estimated_cloud_price_that_prices_the_cheapest_cloud_is_named():
    # Mainland China, 3 years: the cheapest cloud commits at the 3-year price, which no
    # provider publishes there (derived from the 1-year estimate).
    answers = make_answers(gpus=64, utilization=0.9, horizon_months=36, prices_in="CNY")
    china = costs_compute(answers=answers, figures=shipped_figures("h100", "cn"), currency="CNY")
    assert china["cheapest_cloud_mode"] in ("cloud_reserved", "cloud_committed")
    assert "gpu_hour_reserved_3y" in china["estimated_prices"]
    figures = shipped_figures("h100", "cn")
    assert all(figures[name].source.startswith("Estimate") for name in china["estimated_prices"])
    # Global H100s for a year: the 1-year index and on demand are published, nothing to name.
    year = make_answers(gpus=64, utilization=0.5, horizon_months=12)
    global_ = costs_compute(answers=year, figures=shipped_figures("h100"))
    assert global_["estimated_prices"] == []


def test_it_converts_money_to_cny_but_not_the_assumptions():
    answers = make_answers()
    usd = costs_compute(answers=answers, figures=DEFAULTS)
    cny = costs_compute(answers=answers, figures=DEFAULTS, currency="CNY")
    rate = DEFAULTS["usd_cny"].value
    assert cny["currency"] == "CNY"
    for key in OPTIONS:
        assert cny["totals"][key] == pytest.approx(usd["totals"][key] * rate, abs=0.01 * rate)
    assert cny["migration"]["cost"] == pytest.approx(usd["migration"]["cost"] * rate)
    assert cny["sensitivity"][0]["low"] == pytest.approx(
        usd["sensitivity"][0]["low"] * rate, abs=0.01 * rate
    )
    assert cny["per_hour"]["onprem"][-1] == pytest.approx(
        usd["per_hour"]["onprem"][-1] * rate, abs=0.01 * rate
    )
    assert cny["assumptions"] == usd["assumptions"]
    assert cny["break_even_utilization_pct"] == usd["break_even_utilization_pct"]


def test_it_prices_the_migration_apart_from_the_totals():
    costs = make_costs(make_answers(dataset_tb=50), egress_price_tb=90, transfer_gbps=10)
    assert costs["migration"]["cost"] == 4500
    assert costs["migration"]["days"] == round(50 * 8e12 / 10e9 / 86400, 2)
    assert costs["totals"]["cloud_on_demand"] == pytest.approx(12 * H * 0.5 * 3.0 * 36)
    assert make_costs(transfer_gbps=0)["migration"]["days"] is None


def test_it_sorts_sensitivity_by_size_and_skips_zero_assumptions():
    costs = make_costs(make_answers(horizon_months=36))
    assert [row["name"] for row in costs["sensitivity"]] == ["server_price", "gpu_hour_on_demand"]
    server, gpu = costs["sensitivity"]
    cloud = 12 * H * 0.5 * 3.0 * 36
    # The difference is on-prem minus cloud: dearer cloud hours shrink it.
    assert gpu["low"] == pytest.approx(0.2 * cloud) and gpu["high"] == pytest.approx(-0.2 * cloud)
    assert server["low"] == pytest.approx(-0.2 * 600_000) and server["high"] == pytest.approx(
        0.2 * 600_000
    )


def test_it_prorates_a_fractional_lead_time():
    costs = make_costs(lead_time_months=2.5)
    assert costs["totals"]["onprem"] == pytest.approx(600_000 + 12 * H * 0.5 * 3.0 * 2.5)


# --- hybrid and verdict --------------------------------------------------


@given(answers=answers_strategy)
@settings(max_examples=examples(40), deadline=None)
def test_it_makes_hybrid_the_pure_options_at_both_ends(answers):
    costs = costs_compute(answers=answers, figures=DEFAULTS)
    curve = costs["hybrid_curve"]
    # Owning nothing: the best cloud mix; owning every GPU: on-premises.
    assert curve["owned_gpus"][0] == 0 and curve["owned_gpus"][-1] == answers.gpus
    assert curve["total"][0] == costs["totals"]["cloud_committed"]
    assert curve["total"][-1] == costs["totals"]["onprem"]


def test_it_tries_every_node_size_as_the_owned_base():
    costs = costs_compute(answers=make_answers(gpus=20), figures=DEFAULTS)
    assert costs["hybrid_curve"]["owned_gpus"] == [0, 8, 16, 20]


# Clusters big enough that the search skips bases, with every figure that bends the curve
# moved: the team, its minimum, people per node, the rates, the share that may leave.
large_answers = st.builds(
    CostAnswers,
    gpus=st.integers(200, 3000),
    utilization=st.floats(0.01, 1),
    horizon_months=st.sampled_from([6, 12, 36, 60, 120]),
    dataset_tb=st.floats(0, 500),
    has_datacenter=st.booleans(),
    demand_shape=st.sampled_from(["steady", "moderate", "peaky"]),
    team_fte=st.floats(0, 40),
    cloud_share=st.sampled_from([1.0, 0.8, 0.5, 0.0]),
    fleet_gpus=st.sampled_from([0, 0, 0, 12, 300, 1000, 5000]),
    fleet_age_years=st.floats(0, 8),
)
moved_figures = st.fixed_dictionaries(
    {
        "gpus_per_node": st.sampled_from([1, 4, 8]),
        "onprem_min_fte": st.floats(0, 10),
        "onprem_fte": st.floats(0, 1),
        "cloud_fte": st.floats(0, 1),
        "gpu_hour_reserved_3y": st.floats(0.5, 4),
        "gpu_hour_reserved_1y": st.floats(0.5, 4),
        "hiring_months": st.floats(0, 12),
        "lead_time_months": st.floats(0, 12),
    }
)


@given(answers=large_answers, moved=moved_figures)
@settings(max_examples=examples(60), deadline=None)
def test_the_hybrid_search_finds_the_cheapest_of_every_base(answers, moved):
    params = {**figures_values(DEFAULTS), **moved}
    every = hybrid_bases(params, answers)
    searched = [plan.owned for plan, _ in _hybrid_curve(params, answers)]
    assert len(searched) <= 60  # of up to 3,000 bases
    assert set(searched) <= set(every) and {every[0], every[-1]} <= set(searched)
    assert _hybrid_best(_hybrid_curve(params, answers)) == _hybrid_best(
        _hybrid_curve(params, answers, every)
    )


@given(answers=large_answers, moved=moved_figures)
@settings(max_examples=examples(60), deadline=None)
def test_the_per_hour_line_from_two_points_is_every_point_priced(answers, moved):
    """The per-hour curves price utilization 0 and 1 and draw the line between: each
    total must be linear in utilization, so pricing every point gives the same curves."""
    params = {**figures_values(DEFAULTS), **moved}
    priced: dict[str, list] = {key: [] for key in _fixed_plans(answers)}
    for pct in UTILIZATION_GRID_PCT:
        at = answers.at_utilization(pct / 100)
        hours = at.gpus * HOURS_PER_MONTH * at.utilization * at.horizon_months
        for key, values in priced.items():
            total = lines_total(_option_lines(params, at, key, _fixed_plans(at)[key]))
            values.append(total / hours if hours else None)
    for key, line in _per_hour(params, answers).items():
        assert line[0] is None and priced[key][0] is None
        assert line[1:] == pytest.approx(priced[key][1:], rel=1e-9), key


def test_it_prices_a_hundred_thousand_gpus_at_a_readable_number_of_bases():
    costs = costs_compute(answers=make_answers(gpus=100_000), figures=DEFAULTS)
    owned = costs["hybrid_curve"]["owned_gpus"]
    assert 25 <= len(owned) <= 60 and owned == sorted(owned)
    assert owned[0] == 0 and owned[-1] == 100_000
    assert costs["hybrid_owned_gpus"] in owned


def test_it_breaks_hybrid_ties_towards_fewer_owned_gpus():
    costs = make_costs(server_price=0, gpu_hour_on_demand=0)  # every mix costs nothing
    assert costs["hybrid_owned_gpus"] == 0


def test_it_owns_the_steady_base_and_rents_the_bursts():
    """An own machine room and a team: owning the GPUs busy around the clock pays."""
    answers = make_answers(
        gpus=64,
        utilization=0.6,
        horizon_months=60,
        demand_shape="moderate",
        has_datacenter=True,
        team_fte=3.0,
    )
    costs = costs_compute(answers=answers, figures=shipped_figures(discount_rate=0))
    base = costs["demand"]["base_gpus"]
    assert base - 8 < costs["hybrid_owned_gpus"] < base + 8  # the base, to a whole node
    assert costs["options_compared"] == ["onprem", "cloud", "hybrid"]
    assert costs["cheapest"] == "hybrid"
    assert costs["totals"]["hybrid"] < min(
        costs["totals"][option] for option in ("onprem", "cloud_on_demand", "cloud_committed")
    )


def test_it_compares_only_onprem_and_cloud_when_hybrid_is_a_pure_option():
    costs = costs_compute(answers=make_answers(gpus=8), figures=DEFAULTS)
    assert costs["hybrid_owned_gpus"] in (0, 8)
    assert costs["options_compared"] == ["onprem", "cloud"]
    assert costs["cheapest"] in ("onprem", "cloud")


def make_verdict_costs(onprem, on_demand, reserved, hybrid=None, committed=None):
    """The verdict reads present values (the plain totals at a 0 % cost of capital)."""
    compared = ["onprem", "cloud"] + (["hybrid"] if hybrid is not None else [])
    present = {
        "onprem": onprem,
        "cloud_on_demand": on_demand,
        "cloud_reserved": reserved,
        "cloud_committed": committed if committed is not None else min(on_demand, reserved),
        "hybrid": hybrid or 0,
    }
    return {"present_value": present, "options_compared": compared}


def test_it_calls_a_15_percent_gap_clear():
    assert cost_verdict(make_verdict_costs(85, 100, 120)) == "onprem_clear"
    assert cost_verdict(make_verdict_costs(86, 100, 120)) == "onprem_slight"


def test_it_takes_the_cheaper_cloud_pricing_mode():
    assert cost_verdict(make_verdict_costs(100, 130, 80)) == "cloud_clear"
    assert cost_verdict(make_verdict_costs(100, 95, 130)) == "cloud_slight"


def test_it_considers_hybrid_only_when_it_is_distinct():
    assert cost_verdict(make_verdict_costs(100, 110, 120, hybrid=80)) == "hybrid_clear"
    assert cost_verdict(make_verdict_costs(100, 110, 120)) == "onprem_slight"


def test_it_reports_the_runner_up_and_the_gap():
    # Reserved hours dearer than on demand, so cloud means on demand here.
    costs = make_costs(make_answers(horizon_months=60, gpus=16), gpu_hour_reserved_3y=4.0)
    onprem, cloud = costs["totals"]["onprem"], costs["totals"]["cloud_on_demand"]
    assert (costs["cheapest"], costs["runner_up"]) == ("onprem", "cloud")
    assert costs["cheapest_gap_pct"] == pytest.approx((cloud - onprem) / cloud * 100, abs=0.01)
    assert costs["verdict"] == cost_verdict(costs) == "onprem_clear"


# --- output shape --------------------------------------------------------


def test_it_returns_plain_json():
    costs = costs_compute(answers=make_answers(), figures=DEFAULTS, currency="CNY")
    json.dumps(costs, allow_nan=False)
    for value in walk(costs):
        assert value is None or type(value) in (str, int, float, bool)
    assert set(costs["totals"]) == set(OPTIONS)
    assert costs["assumptions"]["server_price"] == {
        "value": 310_000.0,
        "unit": FIGURES["server_price"].unit.en,
        "source": DEFAULTS["server_price"].source,
        "as_of": DEFAULTS["server_price"].as_of,
        "source_zh": DEFAULTS["server_price"].source_zh,
    }


def test_it_breaks_totals_down_by_line():
    costs = costs_compute(answers=make_answers(), figures=DEFAULTS)
    for key in OPTIONS:
        assert sum(costs["breakdown"][key].values()) == pytest.approx(costs["totals"][key], abs=0.1)
    assert costs["breakdown"]["onprem"]["servers"] == 2 * 310_000


def test_it_gives_a_monthly_cashflow_table():
    frame = _cashflow(figures_values(DEFAULTS), make_answers(horizon_months=12), _Plan(0, 0))
    assert len(frame) == 13
    assert frame.loc[0, ("onprem", "servers")] == 2 * 310_000
    assert frame[("onprem", "power")].iloc[1:4].sum() == 0  # still in the 3-month lead time


def test_it_reports_cost_per_useful_gpu_hour():
    costs = make_costs(make_answers(horizon_months=36))
    per_hour = costs["per_hour"]
    assert per_hour["utilization_pct"] == list(range(0, 101, 5))
    assert per_hour["onprem"][0] is None
    assert per_hour["onprem"][-1] == round(600_000 / (12 * H * 36), 2)
    assert per_hour["cloud_on_demand"][-1] == 3.0


# --- properties ----------------------------------------------------------


@given(answers=answers_strategy, low=st.floats(0, 1), high=st.floats(0, 1))
@settings(max_examples=examples(40), deadline=None)
def test_it_charges_more_cloud_for_more_utilization(answers, low, high):
    low, high = sorted((low, high))
    cheap = costs_compute(
        answers=CostAnswers(**{**answers.__dict__, "utilization": low}), figures=DEFAULTS
    )
    dear = costs_compute(
        answers=CostAnswers(**{**answers.__dict__, "utilization": high}), figures=DEFAULTS
    )
    assert cheap["totals"]["cloud_on_demand"] <= dear["totals"]["cloud_on_demand"]


@given(answers=answers_strategy)
@settings(max_examples=examples(40), deadline=None)
def test_it_makes_onprem_gpu_hours_cheaper_with_utilization(answers):
    onprem = costs_compute(answers=answers, figures=DEFAULTS)["per_hour"]["onprem"][1:]
    assert all(later <= earlier for earlier, later in zip(onprem, onprem[1:], strict=False))


@given(answers=answers_strategy)
@settings(max_examples=examples(40), deadline=None)
def test_it_never_picks_a_hybrid_worse_than_both_pure_options(answers):
    totals = costs_compute(answers=answers, figures=DEFAULTS)["totals"]
    assert totals["hybrid"] <= min(totals["onprem"], totals["cloud_on_demand"]) + 1e-6


@given(answers=answers_strategy)
@settings(max_examples=examples(40), deadline=None)
def test_it_ends_each_cumulative_series_at_its_total(answers):
    costs = costs_compute(answers=answers, figures=DEFAULTS)
    for key in OPTIONS:
        series = costs["cumulative"][key]
        assert len(series) == answers.horizon_months + 1
        assert series[-1] == costs["totals"][key]


# --- no capital up front: the purchases in instalments (issue 28) ----------------------


def _annuity(yearly, months):
    monthly = (1 + yearly) ** (1 / 12) - 1
    return months if monthly == 0 else (1 - (1 + monthly) ** -months) / monthly


@pytest.mark.parametrize("horizon", [24, 36, 60])
def test_with_no_capital_the_owned_hardware_is_paid_in_instalments(horizon):
    figures = make_figures(
        discount_rate=0.08,
        finance_rate=0.12,
        finance_term_months=36,
        network_per_node=20_000,
        setup_cost=50_000,
    )
    cash = costs_compute(answers=make_answers(gpus=16, horizon_months=horizon), figures=figures)
    financed = costs_compute(
        answers=make_answers(gpus=16, horizon_months=horizon, capex_available=False),
        figures=figures,
    )
    owned = financed["breakdown"]["onprem"]
    assert all(owned.get(line, 0) == 0 for line in ("servers", "network", "setup"))
    assert owned["financing"] > 0
    assert financed["financing"] == {"rate": 0.12, "term_months": 36}
    assert cash["financing"] is None
    purchases = 2 * (300_000 + 20_000) + 50_000
    # Every instalment counted, those after the horizon valued at the cost of capital: the
    # present value is the price × annuity(cost of capital) / annuity(finance rate).
    factor = _annuity(0.08, 36) / _annuity(0.12, 36)
    extra = financed["present_value"]["onprem"] - cash["present_value"]["onprem"]
    assert extra == pytest.approx(purchases * (factor - 1), rel=1e-4)
    # Nothing bought outright: no capital up front in any option.
    first_month = {option: financed["cumulative"][option][0] for option in financed["cumulative"]}
    assert first_month["onprem"] == 0
    # The cloud is not financed.
    assert financed["present_value"]["cloud_on_demand"] == cash["present_value"]["cloud_on_demand"]


def test_financing_at_the_cost_of_capital_costs_nothing_extra():
    figures = make_figures(discount_rate=0.08, finance_rate=0.08, finance_term_months=24)
    cash = costs_compute(answers=make_answers(gpus=16), figures=figures)
    financed = costs_compute(answers=make_answers(gpus=16, capex_available=False), figures=figures)
    assert financed["present_value"]["onprem"] == pytest.approx(
        cash["present_value"]["onprem"], rel=1e-6
    )
    assert financed["totals"]["onprem"] > cash["totals"]["onprem"]  # the interest, undiscounted


# --- a fleet smaller than one server ---------------------------------------------------


def _evaluated(gpu_model: str = "h100", *, prices: dict | None = None, **changes):
    from decider.engine.evaluation import answers_evaluate
    from tests.factories import make_answers, shipped_figures, shipped_rulebook

    answers = make_answers("startup", gpu_model=gpu_model, **changes)
    figures = shipped_figures(gpu_model, "global", **(prices or {}))
    return answers_evaluate(answers=answers, rulebook=shipped_rulebook(), figures=figures)


def test_one_gpu_is_priced_as_the_smallest_server_that_holds_it_not_a_full_one():
    one = _evaluated(gpus=1)
    assert one.figures["gpus_per_node"].value == 1
    assert one.figures["server_price"].value == pytest.approx(310_000 / 8)
    assert one.figures["server_price"].estimated  # and the figures table says so
    three = _evaluated(gpus=3)  # three GPUs fit a server of four
    assert three.figures["gpus_per_node"].value == 4
    assert three.figures["node_kw"].value == pytest.approx(10.2 / 2)
    # Where only full servers are sold, one GPU pays for eight.
    whole = _evaluated(gpus=1, prices={"smallest_server_gpus": 8})
    assert whole.figures["server_price"].value == 310_000
    owned, full = (e.costs["breakdown"]["onprem"] for e in (one, whole))
    assert owned["maintenance"] == pytest.approx(full["maintenance"] / 8, rel=0.05)
    assert one.costs["totals"]["onprem"] < whole.costs["totals"]["onprem"]


def test_a_gpu_sold_only_in_full_servers_or_a_growing_demand_keeps_whole_servers():
    assert _evaluated("b200", gpus=1).figures["gpus_per_node"].value == 8
    assert _evaluated(gpus=1, growth_pct=100).figures["gpus_per_node"].value == 8
    assert _evaluated(gpus=8).figures["server_price"].value == 310_000


@given(answers=large_answers, moved=moved_figures)
@settings(max_examples=examples(40), deadline=None)
def test_the_break_even_read_between_the_turns_is_where_the_totals_meet(answers, moved):
    """With GPUs owned already the gap bends where the mean passes them: the utilization
    found between the turns makes the two totals equal, and none is found only when they
    never meet."""
    from decider.engine.costs import _break_even_utilization, _gap

    params = {**figures_values(DEFAULTS), **moved}
    found = _break_even_utilization(params, answers)
    scale = max(1.0, abs(_gap(params, answers.at_utilization(0.0))))
    if found is not None:
        assert abs(_gap(params, answers.at_utilization(found))) <= 1e-6 * scale
    else:
        gaps = [_gap(params, answers.at_utilization(u / 50)) for u in range(51)]
        assert all(g > 0 for g in gaps) or all(g < 0 for g in gaps) or max(map(abs, gaps)) == 0
