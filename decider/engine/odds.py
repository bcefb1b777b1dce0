"""The odds: how sure the cheapest option is, when what is uncertain is drawn many times.

The cost model gives one total per option for one set of figures. Here the figures a CTO
cannot know for sure are drawn 10,000 times over, each as a multiplier of today's figure
between a low and a high one, from a split triangle: half the draws fall below today's
figure and half above it, each half triangular with its peak at the figure itself. The
figure is both the likeliest value and the median, so the odds are centred on the cost
model's figures: at an exact break-even each side wins about half the draws, however
lopsided the range (a plain triangle from 0.6 to 1.1 would put the median at 0.92).

- utilization: the average demand (base and bursts scale together);
- cloud_price: every cloud GPU-hour price over the horizon (on demand, spot, reserved,
  committed move together, as a price level);
- hardware_price: servers, network and storage bought, with their spares, maintenance and
  resale (a share of the price);
- lead_time: the months until owned hardware runs work, rented meanwhile;
- resale: what the hardware fetches at the end;
- growth: the demand's growth over the horizon, which only the plan in stages reads
  (engine/plan_odds.py: how sure the plan is).

Each option keeps the plan the cost model chose for it (the hybrid's owned base, the
committed block): the plan is decided now, the world is drawn afterwards.

How it stays fast: cost lines are linear in the three prices, so each line group is scaled
by its price multipliers. Utilization and lead time are not linear (a burst above the base,
a bridge until the hardware arrives), so the exact cost model is run on a grid of both
(7 × 4 points) and each draw is interpolated between its four neighbours. With every range
at 1 the draws are exactly the cost model's totals.

Plain Python and numpy: no Django. A seed makes the draws repeatable; a saved result keeps
its seed, so a shared link shows everyone the same odds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from decider.engine import drawn as drawn_plans
from decider.engine.cashflow import Line, lines_monthly
from decider.engine.costs import (
    CLOUD_OPTIONS,
    TIE_ORDER,
    Chosen,
    CostAnswers,
    costs_chosen,
    outcome_amounts,
    price_path,
)
from decider.engine.costs import CLOUD_PRICED as COST_CLOUD_PRICED
from decider.engine.figures import Figure, figures_values
from decider.engine.future import Future
from decider.engine.i18n import gettext
from decider.engine.markets import currency_rate
from decider.engine.outcomes import COST_OPTIONS, ODDS_LIKELY, ODDS_SURE
from decider.engine.ranges import SPREADS
from decider.engine.reality import drawn_low

DRAWS = 10_000
RANGE_LIMITS = (0.1, 5.0)  # the multipliers a range may use
UTILIZATION_POINTS, LEAD_TIME_POINTS = 7, 4  # the grid the exact cost model is run on
BAND_POINTS = 25  # months at which the cumulative bands are read
PERCENTILES = (10, 50, 90)


PLAN_ONLY = frozenset({"growth"})  # moves nothing while the demand holds
PER_TOKEN = frozenset({"token_price"})  # moves nothing unless an outcome is per token

# Which cost lines each price multiplier scales (engine/costs.py names the lines).
CLOUD_PRICED = frozenset(COST_CLOUD_PRICED)
HARDWARE_PRICED = frozenset(
    {"servers", "network", "storage", "spares", "maintenance", "financing", "refresh"}
)
RESOLD = frozenset({"residual", "fleet_sale"})
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


def ranges_of(
    given: Mapping[str, Mapping[str, float]] | None, *, utilization: float | None = None
) -> dict[str, tuple[float, float]]:
    """The ranges to draw from: the defaults, with those the answers give (checked by
    ranges_given) in their place. `utilization`: the answers' expected average; above what
    fleets reach, its range reaches down to the busiest published trace (engine/reality.py)
    unless the answers give its low end."""
    given = given or {}
    found = {
        name: (
            float(given.get(name, {}).get("low", spread.low)),
            float(given.get(name, {}).get("high", spread.high)),
        )
        for name, spread in SPREADS.items()
    }
    if utilization is not None and "low" not in given.get("utilization", {}):
        low, high = found["utilization"]
        found["utilization"] = (drawn_low(utilization, low), high)
    return found


DISTRIBUTION = "split triangular: median and mode 1"


def split_triangular(uniform: np.ndarray, low: float, high: float) -> np.ndarray:
    """Multipliers from `uniform` draws in [0, 1): below 0.5 the lower half, triangular from
    `low` up to 1, from 0.5 the upper half, triangular from 1 down to `high` (the inverse of
    each half's distribution function), so that 1 is the median and the mode."""
    lower = 2 * uniform < 1
    below = low + (1 - low) * np.sqrt(np.where(lower, 2 * uniform, 0.0))
    above = high - (high - 1) * np.sqrt(np.where(lower, 1.0, 2 - 2 * uniform))
    return np.where(lower, below, above)


def draw(
    ranges: Mapping[str, tuple[float, float]], *, seed: int, draws: int = DRAWS
) -> dict[str, np.ndarray]:
    """`draws` multipliers per input, from low to high with 1 the median (split_triangular)."""
    rng = np.random.default_rng(seed)
    drawn = {}
    for name in SPREADS:  # a fixed order: the same seed gives the same draws
        low, high = ranges[name]
        uniform = rng.random(draws)  # drawn even for a fixed range: the others' stay put
        drawn[name] = split_triangular(uniform, low, high) if low < high else np.ones(draws)
    return drawn


def per_token_draws(
    parts: Mapping[str, tuple[float, float]], drawn: Mapping[str, np.ndarray], rate: float
) -> dict[str, np.ndarray]:
    """Each per-token outcome's present value at every draw, in the price set's currency:
    its per-token part times the drawn per-token price level, the rest held."""
    level = drawn["token_price"]
    return {key: (held + sent * level) / rate for key, (held, sent) in parts.items()}


def cheapest_odds(
    amounts: Mapping[str, np.ndarray],
    compared: list[str],
    reduces_to: str | None,
    held: Mapping[str, np.ndarray] | None = None,
) -> dict[str, float]:
    """The share of draws in which each compared outcome costs least (ties as the cost
    model breaks them: cloud, then hybrid, then on-premises; `held` outcomes after them)."""
    if not compared:
        return {}
    candidates = outcome_amounts(amounts, reduces_to) | dict(held or {})
    order = list(dict.fromkeys([*sorted(compared, key=TIE_ORDER.index), *(held or {})]))
    stacked = np.vstack([candidates[outcome] for outcome in order])
    wins = np.bincount(np.argmin(stacked, axis=0), minlength=len(order))
    return {outcome: float(wins[i] / stacked.shape[1]) for i, outcome in enumerate(order)}


def odds_verdict(probability: Mapping[str, float]) -> str | None:
    """ "<outcome>_sure|likely|lean" for the outcome cheapest in the most draws (the cost
    model's tie order between equals); None with fewer than two outcomes compared."""
    if len(probability) < 2:
        return None
    ties = sorted(
        probability, key=lambda o: TIE_ORDER.index(o) if o in TIE_ORDER else len(TIE_ORDER)
    )
    leader = max(ties, key=lambda outcome: probability[outcome])
    share = probability[leader]
    strength = "sure" if share >= ODDS_SURE else "likely" if share >= ODDS_LIKELY else "lean"
    return f"{leader}_{strength}"


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's correlation (of ranks: Spearman's); 0 when either does not vary."""
    sx, sy = x.std(), y.std()
    if sx == 0 or sy == 0:
        return 0.0
    return float(((x - x.mean()) * (y - y.mean())).mean() / (sx * sy))


def _ranks(values: np.ndarray, *, ties: bool = True) -> np.ndarray:
    """Each value's rank; `ties=False` for values drawn from a continuous distribution,
    which the faster unstable sort ranks alike."""
    ranks = np.empty(len(values))
    ranks[np.argsort(values, kind="stable" if ties else "quicksort")] = np.arange(len(values))
    return ranks


@dataclass(frozen=True)
class _Grid:
    """Per option: cost per line group at each (utilization, lead time) grid point, as a
    present value and cumulative at the band months, in one table read at once."""

    utilization: np.ndarray  # multipliers
    lead_time: np.ndarray
    table: np.ndarray  # (nu, nt, groups, options, 1 + band months): present, cumulative


def _points(low: float, high: float, count: int) -> np.ndarray:
    # Two points at least, so that every draw lies in a cell; a range held fixed gives the
    # same point twice.
    return np.linspace(low, high, count) if low < high else np.array([1.0, 1.0])


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
    table = np.zeros((len(us), len(ts), len(_GROUPS), len(COST_OPTIONS), 1 + len(band_months)))
    # Lines that do not change with the lead time (the cloud's) are spread over the months once.
    spread: dict[tuple[Line, ...], np.ndarray] = {}
    for i, u in enumerate(us):
        busy = _scaled(answers, u)
        for j, t in enumerate(ts):
            varied = {**params, "lead_time_months": params["lead_time_months"] * t}
            for k, option in enumerate(COST_OPTIONS):
                lines = tuple(chosen.lines(varied, busy, option))
                if lines not in spread:
                    spread[lines] = _by_group(lines, months, price_path(answers))
                by_group = spread[lines]
                table[i, j, :, k, 0] = by_group @ discount
                table[i, j, :, k, 1:] = np.cumsum(by_group, axis=1)[:, band_months]
    return _Grid(us, ts, table)


def _by_group(
    lines: tuple[Line, ...], months: int, path: Mapping[str, np.ndarray] | None
) -> np.ndarray:
    """(groups, months + 1): each line group's cost per month."""
    member = np.zeros((len(_GROUPS), len(lines)))
    member[[_group(line.name) for line in lines], np.arange(len(lines))] = 1.0
    by_group: np.ndarray = member @ lines_monthly(list(lines), months, path=path)
    return by_group


