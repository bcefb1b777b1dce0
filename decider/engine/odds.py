"""The odds: how sure the cheapest option is, when what is uncertain is drawn many times.

The cost model gives one total per option for one set of figures. Here the figures a CTO
cannot know for sure are drawn, each from a triangular distribution between a low and a
high multiplier of today's figure (mode 1: the figure itself), 10,000 times over:

- utilization: the average demand (base and bursts scale together);
- cloud_price: every cloud GPU-hour price over the horizon (on demand, spot, reserved,
  committed move together, as a price level);
- hardware_price: servers, network and storage bought, with their spares, maintenance and
  resale (a share of the price);
- lead_time: the months until owned hardware runs work, rented meanwhile;
- resale: what the hardware fetches at the end.

Each option keeps the plan the cost model chose for it (the hybrid's owned base, the
committed block): the plan is decided now, the world is drawn afterwards.

How it stays fast: cost lines are linear in the three prices, so each line group is scaled
by its price multipliers. Utilization and lead time are not linear (a burst above the base,
a bridge until the hardware arrives), so the exact cost model is run on a grid of both
(7 × 5 points) and each draw is interpolated between its four neighbours. With every range
at 1 the draws are exactly the cost model's totals.

Plain Python and numpy: no Django. A seed makes the draws repeatable; a saved result keeps
its seed, so a shared link shows everyone the same odds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from decider.engine.cashflow import lines_monthly
from decider.engine.costs import TIE_ORDER, Chosen, CostAnswers, costs_chosen, outcome_amounts
from decider.engine.figures import Figure, figures_values
from decider.engine.i18n import gettext, gettext_noop
from decider.engine.outcomes import COST_OPTIONS

DRAWS = 10_000
RANGE_LIMITS = (0.1, 5.0)  # the multipliers a range may use
UTILIZATION_POINTS, LEAD_TIME_POINTS = 7, 5
BAND_POINTS = 25  # months at which the cumulative bands are read
PERCENTILES = (10, 50, 90)


@dataclass(frozen=True)
class Spread:
    """One uncertain input: today's figure times a multiplier from `low` to `high`."""

    name: str
    label: str  # gettext_noop: translated where shown
    low: float
    high: float
    source: str
    as_of: str


SPREADS: dict[str, Spread] = {
    spread.name: spread
    for spread in (
        Spread(
            "utilization",
            gettext_noop("Average GPU utilization"),
            0.7,
            1.15,
            "Estimate: plans overstate how busy GPUs will be more often than they understate "
            "it; surveys of AI infrastructure teams report most clusters run well below their "
            "planned load (ClearML / AI Infrastructure Alliance, State of AI Infrastructure "
            "at Scale 2024)",
            "2026-12-04",
        ),
        Spread(
            "cloud_price",
            gettext_noop("Cloud GPU-hour prices over the horizon"),
            0.6,
            1.1,
            "H100 rental fell from above $8 to about $2 per GPU-hour between 2023 and 2025, "
            "and rose again from $1.70 (Oct 2025) to $2.35 (Mar 2026, the shipped reserved "
            "price's index): mostly down, sometimes up",
            "2026-03-01",
        ),
        Spread(
            "hardware_price",
            gettext_noop("Hardware price"),
            0.9,
            1.2,
            "Estimate: 8-GPU server quotes differ by about 10 % between vendors and rose in "
            "the 2023 shortage",
            "2026-12-04",
        ),
        Spread(
            "lead_time",
            gettext_noop("Procurement lead time"),
            0.5,
            2.0,
            "H100 server lead times fell from 36–52 weeks (2023) to 8–12 weeks (early 2024, "
            "trade press reports of Dell and Supermicro deliveries); they grow again when a "
            "new generation ships",
            "2024-02-15",
        ),
        Spread(
            "resale",
            gettext_noop("Resale value at the end"),
            0.5,
            1.3,
            "Estimate: used GPU prices fall when the next generation ships (A100s after the "
            "H100) and hold when supply is short",
            "2026-12-04",
        ),
    )
}

