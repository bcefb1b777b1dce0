"""Plotly figures, one-sentence summaries and data tables for a costs_compute() result.

Figures are plain dicts (data + layout) ready for json.dumps and Plotly.react;
only scatter and bar traces are used, so the plotly-basic bundle draws them.
"""

from __future__ import annotations

import html
import math
import textwrap
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from decider import numbers
from decider.engine.figures import FIGURES
from decider.engine.markets import CURRENCY, symbol_of
from decider.engine.outcomes import API, cost_option_label
from decider.engine.text import is_chinese
from decider.engine.vocabulary import LINE_LABELS
from decider.formats import tokens_text

# Okabe-Ito, darkened where it was lighter than 3:1 on white (its orange and sky
# blue are 2.3:1), so every line and bar reads on screen and on paper. Colour is
# never the only cue: each option also has its own dash and marker.
COLORS = {
    "onprem": "#0072b2",
    "cloud_on_demand": "#d55e00",
    "cloud_reserved": "#ad5a8e",
    "cloud_committed": "#a86f00",
    "hybrid": "#008060",
    "api": "#000000",
    "low": "#0072b2",
    "high": "#d55e00",
    "marker": "#444444",
}
DASHES = {
    "onprem": "solid",
    "cloud_on_demand": "dash",
    "cloud_reserved": "dot",
    "cloud_committed": "dashdot",
    "hybrid": "longdash",
    "api": "longdashdot",
}
SYMBOLS = {
    "onprem": "circle",
    "cloud_on_demand": "square",
    "cloud_reserved": "diamond",
    "cloud_committed": "triangle-up",
    "hybrid": "x",
    "api": "star",
}
# Bar fill patterns: the tornado's two sides and the compare chart's options.
PATTERNS = {
    "onprem": "",
    "cloud_on_demand": "/",
    "cloud_reserved": "x",
    "cloud_committed": ".",
    "hybrid": "\\",
}
LINE_WIDTH, RECOMMENDED_WIDTH = 2, 4.5

# The source's thresholds (§七): <= 30 % favours cloud, >= 70 % self-build.
CLOUD_BAND_PCT = 30
SELF_BUILD_BAND_PCT = 70

_MARGIN = {"l": 70, "r": 20, "t": 50, "b": 50}
# Annotations sit on a white plate so a line running behind them never hides a word.
_PLATE = {"bgcolor": "rgba(255,255,255,0.85)", "borderpad": 2}


@dataclass(frozen=True)
class Chart:
    key: str
    title: str
    summary: str
    figure: dict[str, Any]
    table_headers: list[str]
    table_rows: list[list[Any]]


def _language() -> str:
    return get_language() or "en"


def _money(value: float, currency: str) -> str:
    """An amount in a sentence: "3,618,698 USD"; in Chinese "$361.87万"."""
    if is_chinese(_language()):
        return numbers.money_full(value, currency, _language())
    return f"{value:,.0f} {currency}"


def _money_short(value: float, currency: str) -> str:
    """740000 -> '$740k', 3618698 -> '$3.6M' ('¥362万' in Chinese): labels inside a chart."""
    return numbers.money_compact(value, currency, _language())


def _tick_money(value: float, currency: str) -> str:
    return numbers.tick_label(value, currency, _language())


