"""Plotly figures, one-sentence summaries and data tables for a costs_compute() result.

Figures are plain dicts (data + layout) ready for json.dumps and Plotly.react;
only scatter and bar traces are used, so the plotly-basic bundle draws them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from decider.engine.costs import LINE_LABELS
from decider.engine.figures import FIGURES
from decider.engine.outcomes import cost_option_label

COLORS = {
    "onprem": "#1f77b4",
    "cloud_on_demand": "#ff7f0e",
    "cloud_reserved": "#9467bd",
    "cloud_committed": "#8c564b",
    "hybrid": "#2ca02c",
    "low": "#1f77b4",
    "high": "#d62728",
    "marker": "#444444",
}

# The source's thresholds (§七): <= 30 % favours cloud, >= 70 % self-build.
CLOUD_BAND_PCT = 30
SELF_BUILD_BAND_PCT = 70

_MARGIN = {"l": 70, "r": 20, "t": 50, "b": 50}


@dataclass(frozen=True)
class Chart:
    key: str
    title: str
    summary: str
    figure: dict[str, Any]
    table_headers: list[str]
    table_rows: list[list[Any]]


def _money(value: float, currency: str) -> str:
    return f"{value:,.0f} {currency}"


def _figure(
    traces: list[go.BaseTraceType], *, title: str, x_title: str, y_title: str, **layout: Any
) -> dict:
    fig = go.Figure(
        data=traces,
        layout=go.Layout(
            template="none",
            autosize=True,
            margin=_MARGIN,
            title={"text": title},
            xaxis={"title": {"text": x_title}, **layout.pop("xaxis", {})},
            yaxis={"title": {"text": y_title}, **layout.pop("yaxis", {})},
            # Below the x-axis title, so the two never overlap.
            legend={"orientation": "h", "y": -0.28, "yanchor": "top"},
            **layout,
        ),
    )
    # fig.to_json() applies Plotly's encoder (numpy, NaN); the dict round trip
    # guarantees the result json.dumps cleanly.
    return json.loads(fig.to_json())


def _vline(x: float, text: str, *, dash: str = "dash", width: float = 1.5) -> tuple[dict, dict]:
    """A vertical marker line across the plot at x, and its label at the top."""
    shape = {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"color": COLORS["marker"], "dash": dash, "width": width},
    }
    annotation = {
        "x": x,
        "xref": "x",
        "y": 1,
        "yref": "paper",
        "text": text,
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "bottom",
    }
    return shape, annotation


def _distinct_hybrid(costs: dict) -> bool:
    return "hybrid" in costs["options_compared"]


def _option_name(costs: dict, key: str) -> str:
    """A cost option's name, marked when the constraints rule its outcome out."""
    if key.startswith("cloud") and "cloud" not in costs["options_compared"]:
        return _("%(option)s (ruled out)") % {"option": cost_option_label(key)}
    return cost_option_label(key)


def _resale_label(costs: dict) -> list[dict]:
    """The resale credit is the step down at the end of the owned curve: say so."""
    credit = costs["breakdown"]["onprem"].get("residual") or 0
    if not credit:
        return []
    months = costs["horizon_months"]
    return [
        {
            "x": months,
            "y": costs["cumulative"]["onprem"][-1],
            "xref": "x",
            "yref": "y",
            "text": _("Resale: %(amount)s") % {"amount": _money(-credit, costs["currency"])},
            "showarrow": True,
            "arrowhead": 2,
            "ax": -60,
            "ay": -30,
        }
    ]


def chart_cumulative(costs: dict) -> Chart:
    currency, months = costs["currency"], costs["horizon_months"]
    keys = ["onprem", "cloud_on_demand", "cloud_reserved", "cloud_committed"] + (
        ["hybrid"] if _distinct_hybrid(costs) else []
    )
    x = list(range(months + 1))
    traces = [
        go.Scatter(
            x=x,
            y=costs["cumulative"][key],
            mode="lines",
            name=_option_name(costs, key),
            line={"color": COLORS[key]},
        )
        for key in keys
    ]
    month = costs["break_even_month"]
    shapes, annotations = [], [*_resale_label(costs)]
    if month is not None:
        shape, annotation = _vline(month, _("Break-even: month %(month)s") % {"month": month})
        shapes.append(shape)
        annotations.append(annotation)
        summary = _(
            "Owning the GPUs costs less in total than renting them on demand from month %(month)s of %(months)s."
        ) % {"month": month, "months": months}
    else:
        summary = _(
            "Over %(months)s months, on-premises never costs less in total than cloud on demand "
            "(%(onprem)s against %(cloud)s)."
        ) % {
            "months": months,
            "onprem": _money(costs["totals"]["onprem"], currency),
            "cloud": _money(costs["totals"]["cloud_on_demand"], currency),
        }
    title = _("Cumulative cost over %(months)s months") % {"months": months}
    figure = _figure(
        traces,
        title=title,
        x_title=_("Month"),
        y_title=_("Cumulative cost (%(currency)s)") % {"currency": currency},
        shapes=shapes,
        annotations=annotations,
        hovermode="x unified",
    )
    headers = [_("Month")] + [f"{cost_option_label(key)} ({currency})" for key in keys]
    rows = [[m] + [costs["cumulative"][key][m] for key in keys] for m in x]
    return Chart("cumulative", title, summary, figure, headers, rows)


