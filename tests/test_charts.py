import json
from dataclasses import fields

import pytest
from django.utils.translation import override

from decider.charts import (
    CLOUD_BAND_PCT,
    SELF_BUILD_BAND_PCT,
    Chart,
    charts_for,
)
from decider.engine.costs import CostAnswers, costs_compute
from tests.factories import shipped_figures

KEYS = ["cumulative", "per_hour", "hybrid", "tornado", "breakdown"]
ANSWER_FIELDS = {field.name for field in fields(CostAnswers)}


def make_costs(**changes) -> dict:
    """costs_compute() on the shipped h100 figures; `changes` sets answers, assumption
    values (by name) or `currency`."""
    currency = changes.pop("currency", "USD")
    answers = {
        "gpus": 64,
        "utilization": 0.6,
        "horizon_months": 60,
        "dataset_tb": 50.0,
        # An own machine room and a team of three: the steady base is worth owning.
        "has_datacenter": True,
        "team_fte": 3.0,
        "demand_shape": "moderate",
    }
    answers.update({k: v for k, v in changes.items() if k in ANSWER_FIELDS})
    figures = shipped_figures(
        "h100", **{k: v for k, v in changes.items() if k not in ANSWER_FIELDS}
    )
    return costs_compute(answers=CostAnswers(**answers), figures=figures, currency=currency)


def axis_title(chart: Chart, axis: str) -> str:
    return chart.figure["layout"][axis]["title"]["text"]


@pytest.fixture(scope="module")
def costs() -> dict:
    return make_costs()


@pytest.fixture(scope="module")
def charts(costs) -> dict[str, Chart]:
    with override("en"):
        return {chart.key: chart for chart in charts_for(costs)}


def test_five_charts_in_order(costs):
    with override("en"):
        result = charts_for(costs)
    assert [chart.key for chart in result] == KEYS
    assert all(isinstance(chart, Chart) for chart in result)


@pytest.mark.parametrize("key", KEYS)
def test_chart_basics(charts, key):
    chart = charts[key]
    assert chart.title.strip()
    assert chart.figure["layout"]["title"]["text"] == chart.title
    assert chart.summary.strip()
    assert chart.summary.rstrip().endswith(".")
    assert chart.figure["data"]
    assert chart.table_headers
    assert all(len(row) == len(chart.table_headers) for row in chart.table_rows)
    json.dumps(chart.figure)
    json.dumps(chart.table_rows)


@pytest.mark.parametrize(
    ("key", "axis"),
    [
        ("cumulative", "yaxis"),
        ("per_hour", "yaxis"),
        ("hybrid", "yaxis"),
        ("tornado", "xaxis"),
    ],
)
def test_money_axis_carries_currency(charts, key, axis):
    assert "USD" in axis_title(charts[key], axis)


def test_other_axes_carry_units(charts):
    assert axis_title(charts["cumulative"], "xaxis") == "Month"
    assert "%" in axis_title(charts["per_hour"], "xaxis")
    assert "GPUs" in axis_title(charts["hybrid"], "xaxis")


@pytest.mark.parametrize("months", [12, 36, 60])
def test_cumulative_table_has_horizon_plus_one_rows(months):
    costs = make_costs(horizon_months=months)
    with override("en"):
        chart = charts_for(costs)[0]
    assert [row[0] for row in chart.table_rows] == list(range(months + 1))
    assert chart.table_rows[-1][1:4] == [
        costs["totals"][key] for key in ("onprem", "cloud_on_demand", "cloud_reserved")
    ]
    for trace in chart.figure["data"]:
        assert len(trace["y"]) == months + 1


def test_cumulative_includes_hybrid_only_when_compared(costs, charts):
    assert "hybrid" in costs["options_compared"]
    assert len(charts["cumulative"].figure["data"]) == 5
    assert len(charts["cumulative"].table_headers) == 6
    pure = make_costs(utilization=0.9, horizon_months=60)
    assert "hybrid" not in pure["options_compared"]
    with override("en"):
        chart = charts_for(pure)[0]
    assert len(chart.figure["data"]) == 4
    assert len(chart.table_headers) == 5


def test_break_even_marker_and_summary():
    costs = make_costs(utilization=0.9, horizon_months=60)
    month = costs["break_even_month"]
    assert month is not None
    with override("en"):
        chart = charts_for(costs)[0]
    shapes = chart.figure["layout"]["shapes"]
    assert [shape["x0"] for shape in shapes if shape["type"] == "line"] == [month]
    texts = [a["text"] for a in chart.figure["layout"]["annotations"]]
    assert f"Break-even: month {month}" in texts
    assert f"month {month} of 60" in chart.summary


def test_no_break_even_marker_without_break_even():
    costs = make_costs(horizon_months=24)
    assert costs["break_even_month"] is None
    with override("en"):
        charts = {chart.key: chart for chart in charts_for(costs)}
    layout = charts["cumulative"].figure["layout"]
    assert not layout.get("shapes")
    # Only the resale credit is labelled: no break-even marker.
    assert [a["text"].split(":")[0] for a in layout.get("annotations", [])] == ["Resale"]
    summary = charts["cumulative"].summary
    assert "never" in summary
    assert f"{costs['totals']['onprem']:,.0f} USD" in summary
    assert f"{costs['totals']['cloud_on_demand']:,.0f} USD" in summary