def money_ticks(low: float, high: float, currency: str) -> dict[str, Any]:
    """Log-axis ticks a person reads at a glance ($2, $5, $10, $20, $50), spanning
    low..high, and the axis range that ends on a tick at both ends."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return {"type": "log"}  # Plotly's own ticks: nothing readable to choose from
    low, high = max(low, 1e-6), max(high, low * 1.01)
    steps_fine = (1, 1.5, 2, 3, 5, 7)
    for steps in ((1, 2, 5), (1, 2, 3, 5), steps_fine):
        start, end = math.floor(math.log10(low)), math.ceil(math.log10(high))
        candidates = [s * 10**e for e in range(start - 1, end + 1) for s in steps]
        below = max(v for v in candidates if v <= low * 1.0001)
        above = min(v for v in candidates if v >= high * 0.9999)
        values = [v for v in candidates if below <= v <= above]
        if len(values) >= 4 or steps is steps_fine:
            break
    values = [float(f"{v:.6g}") for v in values]
    return {
        "type": "log",
        "tickmode": "array",
        "tickvals": values,
        "ticktext": [_tick_money(v, currency) for v in values],
        "range": [math.log10(values[0]), math.log10(values[-1])],
    }


def _money_axis(currency: str) -> dict[str, Any]:
    """A linear money axis: '$4M' rather than '4M'. Chinese ticks ("¥2亿") are set from the
    data once the figure is built (`_money_ticks_zh`): Plotly only knows k, M and G."""
    return {"tickprefix": symbol_of(currency), "automargin": True}


def _money_ticks_zh(figure: dict) -> None:
    """Every money axis of `figure` ticked in 万/亿 from the values it shows (Chinese)."""
    layout, traces = figure["layout"], figure.get("data", [])
    for axis_name in ("xaxis", "yaxis"):
        axis = layout.get(axis_name, {})
        by_symbol = {currency.symbol: code for code, currency in CURRENCY.items()}
        currency = by_symbol.get(axis.get("tickprefix", ""))
        if currency is None or axis.get("type") == "log" or not is_chinese(_language()):
            continue
        letter = axis_name[0]
        stacked: dict[Any, float] = {}
        values: list[float] = []
        for trace in traces:
            points = [v for v in trace.get(letter, []) if isinstance(v, int | float)]
            if layout.get("barmode") == "stack" and trace.get("type") == "bar":
                other = trace.get("y" if letter == "x" else "x", [])
                for where, value in zip(other, points, strict=False):
                    stacked[(where, value >= 0)] = stacked.get((where, value >= 0), 0) + value
            else:
                values += points
        values += list(stacked.values())
        if any(trace.get("type") == "bar" for trace in traces):
            values.append(0.0)  # bars grow from zero: the axis shows it
        if not values:
            continue
        ticks = numbers.linear_ticks(min(values), max(values))
        axis |= {"tickmode": "array", "tickvals": ticks, "tickprefix": ""}
        axis["ticktext"] = [numbers.tick_label(v, currency, _language()) for v in ticks]


def _recommended_option(costs: dict, recommended: str | None) -> str | None:
    """The cost option that stands for the recommended outcome."""
    if recommended == "cloud":
        return costs.get("cheapest_cloud_mode")
    return recommended


def _line(key: str, recommended: str | None) -> dict[str, Any]:
    width = RECOMMENDED_WIDTH if key == recommended else LINE_WIDTH
    return {"color": COLORS[key], "dash": DASHES[key], "width": width}


def _legend_name(name: str, key: str, recommended: str | None) -> str:
    if key != recommended:
        return name
    return "<b>%s</b>" % (_("%(option)s (recommended)") % {"option": name})


def _figure(
    traces: list[dict[str, Any]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    meta: dict[str, Any] | None = None,
    **layout: Any,
) -> dict:
    """A figure dict. `meta` carries what charts.js needs beyond Plotly: `narrow`, layout
    updates for a container under 480 px (a phone); `min_height`, the height below which
    the bars lose their labels; `top`, room above the plot for labels sitting there."""
    figure = {
        "data": traces,
        "layout": {
            "autosize": True,
            "margin": _MARGIN,
            "title": {"text": title},
            "xaxis": {"title": {"text": x_title}, "automargin": True, **layout.pop("xaxis", {})},
            "yaxis": {"title": {"text": y_title}, "automargin": True, **layout.pop("yaxis", {})},
            # Below the x-axis title, so the two never overlap.
            "legend": {"orientation": "h", "y": -0.28, "yanchor": "top"},
            "meta": meta or {},
            **layout,
        },
    }
    _money_ticks_zh(figure)
    return figure


def _trace(kind: str, **attributes: Any) -> dict[str, Any]:
    """A trace as plotly.js reads it: its type and attributes, nothing added."""
    return {"type": kind, **attributes}


def _side(share: float) -> str:
    """Where a label at `share` (0 to 1) of the axis leans, to stay inside the plot."""
    return "left" if share < 1 / 3 else "right" if share > 2 / 3 else "center"


def _vline(
    x: float,
    text: str,
    *,
    dash: str = "dash",
    width: float = 1.5,
    inside: bool = False,
    span: tuple[float, float] = (0, 100),
) -> tuple[dict, dict]:
    """A vertical marker line across the plot at x, and its label: above the plot, or at
    the top inside it, leaning away from the nearer end of the axis (`span`)."""
    low, high = span
    side = _side((x - low) / (high - low) if high > low else 0.5)
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
        "xanchor": side,
        "xshift": {"left": 4, "right": -4, "center": 0}[side],
        "yanchor": "top" if inside else "bottom",
        **_PLATE,
    }
    return shape, annotation


def _distinct_hybrid(costs: dict) -> bool:
    return "hybrid" in costs["options_compared"]


def _option_name(costs: dict, key: str) -> str:
    """A cost option's name, marked when the constraints rule its outcome out."""
    if key.startswith("cloud") and "cloud" not in costs["options_compared"]:
        return _("%(option)s (ruled out)") % {"option": cost_option_label(key)}
    return cost_option_label(key)


def _resale_credit(costs: dict, key: str) -> float:
    """The resale credit (negative) that lands in the horizon's last month, or 0."""
    return costs["breakdown"].get(key, {}).get("residual") or 0


def _resale_step(costs: dict, key: str, before: float) -> tuple[dict, dict, str]:
    """The resale credit as a labelled step down at the horizon, in the option's colour:
    a step a reader can name, not a cliff at the end of the line."""
    months, currency = costs["horizon_months"], costs["currency"]
    after = costs["cumulative"][key][-1]
    credit = _money_short(-_resale_credit(costs, key), currency)
    trace = _trace(
        "scatter",
        x=[months, months],
        y=[before, after],
        mode="lines+markers",
        name=_("%(option)s after resale") % {"option": cost_option_label(key)},
        line={"color": COLORS[key], "width": 3},
        marker={"color": COLORS[key], "symbol": ["line-ew", "triangle-down"], "size": 9},
        legendgroup=key,
        showlegend=False,
        # At the right edge of the axis: keep the markers whole.
        cliponaxis=False,
    )
    label = {
        "x": months,
        "y": (before + after) / 2,
        "xref": "x",
        "yref": "y",
        "text": _("Resale credit: %(amount)s") % {"amount": credit},
        "showarrow": False,
        "xanchor": "right",
        "xshift": -8,
        "font": {"size": 11},
        **_PLATE,
    }
    return trace, label, f"−{credit}"


def _month_ticks(months: int) -> dict[str, Any]:
    step = 12 if months >= 24 else 3 if months <= 12 else 6
    return {"range": [0, months], "tickmode": "linear", "tick0": 0, "dtick": step}


