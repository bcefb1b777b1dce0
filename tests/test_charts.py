import json
import math
from dataclasses import fields

import pytest
from django.utils.translation import override

from decider.charts import (
    CLOUD_BAND_PCT,
    COMPARE_OPTIONS,
    LINE_WIDTH,
    RECOMMENDED_WIDTH,
    SELF_BUILD_BAND_PCT,
    Chart,
    chart_compare,
    charts_for,
    money_ticks,
)
from decider.engine.costs import CostAnswers, costs_compute
from decider.engine.outcomes import cost_option_label
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


def option_lines(chart: Chart) -> list[dict]:
    """The cumulative chart's one line per option (not the resale steps)."""
    return [trace for trace in chart.figure["data"] if trace.get("showlegend") is not False]


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
    for trace in option_lines(chart):
        assert len(trace["y"]) == months + 1


def test_cumulative_includes_hybrid_only_when_compared(costs, charts):
    assert "hybrid" in costs["options_compared"]
    assert len(option_lines(charts["cumulative"])) == 5
    assert len(charts["cumulative"].table_headers) == 6
    pure = make_costs(utilization=0.9, horizon_months=60)
    assert "hybrid" not in pure["options_compared"]
    with override("en"):
        chart = charts_for(pure)[0]
    assert len(option_lines(chart)) == 4
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
    # Only the resale credits are labelled: no break-even marker.
    labels = {a["text"].split(":")[0] for a in layout.get("annotations", [])}
    assert labels == {"Resale credit"}
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
    from decider.engine.vocabulary import LINE_LABELS

    assert set(LINE_COLORS) == set(LINE_LABELS)
    assert len(set(LINE_COLORS.values())) == len(LINE_COLORS)
    colours = [trace["marker"]["color"] for trace in charts["breakdown"].figure["data"]]
    assert len(set(colours)) == len(colours)


# --- readable axes, labelled steps, colours a colour-blind reader tells apart ------


def test_money_ticks_read_as_money_in_1_2_5_steps():
    ticks = money_ticks(1.9, 45.0, "USD")
    assert ticks["ticktext"] == ["$1", "$2", "$5", "$10", "$20", "$50"]
    assert ticks["range"] == pytest.approx([0, math.log10(50)])
    assert money_ticks(0.4, 3.0, "CNY")["ticktext"] == ["¥0.2", "¥0.5", "¥1", "¥2", "¥5"]
    # A narrow range still gets enough ticks to read a value off.
    narrow = money_ticks(2.6, 3.4, "USD")
    assert len(narrow["tickvals"]) >= 3
    assert narrow["tickvals"][0] <= 2.6 and narrow["tickvals"][-1] >= 3.4


@pytest.mark.parametrize("currency", ["USD", "CNY"])
def test_cost_per_hour_axis_has_money_ticks_around_the_data(currency):
    costs = make_costs(currency=currency)
    with override("en"):
        chart = charts_for(costs)[1]
    yaxis = chart.figure["layout"]["yaxis"]
    assert yaxis["type"] == "log" and yaxis["tickmode"] == "array"
    symbol = {"USD": "$", "CNY": "¥"}[currency]
    assert all(text.startswith(symbol) for text in yaxis["ticktext"])
    # The data lies inside the ticked range, which starts and ends on a tick.
    plotted = [v for trace in chart.figure["data"] for v in trace["y"]]
    low, high = yaxis["range"]
    assert 10**low <= min(plotted) and max(plotted) <= 10**high
    assert (low, high) == pytest.approx(
        (math.log10(yaxis["tickvals"][0]), math.log10(yaxis["tickvals"][-1]))
    )
    # Short enough to fit up the side of a 300 px high chart in the PDF.
    assert len(axis_title(chart, "yaxis")) <= 40


def test_the_tornado_labels_every_bar_and_grows_with_them(charts):
    chart = charts["tornado"]
    yaxis = chart.figure["layout"]["yaxis"]
    labels = [row[0] for row in chart.table_rows]
    assert len(labels) >= 15
    assert yaxis["tickmode"] == "array" and yaxis["tickvals"] == labels
    meta = chart.figure["layout"]["meta"]
    # Tall enough for a 20 px slot per label at least, on paper and (wrapped) on a phone.
    assert meta["min_height"] >= 20 * len(labels)
    assert meta["narrow"]["min_height"] >= meta["min_height"]
    assert all("<br>" in text or len(text) <= 20 for text in meta["narrow"]["yaxis.ticktext"])


