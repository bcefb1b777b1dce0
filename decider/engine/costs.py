"""Cost model: owning GPUs, renting them, or owning a base and renting the peaks.

Plain data in, plain data out; no Django. Each formula is written once, in the
`_*_lines` builders below, as a list of cash-flow lines (a one-off amount in a
given month, or an amount per month over a span of months). The search loops
(sensitivity, break-even, hybrid size, cost per GPU-hour) only add the lines
up; the monthly cash-flow table spreads the very same lines over the months.
All money is computed in USD and converted once, on the way out. What each
figure means (label, unit, bounds) is in `decider.engine.figures`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, cast

import numpy as np
import pandas as pd

from decider.engine.figures import (
    FIGURE_NAMES,
    SENSITIVITY_NAMES,
    Figure,
    figures_as_dict,
    figures_values,
)
from decider.engine.outcomes import COST_OPTIONS

HOURS_PER_MONTH = 730
CURRENCIES: tuple[str, ...] = ("USD", "CNY")
OPTIONS = COST_OPTIONS
# Cost per useful GPU-hour is drawn at these average utilizations (%).
UTILIZATION_GRID_PCT: tuple[int, ...] = tuple(range(0, 101, 5))

# Base demand level as a share of average utilization; the rest of the time
# demand sits at the full peak (see _demand_split).
DEMAND_SHAPES = {"steady": 1.0, "moderate": 0.6, "peaky": 0.3}

# Cheapest option must beat the runner-up by this share of the runner-up's
# total for the verdict to be "clear".
CLEAR_GAP_PCT = 15.0

SENSITIVITY_STEP = 0.2

# Ties between equally cheap options go to the smaller commitment.
_TIE_ORDER = ("cloud", "hybrid", "onprem")


@dataclass(frozen=True)
class CostAnswers:
    gpus: int  # peak GPUs needed
    utilization: float  # average, 0..1
    horizon_months: int
    dataset_tb: float
    has_datacenter: bool
    demand_shape: str  # one of DEMAND_SHAPES

    def __post_init__(self) -> None:
        if isinstance(self.gpus, bool) or not isinstance(self.gpus, int) or self.gpus < 1:
            raise ValueError(f"gpus must be an integer >= 1, got {self.gpus!r}")
        if not 0 <= self.utilization <= 1:
            raise ValueError(f"utilization must be within 0..1, got {self.utilization!r}")
        if not isinstance(self.horizon_months, int) or self.horizon_months < 1:
            raise ValueError(f"horizon_months must be an integer >= 1, got {self.horizon_months!r}")
        if not (math.isfinite(self.dataset_tb) and self.dataset_tb >= 0):
            raise ValueError(f"dataset_tb must be >= 0, got {self.dataset_tb!r}")
        if self.demand_shape not in DEMAND_SHAPES:
            raise ValueError(
                f"demand_shape must be one of {sorted(DEMAND_SHAPES)}, got {self.demand_shape!r}"
            )


# --- cash-flow lines: the only place the formulas live ------------------


class _Line(NamedTuple):
    name: str
    amount: float  # USD, once or per month
    start: float  # per-month lines run over months (start, end]; may be fractional
    end: float  # one-off lines are paid in month `end`
    monthly: bool


def _once(name: str, amount: float, month: int = 0) -> _Line:
    return _Line(name, amount, month, month, False)


def _per_month(name: str, amount: float, start: float, end: float) -> _Line:
    return _Line(name, amount, start, end, True)


def _lines_total(lines: list[_Line]) -> float:
    return sum(
        line.amount * max(0.0, line.end - line.start) if line.monthly else line.amount
        for line in lines
    )


def _lines_monthly(lines: list[_Line], months: int) -> np.ndarray:
    """Amounts per line (rows) and month 0..months (columns)."""
    month = np.arange(months + 1, dtype=float)
    amount = np.array([line.amount for line in lines], dtype=float)[:, None]
    start = np.array([line.start for line in lines], dtype=float)[:, None]
    end = np.array([line.end for line in lines], dtype=float)[:, None]
    monthly = np.array([line.monthly for line in lines], dtype=bool)[:, None]
    # Month m covers the time (m-1, m]: its share of a line is the overlap.
    share = np.clip(np.minimum(end, month) - np.maximum(start, month - 1), 0.0, None)
    paid_once = month == end
    amounts: np.ndarray = amount * np.where(monthly, share, paid_once)
    return amounts


def _nodes(params: Mapping[str, float], gpus: float) -> int:
    return math.ceil(gpus / params["gpus_per_node"]) if gpus > 0 else 0


def _blended_rate(params: Mapping[str, float]) -> float:
    spot = params["spot_share"]
    return (1 - spot) * params["gpu_hour_on_demand"] + spot * params["gpu_hour_spot"]


def _owned_lines(
    params: Mapping[str, float], answers: CostAnswers, *, gpus: int, busy_gpus: float
) -> list[_Line]:
    """Own `gpus` GPUs, on average `busy_gpus` of them busy."""
    p = params
    months = answers.horizon_months
    nodes = _nodes(p, gpus)
    servers = nodes * p["server_price"]
    network = nodes * p["network_per_node"]
    storage = answers.dataset_tb * p["storage_capex_per_tb"]
    hardware = servers + network + storage
    lead = min(p["lead_time_months"], months)
    load = p["idle_share"] + (1 - p["idle_share"]) * (busy_gpus / gpus)
    colo = 0.0 if answers.has_datacenter else nodes * p["node_kw"] * p["colo_kw_month"]
    book_left = (
        max(0.0, 1 - months / (12 * p["depreciation_years"]))
        if p["depreciation_years"] > 0
        else 0.0
    )
    return [
        _once("servers", servers),
        _once("network", network),
        _once("storage", storage),
        _once("setup", p["setup_cost"]),
        # Until the hardware arrives the same work runs on cloud GPUs.
        _per_month("bridge", busy_gpus * HOURS_PER_MONTH * _blended_rate(p), 0, lead),
        _per_month(
            "power",
            nodes * p["node_kw"] * load * p["pue"] * HOURS_PER_MONTH * p["kwh_price"],
            lead,
            months,
        ),
        _per_month("colocation", colo, lead, months),
        _per_month("maintenance", p["maintenance_rate"] * hardware / 12, lead, months),
        _per_month("staff", nodes * p["onprem_fte"] * p["fte_cost"] / 12, 0, months),
        _once("residual", -hardware * book_left * p["residual_value"], months),
    ]


def _rented_lines(
    params: Mapping[str, float], answers: CostAnswers, *, gpus: int, busy_gpus: float, rate: float
) -> list[_Line]:
    """Rent up to `gpus` GPUs, paying `rate` for `busy_gpus` GPU-hours each hour."""
    p = params
    months = answers.horizon_months
    return [
        _per_month("gpu", busy_gpus * HOURS_PER_MONTH * rate, 0, months),
        _per_month("cloud_storage", answers.dataset_tb * p["cloud_storage_tb_month"], 0, months),
        _per_month("egress", p["egress_tb_month"] * p["egress_price_tb"], 0, months),
        _per_month("cloud_staff", _nodes(p, gpus) * p["cloud_fte"] * p["fte_cost"] / 12, 0, months),
    ]


def _onprem_lines(params: Mapping[str, float], answers: CostAnswers) -> list[_Line]:
    return _owned_lines(
        params, answers, gpus=answers.gpus, busy_gpus=answers.gpus * answers.utilization
    )


def _on_demand_lines(params: Mapping[str, float], answers: CostAnswers) -> list[_Line]:
    busy = answers.gpus * answers.utilization
    return _rented_lines(
        params, answers, gpus=answers.gpus, busy_gpus=busy, rate=_blended_rate(params)
    )


def _reserved_lines(params: Mapping[str, float], answers: CostAnswers) -> list[_Line]:
    rate = params[
        "gpu_hour_reserved_3y" if answers.horizon_months >= 36 else "gpu_hour_reserved_1y"
    ]
    # Reserved capacity is paid every hour, busy or not.
    return _rented_lines(params, answers, gpus=answers.gpus, busy_gpus=answers.gpus, rate=rate)


def _demand_split(answers: CostAnswers, owned: int) -> tuple[float, float]:
    """Mean GPUs busy on the owned base and mean GPUs rented, when `owned` GPUs are owned.

    Demand (share of peak) sits at a base level l = u * f and at the full peak
    a share q of the time, with q chosen so that the mean is exactly u.
    """
    peak, u = answers.gpus, answers.utilization
    busy = peak * u
    # The mean of the profile is u by construction; returning it as such at
    # the two ends makes hybrid(0) and hybrid(peak) the pure options to the bit.
    if owned <= 0:
        return 0.0, busy
    if owned >= peak:
        return busy, 0.0
    base = u * DEMAND_SHAPES[answers.demand_shape]
    peak_share = 0.0 if base >= 1 else (u - base) / (1 - base)
    served = (1 - peak_share) * min(base * peak, owned) + peak_share * owned
    burst = (1 - peak_share) * max(base * peak - owned, 0.0) + peak_share * (peak - owned)
    return served, burst


def _hybrid_lines(params: Mapping[str, float], answers: CostAnswers, owned: int) -> list[_Line]:
    served, burst = _demand_split(answers, owned)
    lines: list[_Line] = []
    if owned > 0:
        lines += _owned_lines(params, answers, gpus=owned, busy_gpus=served)
    # With nothing owned, data and platform live in the cloud even if idle.
    if burst > 0 or owned == 0:
        rented = answers.gpus - owned
        lines += _rented_lines(
            params, answers, gpus=rented, busy_gpus=burst, rate=_blended_rate(params)
        )
    return lines


# --- searches over the totals --------------------------------------------


def _hybrid_curve(params: Mapping[str, float], answers: CostAnswers) -> list[tuple[int, float]]:
    step = int(params["gpus_per_node"])
    candidates = [*range(0, answers.gpus, step), answers.gpus]
    return [(owned, _lines_total(_hybrid_lines(params, answers, owned))) for owned in candidates]


def _hybrid_best(curve: list[tuple[int, float]]) -> int:
    best_owned, best_total = curve[0]
    for owned, total in curve[1:]:
        # A relative tolerance so float noise never beats a pure option.
        if total < best_total - 1e-9 * max(1.0, abs(best_total)):
            best_owned, best_total = owned, total
    return best_owned


def _gap(params: Mapping[str, float], answers: CostAnswers) -> float:
    """On-prem total minus cloud on-demand total over the horizon (USD)."""
    return _lines_total(_onprem_lines(params, answers)) - _lines_total(
        _on_demand_lines(params, answers)
    )


def _break_even_utilization(params: Mapping[str, float], answers: CostAnswers) -> float | None:
    # Both totals are linear in utilization, so two points give the line.
    at_zero = _gap(params, replace(answers, utilization=0.0))
    at_one = _gap(params, replace(answers, utilization=1.0))
    slope = at_one - at_zero
    if abs(slope) <= 1e-12 * max(1.0, abs(at_zero) + abs(at_one)):
        return None
    utilization = -at_zero / slope
    return utilization if 0 <= utilization <= 1 else None


def _sensitivity(
    params: Mapping[str, float], answers: CostAnswers
) -> list[tuple[str, float, float]]:
    base = _gap(params, answers)
    rows = []
    for name in SENSITIVITY_NAMES:
        value = params[name]
        if value == 0:
            continue
        low = _gap({**params, name: value * (1 - SENSITIVITY_STEP)}, answers) - base
        high = _gap({**params, name: value * (1 + SENSITIVITY_STEP)}, answers) - base
        rows.append((name, low, high))
    rows.sort(key=lambda row: max(abs(row[1]), abs(row[2])), reverse=True)
    return rows


def _per_hour(params: Mapping[str, float], answers: CostAnswers) -> dict[str, list[float | None]]:
    """Total cost over the horizon per useful GPU-hour, utilization 0..100 % in steps of 5."""
    curves: dict[str, list[float | None]] = {
        "onprem": [],
        "cloud_on_demand": [],
        "cloud_reserved": [],
    }
    builders = {
        "onprem": _onprem_lines,
        "cloud_on_demand": _on_demand_lines,
        "cloud_reserved": _reserved_lines,
    }
    for pct in UTILIZATION_GRID_PCT:
        at = replace(answers, utilization=pct / 100)
        useful_hours = at.gpus * HOURS_PER_MONTH * at.utilization * at.horizon_months
        for key, build in builders.items():
            curves[key].append(
                _lines_total(build(params, at)) / useful_hours if useful_hours else None
            )
    return curves


def _migration(params: Mapping[str, float], answers: CostAnswers) -> tuple[float, float | None]:
    cost = answers.dataset_tb * params["egress_price_tb"]
    if params["transfer_gbps"] == 0:
        return cost, None
    seconds = answers.dataset_tb * 8e12 / (params["transfer_gbps"] * 1e9)
    return cost, seconds / 86400


# --- the monthly table ---------------------------------------------------


def _option_lines(
    params: Mapping[str, float], answers: CostAnswers, hybrid_owned: int
) -> dict[str, list[_Line]]:
    return {
        "onprem": _onprem_lines(params, answers),
        "cloud_on_demand": _on_demand_lines(params, answers),
        "cloud_reserved": _reserved_lines(params, answers),
        "hybrid": _hybrid_lines(params, answers, hybrid_owned),
    }


def _cashflow_frame(
    lines_by_option: Mapping[str, list[_Line]], months: int, rate: float
) -> pd.DataFrame:
    blocks = []
    columns = []
    for option, lines in lines_by_option.items():
        blocks.append(_lines_monthly(lines, months))
        columns += [(option, line.name) for line in lines]
    return pd.DataFrame(
        np.vstack(blocks).T * rate,
        index=pd.RangeIndex(months + 1, name="month"),
        columns=pd.MultiIndex.from_tuples(columns, names=["option", "line"]),
    )


def _rate(params: Mapping[str, float], currency: str) -> float:
    if currency not in CURRENCIES:
        raise ValueError(f"currency must be one of {CURRENCIES}, got {currency!r}")
    return 1.0 if currency == "USD" else params["usd_cny"]


def _cashflow(params: Mapping[str, float], answers: CostAnswers, owned: int) -> pd.DataFrame:
    """Monthly cash flow in USD (rows: months 0..H) per option and cost line, unrounded."""
    return _cashflow_frame(_option_lines(params, answers, owned), answers.horizon_months, rate=1.0)


# --- verdict -------------------------------------------------------------


def _rank(totals: Mapping[str, float], compared: Iterable[str]) -> tuple[str, str, float]:
    """(cheapest, runner-up, gap % of the runner-up's total)."""
    candidates = {
        "onprem": totals["onprem"],
        "cloud": min(totals["cloud_on_demand"], totals["cloud_reserved"]),
        "hybrid": totals["hybrid"],
    }
    ranked = sorted(compared, key=lambda key: (candidates[key], _TIE_ORDER.index(key)))
    cheapest, runner_up = ranked[0], ranked[1]
    runner_total = candidates[runner_up]
    gap = (runner_total - candidates[cheapest]) / runner_total * 100 if runner_total > 0 else 0.0
    return cheapest, runner_up, gap


def cost_verdict(costs: Mapping[str, Any]) -> str:
    """ "<cheapest>_clear" when it beats the runner-up by >= 15 % of the runner-up's total, else "_slight"."""
    cheapest, _, gap = _rank(costs["totals"], costs["options_compared"])
    return f"{cheapest}_clear" if gap >= CLEAR_GAP_PCT - 1e-9 else f"{cheapest}_slight"


# --- the public entry point ----------------------------------------------


def costs_compute(
    *, answers: CostAnswers, figures: Mapping[str, Figure], currency: str = "USD"
) -> dict[str, Any]:
    """Everything the pages, charts, the API and the rule engine read of the costs."""
    params = figures_values(figures)
    rate = _rate(params, currency)

    def money(value: float | None) -> float | None:
        return None if value is None else round(float(value) * rate, 2)

    curve = _hybrid_curve(params, answers)
    owned = _hybrid_best(curve)
    frame = _cashflow(params, answers, owned)
    cumulative_usd = frame.T.groupby(level="option", sort=False).sum().T.cumsum()
    cumulative = {
        key: np.round(cumulative_usd[key].to_numpy() * rate, 2).tolist() for key in OPTIONS
    }
    totals = {key: cumulative[key][-1] for key in OPTIONS}
    compared = ["onprem", "cloud"] + (["hybrid"] if 0 < owned < answers.gpus else [])
    cheapest, runner_up, gap = _rank(totals, compared)
    migration_cost, migration_days = _migration(params, answers)
    costs: dict[str, Any] = {
        "currency": currency,
        "horizon_months": answers.horizon_months,
        "totals": totals,
        "cumulative": cumulative,
        "breakdown": _breakdown(frame, money),
        **_break_even(params, answers, cumulative_usd),
        "hybrid_owned_gpus": owned,
        "options_compared": compared,
        "cheapest": cheapest,
        "runner_up": runner_up,
        "cheapest_gap_pct": round(gap, 2),
        "cheapest_cloud_mode": min(("cloud_on_demand", "cloud_reserved"), key=totals.__getitem__),
        "sensitivity": [
            {"name": name, "low": money(low), "high": money(high)}
            for name, low, high in _sensitivity(params, answers)
        ],
        "migration": {
            "cost": money(migration_cost),
            "days": None if migration_days is None else round(migration_days, 2),
        },
        "assumptions": figures_as_dict({name: figures[name] for name in FIGURE_NAMES}),
        "per_hour": {
            "utilization_pct": list(UTILIZATION_GRID_PCT),
            **{
                key: [money(value) for value in values]
                for key, values in _per_hour(params, answers).items()
            },
        },
        "hybrid_curve": {
            "owned_gpus": [n for n, _ in curve],
            "total": [money(t) for _, t in curve],
        },
    }
    costs["verdict"] = cost_verdict(costs)
    return costs


def _breakdown(
    frame: pd.DataFrame, money: Callable[[float], float | None]
) -> dict[str, dict[str, float | None]]:
    """Each option's total per cost line."""
    breakdown: dict[str, dict[str, float | None]] = {key: {} for key in OPTIONS}
    for column, value in frame.sum().items():
        option, line = cast(tuple[str, str], column)
        breakdown[option][line] = money(value)
    return breakdown


def _break_even(
    params: Mapping[str, float], answers: CostAnswers, cumulative_usd: pd.DataFrame
) -> dict[str, Any]:
    """The month owning catches up with renting on demand, and the utilization they tie at."""
    onprem = cumulative_usd["onprem"].to_numpy()
    cloud = cumulative_usd["cloud_on_demand"].to_numpy()
    reached = np.flatnonzero(onprem <= cloud + 1e-6)
    utilization = _break_even_utilization(params, answers)
    return {
        "break_even_month": int(reached[0]) if reached.size else None,
        "break_even_utilization_pct": (
            None if utilization is None else round(utilization * 100, 2)
        ),
    }