def chart_cumulative(
    costs: dict, *, recommended: str | None = None, odds: dict | None = None
) -> Chart:
    currency, months = costs["currency"], costs["horizon_months"]
    keys = (
        ["onprem", "cloud_on_demand", "cloud_reserved", "cloud_committed"]
        + (["hybrid"] if _distinct_hybrid(costs) else [])
        + ([API] if _per_token_in_play(costs) else [])
    )
    x = list(range(months + 1))
    bands = odds["bands"] if odds else None
    traces, resale = _cumulative_lines(costs, keys, _recommended_option(costs, recommended), bands)
    annotations = [label for _step, label, _short in resale]
    narrow = {f"annotations[{i}].text": short for i, (_step, _label, short) in enumerate(resale)}
    month = costs["break_even_month"]
    shapes = []
    if month is not None:
        shape, annotation = _vline(
            month, _("Break-even: month %(month)s") % {"month": month}, span=(0, months)
        )
        shapes.append(shape)
        annotations.append(annotation)
    title = _("Cumulative cost over %(months)s months") % {"months": months}
    figure = _figure(
        traces + [step for step, _label, _short in resale],
        title=title,
        x_title=_("Month"),
        y_title=_("Cumulative cost (%(currency)s)") % {"currency": currency},
        xaxis=_month_ticks(months),
        yaxis=_money_axis(currency),
        shapes=shapes,
        annotations=annotations,
        hovermode="x unified",
        meta={"narrow": narrow, "top": 30 if month is not None else 20},
    )
    headers = [_("Month")] + [f"{cost_option_label(key)} ({currency})" for key in keys]
    rows = [[m] + [costs["cumulative"][key][m] for key in keys] for m in x]
    return Chart("cumulative", title, _cumulative_summary(costs, odds), figure, headers, rows)


def _per_token_in_play(costs: dict) -> bool:
    """Whether the per-token outcome is priced beside the GPUs, month by month."""
    return bool(costs.get("api")) and API in (costs.get("cumulative") or {})


def _cumulative_lines(
    costs: dict, keys: list[str], best: str | None, bands: dict | None
) -> tuple[list[dict], list[tuple[dict, dict, str]]]:
    """Each option's line (with its P10–P90 band, when drawn), and the resale steps: each
    step's trace, its label and the label's short text on a phone."""
    x = list(range(costs["horizon_months"] + 1))
    traces: list[dict] = []
    resale: list[tuple[dict, dict, str]] = []
    for key in keys:
        if bands and key in bands:
            traces += _band(bands["months"], bands[key], key)
        y = list(costs["cumulative"][key])
        credit = _resale_credit(costs, key)
        if credit:
            # The line ends before the credit; the step below draws the credit itself.
            y[-1] -= credit
        traces.append(
            _trace(
                "scatter",
                x=x,
                y=y,
                mode="lines",
                name=_legend_name(_option_name(costs, key), key, best),
                line=_line(key, best),
                legendgroup=key,
            )
        )
        if credit:
            resale.append(_resale_step(costs, key, y[-1]))
    return traces, resale


def _cumulative_summary(costs: dict, odds: dict | None) -> str:
    """When owning catches up with renting on demand, if it does; and what the bands hold."""
    currency, months = costs["currency"], costs["horizon_months"]
    month = costs["break_even_month"]
    if month is not None:
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
    if odds and odds["bands"]:
        summary += " " + _(
            "The shaded band around each line holds 80 %% of %(draws)s draws of what is "
            "uncertain (P10 to P90)."
        ) % {"draws": f"{odds['draws']:,}"}
    return summary


def chart_plan(plan: dict) -> Chart:
    """The staged plan over time: GPUs owned against the base and the peak of the demand."""
    timeline = plan["timeline"]
    horizon = timeline["months"][-1]
    title = _("A plan in stages: GPUs owned against the demand")
    summary = plan_sentence(plan)
    figure = _figure(
        _plan_traces(timeline),
        title=title,
        x_title=_("Month"),
        y_title=_("GPUs"),
        xaxis=_month_ticks(horizon),
        yaxis={"rangemode": "tozero"},
        annotations=_stage_labels(plan["stages"], horizon),
        hovermode="x unified",
        meta={"top": 30},
    )
    headers = [_("Month"), _("Steady base"), _("Peak demand"), _("GPUs owned")]
    shown = sorted(
        {0, horizon, *range(0, horizon + 1, 3), *(s["month"] + 1 for s in plan["stages"])}
    )
    rows = [
        [m, timeline["base_gpus"][m], timeline["peak_gpus"][m], timeline["owned_gpus"][m]]
        for m in shown
        if m <= horizon
    ]
    return Chart("plan", title, summary, figure, headers, rows)


def _plan_traces(timeline: dict) -> list[dict[str, Any]]:
    """The peak and the steady base of the demand, and the GPUs the plan owns, month by month."""
    months = timeline["months"]
    demand_line = {"width": LINE_WIDTH, "color": COLORS["marker"]}
    return [
        _trace(
            "scatter",
            x=months,
            y=timeline["peak_gpus"],
            mode="lines",
            name=_("Peak demand"),
            line={**demand_line, "dash": "dot"},
        ),
        _trace(
            "scatter",
            x=months,
            y=timeline["base_gpus"],
            mode="lines",
            name=_("Steady base"),
            line={**demand_line, "dash": "dash"},
        ),
        _trace(
            "scatter",
            x=months,
            y=timeline["owned_gpus"],
            mode="lines",
            name=_("GPUs owned"),
            line={"width": RECOMMENDED_WIDTH, "color": COLORS["hybrid"], "shape": "hv"},
            fill="tozeroy",
            fillcolor=_translucent(COLORS["hybrid"], 0.12),
        ),
    ]