def test_per_hour_bands_and_break_even(costs, charts):
    chart = charts["per_hour"]
    shapes = chart.figure["layout"]["shapes"]
    rects = [(s["x0"], s["x1"]) for s in shapes if s["type"] == "rect"]
    assert rects == [(0, CLOUD_BAND_PCT), (SELF_BUILD_BAND_PCT, 100)]
    assert (CLOUD_BAND_PCT, SELF_BUILD_BAND_PCT) == (30, 70)
    pct = costs["break_even_utilization_pct"]
    assert pct is not None
    lines = [s["x0"] for s in shapes if s["type"] == "line"]
    assert lines == [pct]
    assert f"Below {pct:.0f} % average utilization" in chart.summary
    assert "30 % and 70 %" in chart.summary
    assert chart.figure["layout"]["yaxis"]["type"] == "log"


def test_per_hour_table_matches_data(costs, charts):
    chart = charts["per_hour"]
    per_hour = costs["per_hour"]
    assert [row[0] for row in chart.table_rows] == per_hour["utilization_pct"]
    assert [row[1] for row in chart.table_rows] == per_hour["onprem"]
    # The plotted traces leave out 0 %.
    assert chart.figure["data"][0]["x"] == per_hour["utilization_pct"][1:]


def test_per_hour_without_break_even_names_the_cheaper_option():
    costs = make_costs(gpu_hour_on_demand=0.5, gpu_hour_spot=0.5)
    assert costs["break_even_utilization_pct"] is None
    with override("en"):
        chart = charts_for(costs)[1]
    assert not [s for s in chart.figure["layout"]["shapes"] if s["type"] == "line"]
    assert "Cloud on demand is cheaper per useful GPU-hour at every utilization" in chart.summary


def test_hybrid_chart_marks_optimum(costs, charts):
    chart = charts["hybrid"]
    owned = costs["hybrid_owned_gpus"]
    assert 0 < owned < 64
    curve = costs["hybrid_curve"]
    assert chart.table_rows == [
        [gpus, total] for gpus, total in zip(curve["owned_gpus"], curve["total"], strict=True)
    ]
    star = chart.figure["data"][1]
    assert star["x"] == [owned]
    assert star["y"] == [curve["total"][curve["owned_gpus"].index(owned)]]
    assert f"Owning {owned} of the 64 peak GPUs" in chart.summary
    assert f"Optimum: {owned} GPUs owned" in chart.figure["layout"]["annotations"][0]["text"]
    assert "60 months" in axis_title(chart, "yaxis")


def test_hybrid_summary_at_the_ends():
    low = make_costs(gpus=16, utilization=0.1, horizon_months=12)
    assert low["hybrid_owned_gpus"] == 0
    high = make_costs(utilization=0.9, horizon_months=60)
    assert high["hybrid_owned_gpus"] == 64
    with override("en"):
        assert "Owning no GPUs is cheapest" in charts_for(low)[2].summary
        assert "Owning all 64 GPUs is cheapest" in charts_for(high)[2].summary


def test_tornado_table_matches_sensitivity(costs, charts):
    chart = charts["tornado"]
    rows = costs["sensitivity"]
    assert len(chart.table_rows) == len(rows) > 0
    for table_row, row in zip(chart.table_rows, rows, strict=True):
        assert table_row[1] == costs["assumptions"][row["name"]]["value"]
        assert table_row[2:] == [row["low"], row["high"]]
    low, high = chart.figure["data"]
    assert list(low["x"]) == [row["low"] for row in rows]
    assert list(high["x"]) == [row["high"] for row in rows]
    top = rows[0]
    amount = f"{max(abs(top['low']), abs(top['high'])):,.0f} USD"
    assert chart.summary.startswith(chart.table_rows[0][0])
    assert amount in chart.summary
    assert all("USD" in header for header in chart.table_headers[2:])


def test_cny_labels_axes_with_cny():
    costs = make_costs(currency="CNY")
    usd = make_costs()
    assert costs["totals"]["onprem"] == pytest.approx(usd["totals"]["onprem"] * 7.1, rel=1e-6)
    with override("en"):
        charts = {chart.key: chart for chart in charts_for(costs)}
    for key, axis in [
        ("cumulative", "yaxis"),
        ("per_hour", "yaxis"),
        ("hybrid", "yaxis"),
        ("tornado", "xaxis"),
    ]:
        title = axis_title(charts[key], axis)
        assert "CNY" in title
        assert "USD" not in title
    assert all("CNY" in header for header in charts["cumulative"].table_headers[1:])
    assert "CNY" in charts["hybrid"].summary
    for chart in charts.values():
        json.dumps(chart.figure)


def test_breakdown_stacks_every_line_with_the_resale_credit_below_zero(costs, charts):
    chart = charts["breakdown"]
    assert chart.figure["layout"]["barmode"] == "relative"
    resale = next(t for t in chart.figure["data"] if t["name"] == "Resale credit")
    assert min(resale["y"]) < 0
    by_name = {row[0]: row[1:] for row in chart.table_rows}
    for i, option in enumerate(costs["breakdown"]):
        lines = [
            values[i] or 0
            for name, values in by_name.items()
            if name not in ("Total", "Present value")
        ]
        assert sum(lines) == pytest.approx(costs["totals"][option], abs=1)
        assert by_name["Present value"][i] == costs["present_value"][option]


def test_breakdown_tells_every_cost_line_apart_by_colour(charts):
    from decider.charts import LINE_COLORS
    from decider.engine.costs import LINE_LABELS

    assert set(LINE_COLORS) == set(LINE_LABELS)
    assert len(set(LINE_COLORS.values())) == len(LINE_COLORS)
    colours = [trace["marker"]["color"] for trace in charts["breakdown"].figure["data"]]
    assert len(set(colours)) == len(colours)