def chart_per_hour(costs: dict) -> Chart:
    currency = costs["currency"]
    per_hour = costs["per_hour"]
    keys = ["onprem", "cloud_on_demand", "cloud_reserved"]
    # 0 % has no useful hours; leave it out rather than plot a gap.
    x = per_hour["utilization_pct"][1:]
    traces = [
        go.Scatter(
            x=x,
            y=per_hour[key][1:],
            mode="lines+markers",
            name=cost_option_label(key),
            line={"color": COLORS[key]},
        )
        for key in keys
    ]
    shapes, annotations = _source_bands()
    pct = costs["break_even_utilization_pct"]
    if pct is not None:
        shape, annotation = _vline(pct, _("Break-even: %(pct)s %%") % {"pct": f"{pct:.0f}"})
        shapes.append(shape)
        annotations.append(annotation)
    summary = _per_hour_summary(pct, per_hour)
    title = _("Cost per useful GPU-hour by utilization")
    figure = _figure(
        traces,
        title=title,
        x_title=_("Average GPU utilization (%)"),
        y_title=_("Cost per useful GPU-hour (%(currency)s, log scale)") % {"currency": currency},
        xaxis={"range": [0, 100]},
        yaxis={"type": "log"},
        shapes=shapes,
        annotations=annotations,
        hovermode="x unified",
    )
    headers = [_("Utilization (%)")] + [
        f"{cost_option_label(key)} ({currency}/GPU-h)" for key in keys
    ]
    rows = [
        [u] + [per_hour[key][i] for key in keys] for i, u in enumerate(per_hour["utilization_pct"])
    ]
    return Chart("per_hour", title, summary, figure, headers, rows)


def _source_bands() -> tuple[list[dict], list[dict]]:
    """The source's utilization bands (§七), shaded, with their labels."""
    band = {"type": "rect", "xref": "x", "yref": "paper", "y0": 0, "y1": 1}
    band |= {"opacity": 0.08, "line": {"width": 0}, "layer": "below"}
    shapes = [
        {**band, "x0": 0, "x1": CLOUD_BAND_PCT, "fillcolor": COLORS["cloud_on_demand"]},
        {**band, "x0": SELF_BUILD_BAND_PCT, "x1": 100, "fillcolor": COLORS["onprem"]},
    ]
    label = {"xref": "x", "yref": "paper", "y": 0.98, "yanchor": "top", "showarrow": False}
    annotations = [
        {**label, "x": CLOUD_BAND_PCT / 2, "text": _("source: cloud cheaper")},
        {**label, "x": (SELF_BUILD_BAND_PCT + 100) / 2, "text": _("source: self-build cheaper")},
    ]
    return shapes, annotations


def _per_hour_summary(pct: float | None, per_hour: dict) -> str:
    if pct is not None:
        return _(
            "Below %(pct)s %% average utilization cloud on demand is cheaper per useful GPU-hour, above it "
            "owning is; the source's rule of thumb puts the line between 30 %% and 70 %%."
        ) % {"pct": f"{pct:.0f}"}
    onprem, cloud = per_hour["onprem"][-1], per_hour["cloud_on_demand"][-1]
    cheaper = (
        cost_option_label("onprem") if onprem <= cloud else cost_option_label("cloud_on_demand")
    )
    return _("%(option)s is cheaper per useful GPU-hour at every utilization from 0 to 100 %%.") % {
        "option": cheaper
    }