def _stage_labels(stages: list[dict], horizon: int) -> list[dict[str, Any]]:
    """Each stage's month and GPUs owned, pointing at the step it makes."""
    return [
        {
            "x": stage["month"],
            "y": stage["owned_gpus"],
            "text": _("Month %(month)s: %(gpus)s")
            % {"month": stage["month"], "gpus": stage["owned_gpus"]},
            "showarrow": True,
            "arrowhead": 0,
            # Leaning into the plot: right of a stage in the first half, left after it.
            "ax": 30 if stage["month"] < horizon / 2 else -30,
            "ay": -28,
            "xanchor": "left" if stage["month"] < horizon / 2 else "right",
            **_PLATE,
        }
        for stage in stages
    ]


def plan_sentence(plan: dict) -> str:
    """The staged plan in one sentence: when owning starts and grows, and what it saves."""
    stages = plan["stages"]
    if plan.get("chosen_plan") == "api_hybrid" and plan.get("chosen"):
        row = plan["chosen"][0]
        values = {
            "gpus": row["owned_gpus"],
            "month": row["month"],
            "amount": _money(plan["chosen_present_value"], plan["currency"]),
        }
        return (
            ngettext(
                "Own %(gpus)s GPU from month %(month)s for the steady base and send the bursts "
                "above it per token: %(amount)s in present value.",
                "Own %(gpus)s GPUs from month %(month)s for the steady base and send the bursts "
                "above it per token: %(amount)s in present value.",
                values["gpus"],
            )
            % values
        )
    if plan.get("chosen_plan") in ("commit_now", "own_peak"):
        return _owned_from_start_sentence(plan)
    kept = plan.get("owned_already") or 0
    if not stages and kept and plan.get("chosen_plan") == "staged":
        return _kept_fleet_sentence(plan, kept)
    if not stages:
        return _(
            "Owning never pays for itself within the horizon at this demand and these prices: "
            "cloud only is the plan."
        )
    steps = _("; then ").join(
        ngettext(
            "%(gpus)s GPU from month %(month)s",
            "%(gpus)s GPUs from month %(month)s",
            s["owned_gpus"],
        )
        % {"gpus": s["owned_gpus"], "month": s["month"]}
        for s in stages
    )
    if plan.get("chosen_plan") == "cloud_only":
        return _rented_instead_sentence(plan, steps)
    return _staged_sentence(plan, steps)


def _owned_from_start_sentence(plan: dict) -> str:
    """The plan recommended owns from the first possible month (commit_now, own_peak)."""
    pv = plan["present_value"]
    values = {
        "gpus": plan["chosen"][0]["owned_gpus"],
        "month": plan["first_possible_month"],
        "amount": _money(pv[plan["chosen_plan"]], plan["currency"]),
    }
    if pv["cloud_only"] is None:  # data that may not leave: renting throughout is no choice
        return (
            ngettext(
                "Own %(gpus)s GPU from month %(month)s, as the recommendation does: "
                "%(amount)s in present value.",
                "Own %(gpus)s GPUs from month %(month)s, as the recommendation does: "
                "%(amount)s in present value.",
                values["gpus"],
            )
            % values
        )
    extra = pv[plan["chosen_plan"]] - pv["cloud_only"]
    values["amount"] = _money(abs(extra), plan["currency"])
    if extra <= 0:
        return (
            ngettext(
                "Own %(gpus)s GPU from month %(month)s, as the recommendation does: it costs "
                "%(amount)s less than renting throughout (present value).",
                "Own %(gpus)s GPUs from month %(month)s, as the recommendation does: it costs "
                "%(amount)s less than renting throughout (present value).",
                values["gpus"],
            )
            % values
        )
    # How much more: the summary's extra cost says it, from the cost section's figures.
    return (
        ngettext(
            "Own %(gpus)s GPU from month %(month)s, as the recommendation does: renting "
            "throughout would cost less, and the answers carry the difference.",
            "Own %(gpus)s GPUs from month %(month)s, as the recommendation does: renting "
            "throughout would cost less, and the answers carry the difference.",
            values["gpus"],
        )
        % values
    )


def _kept_fleet_sentence(plan: dict, kept: int) -> str:
    """The GPUs owned already are kept, and none bought."""
    pv = plan["present_value"]
    sentence = _(
        "Keep the %(gpus)s GPUs you own; buying more does not pay for itself within the "
        "horizon: the rest runs in the cloud."
    ) % {"gpus": kept}
    if pv["cloud_only"] is not None:
        sentence += " " + _(
            "It costs %(amount)s less than selling them and renting throughout (present value)."
        ) % {"amount": _money(pv["cloud_only"] - pv["staged"], plan["currency"])}
    return sentence


def _rented_instead_sentence(plan: dict, steps: str) -> str:
    """The plan recommended rents throughout although owning in stages (`steps`) saves."""
    pv = plan["present_value"]
    amount = _money(pv["cloud_only"] - pv["staged"], plan["currency"])
    if not plan.get("marginal"):
        return _(
            "The recommendation rents throughout: owning in stages (%(steps)s) would cost "
            "%(amount)s less (present value), and the answers carry the difference."
        ) % {"steps": steps, "amount": amount}
    wins = ((plan.get("odds") or {}).get("staged_cheaper_pct") or {}).get("cloud_only")
    return _(
        "Cloud only, keeping the choices open: the best plan that owns GPUs (%(steps)s) "
        "would save %(amount)s against renting throughout (present value) and cost less "
        "in %(share)s %% of the draws, too little to commit to."
    ) % {
        "steps": steps,
        "amount": amount,
        "share": f"{wins:.0f}" if wins is not None else "?",
    }