def test_the_resale_credit_is_a_labelled_step_at_the_horizon(costs, charts):
    chart = charts["cumulative"]
    months = costs["horizon_months"]
    credit = costs["breakdown"]["onprem"]["residual"]
    assert credit < 0
    onprem = option_lines(chart)[0]
    # The line runs to the horizon before the credit; a step takes it down to the total.
    assert onprem["y"][-1] == pytest.approx(costs["totals"]["onprem"] - credit)
    step = next(t for t in chart.figure["data"] if t["legendgroup"] == "onprem" and t is not onprem)
    assert step["x"] == [months, months]
    assert step["y"] == pytest.approx([onprem["y"][-1], costs["totals"]["onprem"]])
    assert step["line"]["color"] == onprem["line"]["color"]
    label = chart.figure["layout"]["annotations"][0]
    assert label["text"] == f"Resale credit: ${-credit / 1000:.0f}k"
    assert label["x"] == months and label["xanchor"] == "right"
    assert label["y"] == pytest.approx((onprem["y"][-1] + costs["totals"]["onprem"]) / 2)
    # On a phone the label shortens to the amount, and stays.
    assert chart.figure["layout"]["meta"]["narrow"]["annotations[0].text"].startswith("−$")


@pytest.mark.parametrize("months", [12, 36, 60])
def test_the_cumulative_axis_ends_at_the_horizon(months):
    with override("en"):
        chart = charts_for(make_costs(horizon_months=months))[0]
    assert chart.figure["layout"]["xaxis"]["range"] == [0, months]


def test_lines_differ_by_dash_and_marker_as_well_as_colour(charts):
    lines = option_lines(charts["cumulative"])
    for attribute in ("color", "dash"):
        assert len({trace["line"][attribute] for trace in lines}) == len(lines)
    per_hour = charts["per_hour"].figure["data"]
    assert len({trace["marker"]["symbol"] for trace in per_hour}) == len(per_hour)
    assert len({trace["line"]["dash"] for trace in per_hour}) == len(per_hour)
    low, high = charts["tornado"].figure["data"]
    assert "pattern" not in low["marker"] and high["marker"]["pattern"]["shape"]


def _contrast_on_white(colour: str) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    hex_ = colour.lstrip("#")
    r, g, b = (channel(int(hex_[i : i + 2], 16)) for i in (0, 2, 4))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return 1.05 / (luminance + 0.05)


def _colours(node, key="") -> list[str]:
    """Every colour in a figure: lines, markers, fills, fonts, shapes."""
    if isinstance(node, dict):
        if node.get("type") == "rect" and node.get("opacity", 1) < 0.2:
            node = {k: v for k, v in node.items() if k != "fillcolor"}  # a faint band
        return [c for k, v in node.items() for c in _colours(v, k)]
    if isinstance(node, list):
        return [c for v in node for c in _colours(v, key)]
    if isinstance(node, str) and "color" in key and node.startswith("#"):
        return [node]
    return []


def test_the_contrast_test_finds_the_colours():
    assert _contrast_on_white("#ff7f0e") == pytest.approx(2.53, abs=0.01)  # Plotly's orange
    assert _colours({"line": {"color": "#0072b2"}, "marker": {"color": ["#d55e00"]}}) == [
        "#0072b2",
        "#d55e00",
    ]


@pytest.mark.parametrize("case", ["growth", "cny", "steady"])
def test_every_colour_in_every_figure_has_3_to_1_on_white(case):
    costs = {
        "growth": make_costs,
        "cny": lambda: make_costs(currency="CNY"),
        "steady": lambda: make_costs(utilization=0.9),
    }[case]()
    with override("en"):
        figures = [chart.figure for chart in charts_for(costs, recommended="onprem")]
        figures.append(chart_compare([("A", costs), ("B", make_costs(gpus=16))]).figure)
    # White is the gap between stacked bars and the hatching inside them, not a mark.
    colours = {c.lower() for figure in figures for c in _colours(figure)} - {"#ffffff"}
    assert len(colours) > 12
    weak = {c: round(_contrast_on_white(c), 2) for c in colours if _contrast_on_white(c) < 3}
    assert weak == {}


@pytest.mark.parametrize(
    ("outcome", "option"), [("onprem", "onprem"), ("hybrid", "hybrid"), ("cloud", None)]
)
def test_the_recommended_option_stands_out(costs, outcome, option):
    option = option or costs["cheapest_cloud_mode"]
    with override("en"):
        charts = {c.key: c for c in charts_for(costs, recommended=outcome)}
    lines = option_lines(charts["cumulative"])
    thick = [t["name"] for t in lines if t["line"]["width"] == RECOMMENDED_WIDTH]
    assert len(thick) == 1 and "(recommended)" in thick[0] and thick[0].startswith("<b>")
    assert all(t["line"]["width"] == LINE_WIDTH for t in lines if t["name"] not in thick)
    ticks = charts["breakdown"].figure["layout"]["xaxis"]["ticktext"]
    bold = [text.replace("<br>", " ") for text in ticks if text.startswith("<b>")]
    assert len(bold) == 1
    with override("en"):
        assert cost_option_label(option) in bold[0] and cost_option_label(option) in thick[0]


def test_without_a_recommendation_no_line_stands_out(charts):
    lines = option_lines(charts["cumulative"])
    assert {t["line"]["width"] for t in lines} == {LINE_WIDTH}