# Which cost lines each price multiplier scales (engine/costs.py names the lines).
CLOUD_PRICED = frozenset({"gpu", "gpu_committed", "bridge"})
HARDWARE_PRICED = frozenset({"servers", "network", "storage", "spares", "maintenance"})
RESOLD = frozenset({"residual"})
_GROUPS = ("other", "cloud", "hardware", "resold")


def _group(line_name: str) -> int:
    if line_name in CLOUD_PRICED:
        return 1
    if line_name in HARDWARE_PRICED:
        return 2
    return 3 if line_name in RESOLD else 0


def ranges_given(raw: Any) -> tuple[dict[str, dict[str, float]], tuple[str, str] | None]:
    """The answers' `uncertainty` block checked: ({input: {"low", "high"}}, None), or
    ({}, (key, message)) naming the first input that is wrong.

    `raw`: {"cloud_price": {"low": 0.5, "high": 1.0}, ...}; a side left out keeps its default.
    """
    if not isinstance(raw, Mapping):
        return {}, ("uncertainty", gettext("must be an object of {low, high} per input"))
    least, most = RANGE_LIMITS
    ranges: dict[str, dict[str, float]] = {}
    for name, given in raw.items():
        key = f"uncertainty.{name}"
        if name not in SPREADS:
            return {}, (key, gettext("unknown; one of %(names)s") % {"names": ", ".join(SPREADS)})
        if not isinstance(given, Mapping) or not set(given) <= {"low", "high"}:
            return {}, (key, gettext("must be an object with low and high"))
        spread = SPREADS[name]
        low, high = given.get("low", spread.low), given.get("high", spread.high)
        for side, value in (("low", low), ("high", high)):
            if isinstance(value, bool) or not isinstance(value, int | float):
                return {}, (f"{key}.{side}", gettext("must be a number"))
        if not least <= low <= 1 <= high <= most:
            message = gettext("must have %(least)s ≤ low ≤ 1 ≤ high ≤ %(most)s") % {
                "least": least,
                "most": most,
            }
            return {}, (key, message)
        ranges[name] = {"low": float(low), "high": float(high)}
    return ranges, None


def ranges_of(given: Mapping[str, Mapping[str, float]] | None) -> dict[str, tuple[float, float]]:
    """The ranges to draw from: the defaults, with those the answers give (checked by
    ranges_given) in their place."""
    given = given or {}
    return {
        name: (
            float(given.get(name, {}).get("low", spread.low)),
            float(given.get(name, {}).get("high", spread.high)),
        )
        for name, spread in SPREADS.items()
    }


def draw(
    ranges: Mapping[str, tuple[float, float]], *, seed: int, draws: int = DRAWS
) -> dict[str, np.ndarray]:
    """`draws` multipliers per input, triangular from low to high with its mode at 1."""
    rng = np.random.default_rng(seed)
    drawn = {}
    for name in SPREADS:  # a fixed order: the same seed gives the same draws
        low, high = ranges[name]
        drawn[name] = rng.triangular(low, 1.0, high, draws) if low < high else np.ones(draws)
    return drawn


def cheapest_odds(
    amounts: Mapping[str, np.ndarray], compared: list[str], reduces_to: str | None
) -> dict[str, float]:
    """The share of draws in which each compared outcome costs least (ties as the cost
    model breaks them: cloud, then hybrid, then on-premises)."""
    if not compared:
        return {}
    candidates = outcome_amounts(amounts, reduces_to)
    order = sorted(compared, key=TIE_ORDER.index)
    stacked = np.vstack([candidates[outcome] for outcome in order])
    wins = np.bincount(np.argmin(stacked, axis=0), minlength=len(order))
    return {outcome: float(wins[i] / stacked.shape[1]) for i, outcome in enumerate(order)}