def _rents_beside(plan: dict) -> bool:
    """Whether the plan rents beside what it owns once owning starts: a peak above the
    GPUs owned then (before, the wait is the plan's first months, said apart)."""
    timeline = plan.get("timeline") or {}
    peaks, owned = timeline.get("peak_gpus"), timeline.get("owned_gpus")
    if peaks and owned:
        start = next((i for i, have in enumerate(owned) if have > 0), len(owned))
        after = list(zip(peaks, owned, strict=False))[start:]
        return any(peak > have + 1e-6 for peak, have in after)
    return any(s["owned_gpus"] < s["peak_gpus"] for s in plan["stages"])


def _staged_sentence(plan: dict, steps: str) -> str:
    """The plan owns in stages (`steps`): from when, what it saves, how it is paid for."""
    stages, pv, currency = plan["stages"], plan["present_value"], plan["currency"]
    if _rents_beside(plan):
        sentence = _("Own %(steps)s, ordered a lead time ahead; the rest runs in the cloud.") % {
            "steps": steps
        }
    else:  # the owned GPUs hold the peak: nothing is rented (data that may not leave, say)
        sentence = _("Own %(steps)s, ordered a lead time ahead.") % {"steps": steps}
    if pv["cloud_only"] is not None and stages[0]["month"] > (plan["first_possible_month"] or 0):
        sentence = (
            _("Cloud only until month %(month)s. ") % {"month": stages[0]["month"]} + sentence
        )
    if pv["cloud_only"] is not None:
        sentence += " " + _("It costs %(amount)s less than cloud only (present value).") % {
            "amount": _money(pv["cloud_only"] - pv["staged"], currency)
        }
    if plan.get("financing"):
        sentence += " " + _(
            "With no capital up front, the purchases are financed at %(rate)s %% a year over "
            "%(months)s months."
        ) % {
            "rate": f"{plan['financing']['rate'] * 100:g}",
            "months": plan["financing"]["term_months"],
        }
    return sentence


def _band(months: list[int], band: dict, key: str) -> list[dict]:
    """The P10–P90 band of one option's cumulative cost: its P90 edge, then its P10 edge
    filled up to it, in the option's colour and in its legend group."""
    common = {
        "x": months,
        "mode": "lines",
        "line": {"width": 0, "color": COLORS[key]},
        "legendgroup": key,
        "showlegend": False,
        "hoverinfo": "skip",
    }
    return [
        _trace("scatter", y=band["p90"], name="P90", **common),
        _trace(
            "scatter",
            y=band["p10"],
            name="P10",
            fill="tonexty",
            fillcolor=_translucent(COLORS[key], 0.14),
            **common,
        ),
    ]


def _translucent(color: str, alpha: float) -> str:
    red, green, blue = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def chart_per_hour(costs: dict, *, recommended: str | None = None) -> Chart:
    currency = costs["currency"]
    per_hour = costs["per_hour"]
    keys = ["onprem", "cloud_on_demand", "cloud_reserved"]
    best = _recommended_option(costs, recommended)
    # 0 % has no useful hours; leave it out rather than plot a gap.
    x = per_hour["utilization_pct"][1:]
    traces = [
        _trace(
            "scatter",
            x=x,
            y=per_hour[key][1:],
            mode="lines+markers",
            name=_legend_name(cost_option_label(key), key, best),
            line=_line(key, best),
            marker={"symbol": SYMBOLS[key], "size": 6, "color": COLORS[key]},
        )
        for key in keys
    ]
    shapes, annotations = _source_bands()
    # On a phone the band labels would run into each other; the summary names the bands.
    narrow: dict[str, Any] = {f"annotations[{i}].visible": False for i in range(len(annotations))}
    pct = costs["break_even_utilization_pct"]
    if pct is not None:
        shape, annotation = _vline(
            pct, _("Break-even: %(pct)s %%") % {"pct": f"{pct:.0f}"}, inside=True
        )
        shapes.append(shape)
        narrow[f"annotations[{len(annotations)}].text"] = f"{pct:.0f} %"
        annotations.append(annotation)
    summary = _per_hour_summary(pct, per_hour)
    title, y_title = _per_hour_titles(costs)
    values = [v for key in keys for v in per_hour[key][1:] if v]
    figure = _figure(
        traces,
        title=title,
        x_title=_("Average GPU utilization (%)"),
        y_title=y_title % {"currency": currency},
        xaxis={"range": [0, 100], "tickmode": "array", "tickvals": [0, 30, 50, 70, 100]},
        yaxis=money_ticks(min(values), max(values), currency),
        shapes=shapes,
        annotations=annotations,
        hovermode="x unified",
        meta={"narrow": narrow, "top": 30},
    )
    headers = [_("Utilization (%)")] + [
        f"{cost_option_label(key)} ({currency}/GPU-h)" for key in keys
    ]
    rows = [
        [u] + [per_hour[key][i] for key in keys] for i, u in enumerate(per_hour["utilization_pct"])
    ]
    return Chart("per_hour", title, summary, figure, headers, rows)


def _source_bands() -> tuple[list[dict], list[dict]]:
    """The source's utilization bands (§七), shaded, labelled above the plot at their
    outer edges so the labels meet neither the lines nor the break-even label."""
    band = {"type": "rect", "xref": "x", "yref": "paper", "y0": 0, "y1": 1}
    band |= {"opacity": 0.08, "line": {"width": 0}, "layer": "below"}
    shapes = [
        {**band, "x0": 0, "x1": CLOUD_BAND_PCT, "fillcolor": COLORS["cloud_on_demand"]},
        {**band, "x0": SELF_BUILD_BAND_PCT, "x1": 100, "fillcolor": COLORS["onprem"]},
    ]
    label = {"xref": "x", "yref": "paper", "y": 1, "yanchor": "bottom", "showarrow": False}
    label |= {"font": {"size": 11}}
    annotations = [
        {**label, "x": 0, "xanchor": "left", "text": _("source: cloud cheaper")},
        {**label, "x": 100, "xanchor": "right", "text": _("source: self-build cheaper")},
    ]
    return shapes, annotations