def chart_hybrid(costs: dict) -> Chart:
    currency = costs["currency"]
    curve = costs["hybrid_curve"]
    owned = costs["hybrid_owned_gpus"]
    peak = curve["owned_gpus"][-1]
    best_total = curve["total"][curve["owned_gpus"].index(owned)]
    traces = [
        go.Scatter(
            x=curve["owned_gpus"],
            y=curve["total"],
            mode="lines+markers",
            name=_("Hybrid total"),
            line={"color": COLORS["hybrid"]},
        ),
        go.Scatter(
            x=[owned],
            y=[best_total],
            mode="markers",
            name=_("Cheapest mix"),
            marker={"color": COLORS["marker"], "size": 12, "symbol": "star"},
        ),
    ]
    annotations = [
        {
            "x": owned,
            "y": best_total,
            "xref": "x",
            "yref": "y",
            "text": _("Optimum: %(owned)s GPUs owned") % {"owned": owned},
            "showarrow": True,
            "arrowhead": 2,
            "ay": -40,
        }
    ]
    summary = _hybrid_summary(owned, peak, _money(best_total, currency), costs["hybrid_reduces_to"])
    title = _("Hybrid cost by number of owned GPUs")
    figure = _figure(
        traces,
        title=title,
        x_title=_("Owned GPUs"),
        y_title=_("Total cost over %(months)s months (%(currency)s)")
        % {"months": costs["horizon_months"], "currency": currency},
        annotations=annotations,
    )
    headers = [_("Owned GPUs"), _("Total cost (%(currency)s)") % {"currency": currency}]
    rows = [[gpus, total] for gpus, total in zip(curve["owned_gpus"], curve["total"], strict=True)]
    return Chart("hybrid", title, summary, figure, headers, rows)


def _hybrid_summary(owned: int, peak: int, total: str, reduces_to: str | None) -> str:
    values = {"owned": owned, "peak": peak, "total": total}
    if reduces_to == "cloud":
        return _("Owning no GPUs is cheapest (%(total)s): the hybrid mix reduces to the cloud.") % (
            values
        )
    if reduces_to == "onprem" and owned == peak:
        return (
            _(
                "Owning all %(peak)s GPUs is cheapest (%(total)s): the hybrid mix reduces to on-premises."
            )
            % values
        )
    if reduces_to == "onprem":
        return (
            _(
                "Owning %(owned)s GPUs and renting nothing is cheapest (%(total)s): demand never "
                "rises above them, so the hybrid reduces to an on-premises cluster of that size."
            )
            % values
        )
    return (
        _(
            "Owning %(owned)s of the %(peak)s peak GPUs and renting the rest at peaks is cheapest, at %(total)s."
        )
        % values
    )


def chart_tornado(costs: dict) -> Chart:
    currency = costs["currency"]
    rows_in = costs["sensitivity"]
    language = get_language() or "en"
    labels = [FIGURES[row["name"]].label.get(language) for row in rows_in]
    traces = [
        go.Bar(
            y=labels,
            x=[row["low"] for row in rows_in],
            orientation="h",
            name=_("Assumption −20 %"),
            marker={"color": COLORS["low"]},
        ),
        go.Bar(
            y=labels,
            x=[row["high"] for row in rows_in],
            orientation="h",
            name=_("Assumption +20 %"),
            marker={"color": COLORS["high"]},
        ),
    ]
    months = costs["horizon_months"]
    if rows_in:
        top = rows_in[0]
        summary = _(
            "%(name)s matters most: moving it by 20 %% shifts the on-premises versus cloud difference over "
            "%(months)s months by up to %(amount)s."
        ) % {
            "name": labels[0],
            "months": months,
            "amount": _money(max(abs(top["low"]), abs(top["high"])), currency),
        }
    else:
        summary = _("No assumption was varied: all of them are zero.")
    title = _("What moves the on-premises versus cloud difference")
    figure = _figure(
        traces,
        title=title,
        x_title=_("Change in on-premises minus cloud on-demand total (%(currency)s)")
        % {"currency": currency},
        y_title="",
        barmode="overlay",
        yaxis={"autorange": "reversed", "automargin": True},
        shapes=[_vline(0, "", dash="solid", width=1)[0]],
    )
    headers = [
        _("Assumption"),
        _("Value"),
        _("Change at −20 %% (%(currency)s)") % {"currency": currency},
        _("Change at +20 %% (%(currency)s)") % {"currency": currency},
    ]
    values = costs["assumptions"]
    rows = [
        [label, values[row["name"]]["value"], row["low"], row["high"]]
        for label, row in zip(labels, rows_in, strict=True)
    ]
    return Chart("tornado", title, summary, figure, headers, rows)