def rank_correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation (0 when either does not vary)."""
    rx, ry = _ranks(x), _ranks(y)
    sx, sy = rx.std(), ry.std()
    if sx == 0 or sy == 0:
        return 0.0
    return float(((rx - rx.mean()) * (ry - ry.mean())).mean() / (sx * sy))


def _ranks(values: np.ndarray) -> np.ndarray:
    ranks = np.empty(len(values))
    ranks[np.argsort(values, kind="stable")] = np.arange(len(values))
    return ranks


@dataclass(frozen=True)
class _Grid:
    """Per option: cost per line group at each (utilization, lead time) grid point, as a
    present value, a plain total, and cumulative at the band months."""

    utilization: np.ndarray  # multipliers
    lead_time: np.ndarray
    present: dict[str, np.ndarray]  # option -> (nu, nt, groups)
    cumulative: dict[str, np.ndarray]  # option -> (nu, nt, groups, band months)


def _points(low: float, high: float, count: int) -> np.ndarray:
    return np.linspace(low, high, count) if low < high else np.array([1.0])


def _scaled(answers: CostAnswers, factor: float) -> CostAnswers:
    """The same demand, busier or idler by `factor` (its base and bursts alike)."""
    utilization = min(answers.utilization * factor, 1.0)
    base = answers.base_gpus
    if base is not None:
        base = min(base * factor, answers.gpus * utilization)
    return replace(answers, utilization=utilization, base_gpus=base)


def _grid(
    params: Mapping[str, float],
    answers: CostAnswers,
    chosen: Chosen,
    ranges: Mapping[str, tuple[float, float]],
    band_months: np.ndarray,
) -> _Grid:
    us = _points(*ranges["utilization"], UTILIZATION_POINTS)
    ts = _points(*ranges["lead_time"], LEAD_TIME_POINTS)
    months = answers.horizon_months
    discount = (1.0 + params["discount_rate"]) ** (-np.arange(months + 1) / 12)
    present = {o: np.zeros((len(us), len(ts), len(_GROUPS))) for o in COST_OPTIONS}
    cumulative = {
        o: np.zeros((len(us), len(ts), len(_GROUPS), len(band_months))) for o in COST_OPTIONS
    }
    for i, u in enumerate(us):
        busy = _scaled(answers, u)
        for j, t in enumerate(ts):
            varied = {**params, "lead_time_months": params["lead_time_months"] * t}
            for option in COST_OPTIONS:
                lines = chosen.lines(varied, busy, option)
                monthly = lines_monthly(lines, months)  # (lines, months + 1)
                groups = np.array([_group(line.name) for line in lines], dtype=int)
                by_group = np.zeros((len(_GROUPS), months + 1))
                np.add.at(by_group, groups, monthly)
                present[option][i, j] = by_group @ discount
                cumulative[option][i, j] = np.cumsum(by_group, axis=1)[:, band_months]
    return _Grid(us, ts, present, cumulative)


def _corners(points: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each value: the grid index below it and how far it lies towards the next."""
    if len(points) == 1:
        return np.zeros(len(values), dtype=int), np.zeros(len(values))
    step = points[1] - points[0]
    position = np.clip((values - points[0]) / step, 0, len(points) - 1)
    below = np.minimum(position.astype(int), len(points) - 2)
    return below, position - below


def _weights(grid: _Grid, drawn: Mapping[str, np.ndarray]) -> np.ndarray:
    """(draws, grid points): each draw's bilinear weights on its four grid neighbours, so
    that a table over the grid is read at every draw by one matrix product."""
    i, fi = _corners(grid.utilization, drawn["utilization"])
    j, fj = _corners(grid.lead_time, drawn["lead_time"])
    nu, nt = len(grid.utilization), len(grid.lead_time)
    i1, j1 = np.minimum(i + 1, nu - 1), np.minimum(j + 1, nt - 1)
    weights = np.zeros((len(i), nu * nt))
    rows = np.arange(len(i))
    for a, b, w in (
        (i, j, (1 - fi) * (1 - fj)),
        (i1, j, fi * (1 - fj)),
        (i, j1, (1 - fi) * fj),
        (i1, j1, fi * fj),
    ):
        np.add.at(weights, (rows, a * nt + b), w)
    return weights