def _per_hour_titles(costs: dict[str, Any]) -> tuple[str, str]:
    """The chart's title and value axis: per H100-equivalent hour says so (issue 51)."""
    if costs.get("h100_equivalent", 1) != 1:
        return (
            _("Cost per useful H100-equivalent hour by utilization"),
            _("%(currency)s per useful H100-equivalent hour (log scale)"),
        )
    return (
        _("Cost per useful GPU-hour by utilization"),
        _("%(currency)s per useful GPU-hour (log scale)"),
    )


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


def chart_hybrid(costs: dict, *, recommended: str | None = None) -> Chart | None:
    """The hybrid's total by the GPUs it owns; None as demand grows (it owns in stages)."""
    if not (curve := costs["hybrid_curve"]):
        return None
    currency, peak = costs["currency"], curve["owned_gpus"][-1]
    values, y_title, owned = _hybrid_values(costs, curve, currency)
    best_total = values[curve["owned_gpus"].index(owned)]
    width = RECOMMENDED_WIDTH if recommended == "hybrid" else LINE_WIDTH
    traces = [
        _trace(
            "scatter",
            x=curve["owned_gpus"],
            y=values,
            mode="lines+markers",
            name=_("Hybrid total"),
            line={"color": COLORS["hybrid"], "width": width},
            marker={"color": COLORS["hybrid"], "size": 6},
        ),
        _trace(
            "scatter",
            x=[owned],
            y=[best_total],
            mode="markers",
            name=_("Cheapest mix"),
            marker={"color": COLORS["marker"], "size": 12, "symbol": "star"},
        ),
    ]
    low, high = min(curve["owned_gpus"]), max(curve["owned_gpus"])
    # The label leans into the plot, never over the y-axis ticks or off the right edge.
    side = _side((owned - low) / (high - low) if high > low else 0.5)
    annotations = [
        {
            "x": owned,
            "y": best_total,
            "xref": "x",
            "yref": "y",
            "text": _("Optimum: %(owned)s GPUs owned") % {"owned": owned},
            "showarrow": True,
            "arrowhead": 2,
            "ax": {"left": 20, "right": -20, "center": 0}[side],
            "ay": -40,
            "xanchor": side,
            **_PLATE,
        }
    ]
    pad = max(1, (high - low) * 0.04)
    title = _("Hybrid cost by number of owned GPUs")
    summary = _hybrid_summary(owned, peak, _money(best_total, currency), costs["hybrid_reduces_to"])
    figure = _figure(
        traces,
        title=title,
        x_title=_("Owned GPUs"),
        y_title=y_title,
        xaxis={"range": [low - pad, high + pad]},
        yaxis=_money_axis(currency),
        annotations=annotations,
    )
    headers = [_("Owned GPUs"), y_title]
    rows = [[gpus, value] for gpus, value in zip(curve["owned_gpus"], values, strict=True)]
    return Chart("hybrid", title, summary, figure, headers, rows)


def _hybrid_values(costs: dict, curve: dict, currency: str) -> tuple[list[float], str, int]:
    """The curve's present values (what the plan weighs), their axis title and the GPUs of
    the cheapest mix (none, when the hybrid reduces to the cloud); totals for a result
    saved before the curve had present values."""
    owned = costs["hybrid_owned_gpus"]
    if costs["hybrid_reduces_to"] == "cloud" and 0 in curve["owned_gpus"]:
        owned = 0
    if curve.get("present_value"):
        title = _("Present value (%(currency)s)") % {"currency": currency}
        return curve["present_value"], title, owned
    title = _("Total cost over %(months)s months (%(currency)s)")
    return curve["total"], title % {"months": costs["horizon_months"], "currency": currency}, owned


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


# Bar slots (px) in the tornado: a label per bar, on one line or wrapped on a phone.
_BAR_SLOT, _WRAPPED_BAR_SLOT, _BAR_ROOM = 22, 36, 130