# One colour per cost line, by family: owned hardware blues, running it oranges, the
# resale credit green, cloud teals and purples, people greys.
LINE_COLORS: dict[str, str] = {
    "servers": "#08519c",
    "network": "#3182bd",
    "storage": "#6baed6",
    "spares": "#9ecae1",
    "setup": "#c6dbef",
    "bridge": "#6a51a3",
    "power": "#a63603",
    "colocation": "#e6550d",
    "maintenance": "#fd8d3c",
    "licences": "#fdd0a2",
    "residual": "#31a354",
    "gpu_committed": "#00695c",
    "gpu": "#26a69a",
    "cloud_storage": "#9e9ac8",
    "egress": "#dadaeb",
    "hiring": "#252525",
    "staff": "#636363",
    "cloud_staff": "#bdbdbd",
}


def chart_breakdown(costs: dict) -> Chart:
    """What each option's total is made of: stacked bars, the resale credit below zero."""
    currency = costs["currency"]
    options = list(costs["breakdown"])
    used = [
        line
        for line in LINE_LABELS
        if any(costs["breakdown"][option].get(line) for option in options)
    ]
    names = [_option_name(costs, option) for option in options]
    traces = [
        go.Bar(
            x=names,
            y=[costs["breakdown"][option].get(line) or 0 for option in options],
            name=_(LINE_LABELS[line]),
            marker={"color": LINE_COLORS[line], "line": {"color": "#ffffff", "width": 0.5}},
        )
        for line in used
    ]
    cheapest = costs["cheapest"]
    title = _("What each option's cost is made of")
    summary = _(
        "The largest line of %(option)s is %(line)s: %(amount)s of %(total)s over %(months)s months."
    ) % _largest_line(costs, cheapest if cheapest in costs["breakdown"] else "onprem")
    figure = _figure(
        traces,
        title=title,
        x_title="",
        y_title=_("Total over the horizon (%(currency)s)") % {"currency": currency},
        barmode="relative",
        height=460,
    )
    headers = [_("Cost line")] + [f"{name} ({currency})" for name in names]
    rows = [
        [_(LINE_LABELS[line])] + [costs["breakdown"][o].get(line) for o in options] for line in used
    ]
    rows.append([_("Total")] + [costs["totals"][o] for o in options])
    rows.append([_("Present value")] + [costs["present_value"][o] for o in options])
    return Chart("breakdown", title, summary, figure, headers, rows)


def _largest_line(costs: dict, option: str) -> dict[str, Any]:
    if option == "cloud":
        option = costs["cheapest_cloud_mode"]
    lines = costs["breakdown"][option]
    line = max(lines, key=lambda name: lines[name] or 0)
    return {
        "option": cost_option_label(option),
        "line": _(LINE_LABELS[line]),
        "amount": _money(lines[line] or 0, costs["currency"]),
        "total": _money(costs["totals"][option], costs["currency"]),
        "months": costs["horizon_months"],
    }


def charts_for(costs: dict) -> list[Chart]:
    return [
        chart_cumulative(costs),
        chart_per_hour(costs),
        chart_hybrid(costs),
        chart_tornado(costs),
        chart_breakdown(costs),
    ]


# One colour per compared assessment; the line style tells the option.
COMPARE_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def chart_compare(named_costs: list[tuple[str, dict]]) -> Chart:
    """Cumulative on-prem (solid) and cloud on-demand (dotted) cost of several assessments."""
    currency = named_costs[0][1]["currency"]
    traces, headers, columns = [], [_("Month")], []
    for (name, costs), color in zip(named_costs, COMPARE_COLORS, strict=False):
        x = list(range(costs["horizon_months"] + 1))
        for key, dash in (("onprem", "solid"), ("cloud_on_demand", "dot")):
            label = f"{name}: {cost_option_label(key)}"
            traces.append(
                go.Scatter(
                    x=x,
                    y=costs["cumulative"][key],
                    mode="lines",
                    name=label,
                    line={"color": color, "dash": dash},
                )
            )
            headers.append(f"{label} ({currency})")
            columns.append(costs["cumulative"][key])
    title = _("Cumulative cost, side by side")
    summary = _(
        "Solid lines: owning the GPUs; dotted lines: renting them on demand. "
        "One colour per assessment."
    )
    figure = _figure(
        traces,
        title=title,
        x_title=_("Month"),
        y_title=_("Cumulative cost (%(currency)s)") % {"currency": currency},
        hovermode="x unified",
        height=460,
    )
    figure["layout"]["legend"]["y"] = -0.2
    longest = max(len(column) for column in columns)
    rows = [
        [m] + [column[m] if m < len(column) else None for column in columns] for m in range(longest)
    ]
    return Chart("compare", title, summary, figure, headers, rows)