def _read(table: np.ndarray, weights: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Σ over line groups of `table` (nu, nt, groups, ...) read at each draw's grid point
    (`weights`) times that draw's multiplier of the group (`scale`, (draws, groups))."""
    flat = table.reshape(weights.shape[1], table.shape[2], -1)  # (points, groups, rest)
    total = np.zeros((weights.shape[0], flat.shape[2]))
    for g in range(flat.shape[1]):
        total += (weights @ flat[:, g, :]) * scale[:, g, None]
    return total.reshape((weights.shape[0],) + table.shape[3:])


def _multipliers(drawn: Mapping[str, np.ndarray]) -> np.ndarray:
    """(draws, groups): what each line group is multiplied by in each draw."""
    hardware = drawn["hardware_price"]
    return np.stack(
        [np.ones_like(hardware), drawn["cloud_price"], hardware, hardware * drawn["resale"]],
        axis=1,
    )


def odds_compute(
    *,
    answers: CostAnswers,
    figures: Mapping[str, Figure],
    currency: str = "USD",
    ranges: Mapping[str, tuple[float, float]] | None = None,
    seed: int,
    draws: int = DRAWS,
) -> dict[str, Any]:
    """The odds of the cost model's options: who is cheapest how often, what drives it, and
    the P10–P90 band of each option's cumulative cost."""
    ranges = ranges_of(None) if ranges is None else dict(ranges)
    params = figures_values(figures)
    chosen = costs_chosen(answers=answers, figures=figures, currency=currency)
    months = answers.horizon_months
    band_months = np.unique(np.linspace(0, months, min(BAND_POINTS, months + 1)).round()).astype(
        int
    )
    grid = _grid(params, answers, chosen, ranges, band_months)
    drawn = draw(ranges, seed=seed, draws=draws)
    scale, weights = _multipliers(drawn), _weights(grid, drawn)
    present = {option: _read(grid.present[option], weights, scale) for option in COST_OPTIONS}
    probability = cheapest_odds(present, chosen.compared, chosen.reduces_to)
    rate = chosen.rate

    def money(values: np.ndarray) -> list[float]:
        return [round(float(v) * rate, 2) for v in values]

    bands = {"months": [int(m) for m in band_months]}
    for option in COST_OPTIONS:
        cumulative = _read(grid.cumulative[option], weights, scale)
        low, mid, high = np.percentile(cumulative, PERCENTILES, axis=0)
        bands[option] = {"p10": money(low), "p50": money(mid), "p90": money(high)}
    outcomes = outcome_amounts(present, chosen.reduces_to)
    return {
        "draws": draws,
        "seed": seed,
        "currency": currency,
        "cheapest_probability": probability,
        "drivers": _drivers(drawn, outcomes, probability, ranges),
        "present_value": {
            outcome: dict(
                zip(
                    ("p10", "p50", "p90"),
                    money(np.percentile(outcomes[outcome], PERCENTILES)),
                    strict=True,
                )
            )
            for outcome in chosen.compared
        },
        "bands": bands,
        "ranges": {
            name: {
                "low": ranges[name][0],
                "high": ranges[name][1],
                "distribution": "triangular, mode 1",
                "source": SPREADS[name].source,
                "as_of": SPREADS[name].as_of,
            }
            for name in SPREADS
        },
    }


def _drivers(
    drawn: Mapping[str, np.ndarray],
    outcomes: Mapping[str, np.ndarray],
    probability: Mapping[str, float],
    ranges: Mapping[str, tuple[float, float]],
) -> list[dict[str, Any]]:
    """The inputs by how much they move the lead of the likeliest cheapest outcome over the
    best of the others (|rank correlation|, largest first); inputs held fixed are left out."""
    if len(probability) < 2:
        return []
    leader = max(probability, key=lambda outcome: (probability[outcome], outcome))
    others = [outcomes[outcome] for outcome in probability if outcome != leader]
    lead = np.minimum.reduce(others) - outcomes[leader]
    found = [
        {"name": name, "rank_correlation": round(rank_correlation(drawn[name], lead), 3)}
        for name in SPREADS
        if ranges[name][0] < ranges[name][1]
    ]
    return sorted(found, key=lambda row: -abs(row["rank_correlation"]))