def _wrap(label: str, language: str, width: int = 20) -> str:
    """A label on several lines of about `width` characters (CJK ones count double)."""
    width = max(4, width // 2) if is_chinese(language) else width
    return "<br>".join(textwrap.wrap(label, width)) or label


def chart_tornado(costs: dict, *, recommended: str | None = None) -> Chart:
    currency = costs["currency"]
    rows_in = costs["sensitivity"]
    language = get_language() or "en"
    labels = [FIGURES[row["name"]].label.get(language) for row in rows_in]
    summary = _tornado_summary(costs, labels)
    title = _("What moves the on-premises versus cloud difference")
    # Every bar gets its label: each category a tick, and height enough for all of them.
    wrapped = [_wrap(label, language) for label in labels]
    lines = max((label.count("<br>") + 1 for label in wrapped), default=1)
    height = _BAR_ROOM + _BAR_SLOT * len(labels)
    figure = _figure(
        _tornado_traces(labels, rows_in),
        title=title,
        x_title=_("Change in on-premises minus cloud on-demand total (%(currency)s)")
        % {"currency": currency},
        y_title="",
        barmode="overlay",
        xaxis=_money_axis(currency),
        yaxis={
            "autorange": "reversed",
            "tickmode": "array",
            "tickvals": labels,
            "ticktext": labels,
        },
        shapes=[_vline(0, "", dash="solid", width=1)[0]],
        meta={
            "min_height": height,
            "narrow": {
                "yaxis.ticktext": wrapped,
                "min_height": _BAR_ROOM
                + (_WRAPPED_BAR_SLOT if lines > 1 else _BAR_SLOT) * len(labels),
            },
        },
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


def _tornado_traces(labels: list[str], rows_in: list[dict]) -> list[dict[str, Any]]:
    """One bar per assumption for each side: the change at −20 % and at +20 %."""
    return [
        _trace(
            "bar",
            y=labels,
            x=[row["low"] for row in rows_in],
            orientation="h",
            name=_("Assumption −20 %"),
            marker={"color": COLORS["low"]},
        ),
        _trace(
            "bar",
            y=labels,
            x=[row["high"] for row in rows_in],
            orientation="h",
            name=_("Assumption +20 %"),
            # Hatched as well as coloured: the two sides differ without colour too.
            marker={
                "color": COLORS["high"],
                "pattern": {
                    "shape": "/",
                    "fgcolor": "#ffffff",
                    "solidity": 0.3,
                    "fillmode": "overlay",
                },
            },
        ),
    ]


def _tornado_summary(costs: dict, labels: list[str]) -> str:
    """The assumption that moves the difference most, and by how much."""
    rows_in = costs["sensitivity"]
    if not rows_in:
        return _("No assumption was varied: all of them are zero.")
    top = rows_in[0]
    return _(
        "%(name)s matters most: moving it by 20 %% shifts the on-premises versus cloud difference over "
        "%(months)s months by up to %(amount)s."
    ) % {
        "name": labels[0],
        "months": costs["horizon_months"],
        "amount": _money(max(abs(top["low"]), abs(top["high"])), costs["currency"]),
    }


# One colour per cost line, by family: owned hardware blues, running it oranges, the
# resale credit green, cloud teals and purples, people greys. All at 3:1 or more on
# white; within a family a hatch tells neighbours apart as well as the shade.
LINE_COLORS: dict[str, str] = {
    "servers": "#08519c",
    "network": "#2171b5",
    "storage": "#4292c6",
    "spares": "#3182bd",
    "setup": "#1c6aa0",
    "financing": "#084081",
    "bridge": "#6a51a3",
    "power": "#a63603",
    "colocation": "#d94801",
    "maintenance": "#e6550d",
    "licences": "#b35000",
    "refresh": "#1f4e79",
    "residual": "#31a354",
    "fleet_sale": "#238b45",
    "gpu_committed": "#00695c",
    "gpu": "#00897b",
    "cloud_storage": "#807dba",
    "egress": "#7a5195",
    "tokens": "#9e4a8a",
    "hiring": "#252525",
    "staff": "#636363",
    "cloud_staff": "#808080",
    "team": "#a0a0a0",
}
LINE_PATTERNS: dict[str, str] = {
    "network": "/",
    "spares": "x",
    "setup": ".",
    "financing": "-",
    "colocation": "/",
    "licences": "x",
    "fleet_sale": "/",
    "refresh": "x",
    "gpu_committed": "/",
    "egress": "/",
    "staff": "/",
    "cloud_staff": "x",
    "team": ".",
}


def _bar_marker(color: str, pattern: str) -> dict[str, Any]:
    marker: dict[str, Any] = {"color": color, "line": {"color": "#ffffff", "width": 0.5}}
    if pattern:
        marker["pattern"] = {
            "shape": pattern,
            "fgcolor": "#ffffff",
            "solidity": 0.3,
            "fillmode": "overlay",
        }
    return marker


def _tick_name(name: str, key: str, recommended: str | None) -> str:
    return f"<b>{name}</b>" if key == recommended else name


def chart_breakdown(costs: dict, *, recommended: str | None = None) -> Chart:
    """What each option's total is made of: stacked bars, the resale credit below zero."""
    currency = costs["currency"]
    options = list(costs["breakdown"])
    best = _recommended_option(costs, recommended)
    used = [
        line
        for line in LINE_LABELS
        if any(costs["breakdown"][option].get(line) for option in options)
    ]
    names = [_option_name(costs, option) for option in options]
    language = get_language() or "en"
    # Option names on a few short lines, level: they never need turning on their side.
    ticks = [
        _tick_name(_wrap(name, language, 16), option, best)
        for name, option in zip(names, options, strict=True)
    ]
    traces = [
        _trace(
            "bar",
            x=names,
            y=[costs["breakdown"][option].get(line) or 0 for option in options],
            name=_(LINE_LABELS[line]),
            marker=_bar_marker(LINE_COLORS[line], LINE_PATTERNS.get(line, "")),
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
        xaxis={"tickmode": "array", "tickvals": names, "ticktext": ticks, "tickangle": 0},
        yaxis=_money_axis(currency),
        barmode="relative",
        height=460,
        meta={
            "narrow": {
                "xaxis.ticktext": [
                    _tick_name(_wrap(name, language, 10), option, best)
                    for name, option in zip(names, options, strict=True)
                ],
                "height": 640,
            }
        },
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


def chart_api(costs: dict, sentence: str) -> Chart:
    """Per token against the cheapest GPU option, by volume (issue 36): two lines of
    present value on log axes, the user's own volume marked."""
    currency = costs["currency"]
    curve = costs["api_curve"]
    x = [point["tokens_per_day_m"] for point in curve]
    api_name, gpu_name = _("Per token (hosted model)"), _("Cheapest GPU option")
    traces = [
        _trace(
            "scatter",
            x=x,
            y=[point[key] for point in curve],
            mode="lines+markers",
            name=name,
            line={"color": COLORS[look], "dash": dash, "width": 2},
        )
        for key, name, look, dash in (
            ("api", api_name, "cloud_on_demand", "dot"),
            ("gpus", gpu_name, "onprem", "solid"),
        )
    ]
    own = costs["api"]["tokens_per_day_m"]
    shape, annotation = _vline(
        own,
        _("You: %(volume)s tokens a day") % {"volume": tokens_text(own)},
        inside=True,
        span=(0, 1),
    )
    annotation["x"] = math.log10(own)  # Plotly places annotations on a log axis by log10
    values = [v for p in curve for v in (p["api"], p["gpus"]) if v]
    title = _("Per token or GPUs: cost by volume")
    figure = _figure(
        traces,
        title=title,
        x_title=_("Million tokens a day (log scale)"),
        y_title=_("Present value (%(currency)s, log scale)") % {"currency": currency},
        xaxis={"type": "log"},
        yaxis=money_ticks(min(values), max(values), currency),
        shapes=[shape],
        annotations=[annotation],
        hovermode="x unified",
        meta={"narrow": {"annotations[0].text": f"{own:,.3g}"}, "top": 30},
    )
    headers = [_("Million tokens a day"), f"{api_name} ({currency})", f"{gpu_name} ({currency})"]
    rows = [[p["tokens_per_day_m"], p["api"], p["gpus"]] for p in curve]
    return Chart("api", title, sentence, figure, headers, rows)


def charts_for(
    costs: dict,
    recommended: str | None = None,
    *,
    odds: dict | None = None,
    plan: dict | None = None,
) -> list[Chart]:
    """The result's charts; `recommended` (an outcome key) makes its option stand out;
    `odds` (engine/odds.py) adds the P10–P90 bands to the cumulative cost; `plan`
    (engine/stages.py) adds the staged plan's timeline."""
    return [
        chart_cumulative(costs, recommended=recommended, odds=odds),
        *([chart_plan(plan)] if plan else []),
        *(
            drawn
            for chart in (
                chart_per_hour,
                chart_hybrid,
                chart_tornado,
                chart_breakdown,
            )
            if (drawn := chart(costs, recommended=recommended)) is not None
        ),
    ]


COMPARE_OPTIONS = ("onprem", "cloud_on_demand", "cloud_reserved", "cloud_committed", "hybrid")


def chart_compare(
    named_costs: list[tuple[str, dict]], *, recommended: list[str | None] | None = None
) -> Chart:
    """Every option's total for each assessment, side by side; the table adds each
    assessment's difference to the first one, the baseline the others are read against."""
    currency = named_costs[0][1]["currency"]
    recommended = recommended or [None] * len(named_costs)
    # Numbered, so two scenarios of the same name stay two groups; escaped, because Plotly
    # reads its own HTML-like markup (links, <br>) in category labels.
    groups = [
        f"{number}. "
        + html.escape(
            _("%(name)s · %(months)s months") % {"name": name, "months": costs["horizon_months"]}
        )
        for number, (name, costs) in enumerate(named_costs, start=1)
    ]
    best = [
        _recommended_option(costs, outcome)
        for (_name, costs), outcome in zip(named_costs, recommended, strict=True)
    ]
    title = _("Total cost of every option, side by side")
    summary = _(
        "One group of bars per assessment, one bar per option, over each assessment's own "
        "horizon; a star marks the option each assessment recommends. The Δ columns "
        "in the table give the difference to the first assessment, %(first)s: below zero is cheaper."
    ) % {"first": named_costs[0][0]}
    figure = _figure(
        _compare_traces(named_costs, groups, best),
        title=title,
        x_title="",
        y_title=_("Total cost (%(currency)s)") % {"currency": currency},
        yaxis=_money_axis(currency),
        barmode="group",
        height=460,
        meta={
            "narrow": {
                "xaxis.tickvals": groups,
                "xaxis.ticktext": [_wrap(g, get_language() or "en", 12) for g in groups],
                "xaxis.tickangle": 0,
            }
        },
    )
    headers, rows = _compare_table(named_costs, currency)
    return Chart("compare", title, summary, figure, headers, rows)


def _compare_traces(
    named_costs: list[tuple[str, dict]], groups: list[str], best: list[str | None]
) -> list[dict[str, Any]]:
    """One bar trace per option, a bar in each assessment's group; a star over the option
    each assessment recommends (`best`)."""
    return [
        _trace(
            "bar",
            x=groups,
            y=[costs["totals"][key] for _name, costs in named_costs],
            name=cost_option_label(key),
            marker=_bar_marker(COLORS[key], PATTERNS[key]),
            # A star over the option each assessment recommends.
            text=["★" if b == key else "" for b in best],
            textposition="outside",
            textfont={"color": COLORS["marker"], "size": 14},
            cliponaxis=False,
        )
        for key in COMPARE_OPTIONS
    ]


def _compare_table(
    named_costs: list[tuple[str, dict]], currency: str
) -> tuple[list[str], list[list[Any]]]:
    """The chart's table: each option's total per assessment, and after each assessment but
    the first, its difference to the first."""
    first = named_costs[0][1]["totals"]
    headers = [_("Option")]
    for index, (name, _costs) in enumerate(named_costs):
        headers.append(f"{name} ({currency})")
        if index:
            headers.append(
                _("Δ %(name)s − %(first)s (%(currency)s)")
                % {"name": name, "first": named_costs[0][0], "currency": currency}
            )
    rows = []
    for key in COMPARE_OPTIONS:
        row: list[Any] = [cost_option_label(key)]
        for index, (_name, costs) in enumerate(named_costs):
            row.append(costs["totals"][key])
            if index:
                row.append(costs["totals"][key] - first[key])
        rows.append(row)
    return headers, rows