# --- compare --------------------------------------------------------------------------


def test_compare_shows_every_option_of_every_assessment_with_a_delta_column():
    first, second = make_costs(), make_costs(gpus=16, horizon_months=36)
    with override("en"):
        chart = chart_compare(
            [("Plan A", first), ("Plan B", second)], recommended=["hybrid", "cloud"]
        )
    traces = chart.figure["data"]
    assert [t["name"] for t in traces] == [
        "On-premises",
        "Cloud on demand",
        "Cloud reserved",
        "Cloud committed + on demand",
        "Hybrid",
    ]
    for trace, key in zip(traces, COMPARE_OPTIONS, strict=True):
        assert trace["x"] == ["1. Plan A · 60 months", "2. Plan B · 36 months"]
        assert trace["y"] == [first["totals"][key], second["totals"][key]]
    # A star over each assessment's recommended option, and nowhere else.
    stars = {(t["name"], i) for t in traces for i, text in enumerate(t["text"]) if text}
    assert stars == {("Hybrid", 0), (cost_option_label(second["cheapest_cloud_mode"]), 1)}
    assert chart.table_headers == [
        "Option",
        "Plan A (USD)",
        "Plan B (USD)",
        "Δ Plan B − Plan A (USD)",
    ]
    for row, key in zip(chart.table_rows, COMPARE_OPTIONS, strict=True):
        assert row[3] == pytest.approx(second["totals"][key] - first["totals"][key])
    assert "difference to the first assessment, Plan A" in chart.summary


def test_compare_with_three_has_a_delta_for_each_against_the_first():
    named = [("A", make_costs()), ("B", make_costs(gpus=16)), ("C", make_costs(gpus=128))]
    with override("en"):
        chart = chart_compare(named)
    assert chart.table_headers[1:] == [
        "A (USD)",
        "B (USD)",
        "Δ B − A (USD)",
        "C (USD)",
        "Δ C − A (USD)",
    ]
    assert all(len(row) == len(chart.table_headers) for row in chart.table_rows)
    assert not any(text for trace in chart.figure["data"] for text in trace["text"])


def test_compare_keeps_same_named_assessments_apart_and_names_inert(costs):
    name = '<a href="https://example.com">quotes</a>'
    chart = chart_compare([(name, costs), (name, costs)])
    groups = chart.figure["data"][0]["x"]
    assert len(set(groups)) == 2  # two groups, not one merged
    assert all("<a " not in g and "&lt;a href" in g for g in groups)


def test_money_ticks_give_way_to_plotly_on_numbers_it_cannot_read():
    assert money_ticks(2.0, float("inf"), "USD") == {"type": "log"}


@pytest.mark.parametrize(
    "costs_of",
    [
        make_costs,
        lambda: make_costs(currency="CNY", utilization=0.9, horizon_months=12),
        lambda: make_costs(gpus=8, has_datacenter=False, team_fte=0.0, demand_shape="peaky"),
    ],
    ids=["growth", "cny-steady", "small-peaky"],
)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_figure_is_one_plotly_js_draws_as_written(costs_of, language):
    """The figures are plain dicts, so nothing checks them on the way to the page: a
    misspelt attribute would be dropped by plotly.js without a word. Plotly's own schema
    checks them here (the only place the plotly package is imported), and the page's JSON
    must parse in a browser (no NaN)."""
    import plotly.graph_objects as go

    costs = costs_of()
    with override(language):
        figures = [chart.figure for chart in charts_for(costs, recommended="hybrid")]
        figures.append(chart_compare([("A", costs), ("B", make_costs(gpus=16))]).figure)
    for figure in figures:
        go.Figure(figure)  # raises ValueError naming any attribute plotly.js does not know
        json.dumps(figure, allow_nan=False)


def test_a_charts_table_shows_its_numbers_formatted_and_its_labels_escaped():
    """The numbers behind a chart, as a reader without JavaScript reads them: labels as
    text (never markup), counts and amounts with separators, a missing value as a dash."""
    from django.template.loader import render_to_string

    chart = Chart(
        key="test",
        title="A chart",
        summary="What it shows.",
        figure={"data": []},
        table_headers=["Year", "Cost"],
        table_rows=[["<b>1</b> & 'two'", 1234567.891], [2, None], ["3", 12.345], [True, 7]],
    )
    html = render_to_string("decider/_chart.html", {"chart": chart})

    body = html[html.index("<tbody>") : html.index("</tbody>")]
    assert body == (
        "<tbody>"
        '<tr><td>&lt;b&gt;1&lt;/b&gt; &amp; &#x27;two&#x27;</td><td class="num">1,234,568</td></tr>'
        '<tr><td>2</td><td class="num">—</td></tr>'
        '<tr><td>3</td><td class="num">12.35</td></tr>'
        '<tr><td>True</td><td class="num">7</td></tr>'
    )