def _corners(points: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each value: the grid index below it and how far it lies towards the next."""
    step = points[1] - points[0]
    if step == 0:
        return np.zeros(len(values), dtype=int), np.zeros(len(values))
    position = np.clip((values - points[0]) / step, 0, len(points) - 1)
    below = np.minimum(position.astype(int), len(points) - 2)
    return below, position - below


@dataclass(frozen=True)
class _Reader:
    """Where the draws lie on the grid, to read a table over it at every draw at once.

    Within a grid cell bilinear interpolation is c00 + (c10 − c00)·fi + (c01 − c00)·fj +
    (c11 − c10 − c01 + c00)·fi·fj: linear in four features per line group (times the group's
    price multiplier), so each cell's draws are read by one matrix product.
    """

    order: np.ndarray  # the draws, sorted by cell
    cells: list[tuple[int, int, int, int]]  # (i, j, first, last + 1) in `order`
    features: np.ndarray  # (draws in `order`, 4 × groups)


def _reader(grid: _Grid, drawn: Mapping[str, np.ndarray], scale: np.ndarray) -> _Reader:
    i, fi = _corners(grid.utilization, drawn["utilization"])
    j, fj = _corners(grid.lead_time, drawn["lead_time"])
    across = len(grid.lead_time) - 1
    cell = i * across + j
    order = np.argsort(cell, kind="stable")
    basis = np.stack([np.ones_like(fi), fi, fj, fi * fj], axis=1)  # (draws, 4)
    features = (basis[:, :, None] * scale[:, None, :]).reshape(len(fi), -1)[order]
    counts = np.bincount(cell, minlength=(len(grid.utilization) - 1) * across)
    ends = np.cumsum(counts)
    cells = [
        (c // across, c % across, int(end - count), int(end))
        for c, (count, end) in enumerate(zip(counts, ends, strict=True))
        if count
    ]
    return _Reader(order, cells, features)


def _read(table: np.ndarray, reader: _Reader) -> np.ndarray:
    """Σ over line groups of `table` (nu, nt, groups, ...) at each draw's grid point, times
    the draw's multiplier of the group: (..., draws), the draws in the reader's order
    (`_in_drawn_order` puts them back; percentiles need no order)."""
    flat = table.reshape((*table.shape[:3], -1))  # (nu, nt, groups, rest)
    read = np.empty((flat.shape[3], len(reader.order)))
    for i, j, first, last in reader.cells:
        c00, c10, c01, c11 = flat[i, j], flat[i + 1, j], flat[i, j + 1], flat[i + 1, j + 1]
        weights = np.concatenate([c00, c10 - c00, c01 - c00, c11 - c10 - c01 + c00])
        # Each month's draws side by side in memory: the percentiles' partition is 5× faster.
        read[:, first:last] = weights.T @ reader.features[first:last].T
    return read.reshape((*table.shape[3:], len(reader.order)))


def _in_drawn_order(values: np.ndarray, reader: _Reader) -> np.ndarray:
    drawn_order = np.empty_like(values)
    drawn_order[..., reader.order] = values
    return drawn_order


def _multipliers(drawn: Mapping[str, np.ndarray]) -> np.ndarray:
    """(draws, groups): what each line group is multiplied by in each draw."""
    hardware = drawn["hardware_price"]
    return np.stack(
        [np.ones_like(hardware), drawn["cloud_price"], hardware, hardware * drawn["resale"]],
        axis=1,
    )


def _today(grid: _Grid) -> _Reader:
    """A reader of the grid at today's figures: one draw of every multiplier at 1."""
    ones = {"utilization": np.ones(1), "lead_time": np.ones(1)}
    return _reader(grid, ones, np.ones((1, len(_GROUPS))))


def _chosen_cloud_mode(
    present: dict[str, np.ndarray], today: Mapping[str, float]
) -> dict[str, np.ndarray]:
    """Every cloud pricing mode's draws replaced by those of the mode cheapest at today's
    figures: the mode is chosen now, like the owned base, and kept whatever is drawn (the
    cheapest mode per draw would choose with hindsight, and flatter the cloud)."""
    mode = min(CLOUD_OPTIONS, key=lambda option: (today[option], CLOUD_OPTIONS.index(option)))
    return {**present, **{option: present[mode] for option in CLOUD_OPTIONS}}


def odds_compute(
    *,
    answers: CostAnswers,
    figures: Mapping[str, Figure],
    currency: str = "USD",
    ranges: Mapping[str, tuple[float, float]] | None = None,
    seed: int,
    draws: int = DRAWS,
    fixed: Mapping[str, tuple[float, float]] | None = None,
    plans: Plans | None = None,
) -> dict[str, Any]:
    """The odds of the cost model's options: who is cheapest how often, what drives it, and
    the P10–P90 band of each option's cumulative cost. `fixed`: outcomes priced per token,
    each as (what is not sent per token, what is) in present value in `currency`: the
    second part drawn with the per-token price level (`token_price`), the first held (the
    hybrid's owned base). `plans`: the options as the cost
    section priced them (its plans over the answers' future), priced in the drawn worlds
    (engine/drawn.py); without them (nothing owned arrives within the horizon), today's
    closed forms on a grid."""
    ranges = ranges_of(None) if ranges is None else dict(ranges)
    params = figures_values(figures)
    if plans is not None:
        return _odds_of_plans(
            params,
            answers,
            plans,
            currency=currency,
            ranges=ranges,
            seed=seed,
            draws=draws,
            fixed=fixed,
        )
    chosen = costs_chosen(answers=answers, figures=figures, currency=currency)
    band_months = _band_months(answers.horizon_months)
    grid = _grid(params, answers, chosen, ranges, band_months)
    drawn = draw(ranges, seed=seed, draws=draws)
    reader = _reader(grid, drawn, _multipliers(drawn))
    values = _read(grid.table, reader)  # (options, 1 + band months, draws)
    drawn_present = _in_drawn_order(values[:, 0], reader)
    today = _read(grid.table[..., 0], _today(grid))[:, 0]
    present = _chosen_cloud_mode(
        {option: drawn_present[k] for k, option in enumerate(COST_OPTIONS)},
        {option: float(today[k]) for k, option in enumerate(COST_OPTIONS)},
    )
    return _shown(
        drawn,
        present,
        Plans(Future(), drawn_plans.PlanSet((), {}), chosen.compared, chosen.reduces_to),
        cumulative=values[:, 1:],
        band_months=band_months,
        rate=chosen.rate,
        fixed=fixed,
        ranges=ranges,
        given={"seed": seed, "currency": currency},
    )


@dataclass(frozen=True)
class Plans:
    """The cost section's options as plans (engine/drawn.py), over the answers' future,
    with what the section compares and what its hybrid reduces to."""

    future: Future
    plans: drawn_plans.PlanSet
    compared: list[str]
    reduces_to: str | None


def _odds_of_plans(
    params: Mapping[str, float],
    answers: CostAnswers,
    plans: Plans,
    *,
    currency: str,
    ranges: Mapping[str, tuple[float, float]],
    seed: int,
    draws: int,
    fixed: Mapping[str, tuple[float, float]] | None,
) -> dict[str, Any]:
    """odds_compute for the cost section's plans, priced in the drawn worlds."""
    rate = currency_rate(params, prices_in=answers.prices_in, shown_in=currency)
    drawn = draw(ranges, seed=seed, draws=draws)
    band_months = _band_months(answers.horizon_months)
    found = drawn_plans.priced(
        params,
        answers,
        plans.future,
        plans.plans,
        ranges=ranges,
        drawn=drawn,
        band_months=band_months,
    )
    return _shown(
        drawn,
        _chosen_cloud_mode(found.present, found.today),
        plans,
        cumulative=np.array([found.cumulative[option] for option in COST_OPTIONS]),
        band_months=band_months,
        rate=rate,
        fixed=fixed,
        ranges=ranges,
        given={"seed": seed, "currency": currency},
    )


def _shown(
    drawn: Mapping[str, np.ndarray],
    present: Mapping[str, np.ndarray],
    plans: Plans,
    *,
    cumulative: np.ndarray,
    band_months: np.ndarray,
    rate: float,
    fixed: Mapping[str, tuple[float, float]] | None,
    ranges: Mapping[str, tuple[float, float]],
    given: Mapping[str, Any],
) -> dict[str, Any]:
    """The odds as the result states them: who is cheapest how often (the `fixed` outcomes
    held at their present value beside the draws), what drives it, each outcome's P10, P50
    and P90, and each option's cumulative bands (`cumulative`: options, months, draws)."""
    held = per_token_draws(fixed or {}, drawn, rate)
    probability = cheapest_odds(present, plans.compared, plans.reduces_to, held)
    outcomes = outcome_amounts(present, plans.reduces_to) | held
    return {
        "draws": len(drawn["utilization"]),
        **given,
        "cheapest_probability": probability,
        "drivers": _drivers(
            drawn,
            outcomes,
            probability,
            ranges,
            left_out=(PLAN_ONLY if not plans.future.grows else frozenset())
            | (PER_TOKEN if not held else frozenset()),
        ),
        "present_value": {
            outcome: dict(
                zip(
                    ("p10", "p50", "p90"),
                    _money(np.percentile(outcomes[outcome], PERCENTILES), rate),
                    strict=True,
                )
            )
            for outcome in dict.fromkeys([*plans.compared, *held])
        },
        "bands": _bands(cumulative, band_months, rate),
        "ranges": _ranges_shown(ranges),
    }


def _money(values: np.ndarray, rate: float) -> list[float]:
    """Amounts in USD in the currency shown, to the cent."""
    return [round(float(v) * rate, 2) for v in values]


def _band_months(months: int) -> np.ndarray:
    """The months the cumulative bands are read at: BAND_POINTS across the horizon, and the
    last month as well as the one before (the resale credit drops in the last alone)."""
    spaced = np.linspace(0, months, min(BAND_POINTS, months + 1)).round()
    return np.unique(np.r_[spaced, max(months - 1, 0)]).astype(int)


def _bands(cumulative: np.ndarray, band_months: np.ndarray, rate: float) -> dict[str, Any]:
    """The P10, P50 and P90 of each option's cumulative cost (options, band months, draws)
    at each of `band_months`."""
    # The table is ours and read no more: partitioned where it lies, not copied first.
    low, mid, high = np.percentile(cumulative, PERCENTILES, axis=2, overwrite_input=True)
    bands: dict[str, Any] = {"months": [int(m) for m in band_months]}
    for k, option in enumerate(COST_OPTIONS):
        bands[option] = {
            "p10": _money(low[k], rate),
            "p50": _money(mid[k], rate),
            "p90": _money(high[k], rate),
        }
    return bands


def _ranges_shown(ranges: Mapping[str, tuple[float, float]]) -> dict[str, dict[str, Any]]:
    """Each input's range as drawn, its distribution and where the range comes from."""
    return {
        name: {
            "low": ranges[name][0],
            "high": ranges[name][1],
            "distribution": DISTRIBUTION,
            "source": SPREADS[name].source,
            "source_zh": SPREADS[name].source_zh,
            "as_of": SPREADS[name].as_of,
        }
        for name in SPREADS
    }


def _drivers(
    drawn: Mapping[str, np.ndarray],
    outcomes: Mapping[str, np.ndarray],
    probability: Mapping[str, float],
    ranges: Mapping[str, tuple[float, float]],
    *,
    left_out: frozenset[str] = PLAN_ONLY | PER_TOKEN,
) -> list[dict[str, Any]]:
    """The inputs by how much they move the lead of the likeliest cheapest outcome over the
    best of the others (|rank correlation|, largest first); inputs held fixed are left out,
    and those that move nothing here (`left_out`: the growth while demand holds, the
    per-token price level with nothing per token)."""
    if len(probability) < 2:
        return []
    leader = max(probability, key=lambda outcome: (probability[outcome], outcome))
    others = [outcomes[outcome] for outcome in probability if outcome != leader]
    lead = _ranks(np.minimum.reduce(others) - outcomes[leader])
    found = [
        {
            "name": name,
            "rank_correlation": round(_correlation(_ranks(drawn[name], ties=False), lead), 3),
        }
        for name in SPREADS
        if ranges[name][0] < ranges[name][1] and name not in left_out
    ]
    return sorted(found, key=lambda row: -abs(row["rank_correlation"]))
