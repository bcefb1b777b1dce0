"""How sure the plan is: each plan's present value at each of the odds' draws.

The plans are held as they were chosen (the stages are decided now, the world is drawn
afterwards) and priced over the draws of demand growth and of the cloud and hardware price
levels (engine/odds.py). A plan's present value is linear in the two price levels, so
one reckoning of its running costs and two of its purchases give it at every draw
(months.paths_cost_linear, `priced_at_draws`, which buy now or wait and the next
generation use too); not in growth: each plan is priced at GROWTH_POINTS growth
levels, and each draw is read between its two neighbours.

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from decider.engine import odds
from decider.engine.costs import TIE_ORDER, CostAnswers
from decider.engine.future import Future
from decider.engine.months import World, paths_cost_linear, world_of

GROWTH_POINTS = 5  # demand growth levels the plans are priced at; draws between them


def priced_at_draws(
    linear: tuple[float, float, float] | None, drawn: Mapping[str, np.ndarray]
) -> tuple[float, np.ndarray] | None:
    """A plan's present value on today's prices and at each of the odds' draws of the cloud
    and hardware price levels, from its `linear` pieces (fixed, by_cloud, by_hardware: it
    is linear in both levels, months.linear_levels). None: the plan does not fit the
    horizon."""
    if linear is None:
        return None
    fixed, by_cloud, by_hardware = linear
    middle = fixed + by_cloud + by_hardware
    return middle, fixed + by_cloud * drawn["cloud_price"] + by_hardware * drawn["hardware_price"]


def plan_odds(
    params: Mapping[str, float],
    answers: CostAnswers,
    future: Future,
    decisions: list[int],
    paths: Mapping[str, tuple[int, ...]],
    *,
    ranges: Mapping[str, tuple[float, float]],
    drawn: Mapping[str, np.ndarray],
    rate: float,
    outcomes: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """How sure the plan is: its present value and those of the plans beside it at each of
    the odds' draws of demand growth and cloud and hardware prices, each plan held as it
    was chosen (the stages are decided now, the world is drawn afterwards).

    Linear in the two price levels (months.linear_levels), not in growth: every plan is priced
    at GROWTH_POINTS growth levels across the range, and each draw is read between its two
    neighbours. With the growth range at 1, the draws are exact."""
    low, high = ranges["growth"]
    scales = np.linspace(low, high, GROWTH_POINTS) if low < high else np.array([1.0])
    amounts = _drawn_amounts(params, answers, future, decisions, paths, scales, drawn)
    staged = amounts["staged"]
    return {
        "draws": len(staged),
        "outcome_cheapest_probability": _outcome_shares(amounts, outcomes),
        "growth": {"low": low, "high": high},
        "present_value": {
            name: dict(
                zip(
                    ("p10", "p50", "p90"),
                    (round(float(v) * rate, 2) for v in np.percentile(values, odds.PERCENTILES)),
                    strict=True,
                )
            )
            for name, values in amounts.items()
        },
        "beats": _beats(amounts),
        # The share of draws in which the plan costs less than each plan beside it (None:
        # the same plan).
        "staged_cheaper_pct": {
            name: None
            if paths[name] == paths["staged"]
            else round(float((staged < values).mean()) * 100, 1)
            for name, values in amounts.items()
            if name != "staged"
        },
    }


def _drawn_amounts(
    params: Mapping[str, float],
    answers: CostAnswers,
    future: Future,
    decisions: list[int],
    paths: Mapping[str, tuple[int, ...]],
    scales: np.ndarray,
    drawn: Mapping[str, np.ndarray],
) -> dict[str, np.ndarray]:
    """Each plan's present value at each of the odds' draws: priced at every growth level of
    `scales` (months.paths_cost_linear), each draw read between its two neighbours."""

    @functools.cache  # each (growth, price levels) world serves every plan
    def world_at(scale: float, cloud: float, hardware: float) -> World:
        grown = replace(future, growth_scale=scale)
        return world_of(params, answers, grown, cloud=cloud, hardware=hardware)

    # Plans that hold the same levels (the staged plan is often the one that commits now)
    # are priced once; all of them at once at each growth level.
    distinct = list(dict.fromkeys(paths.values()))
    coefficients = np.array(  # (growth levels, plans, 3)
        [
            paths_cost_linear(functools.partial(world_at, float(scale)), decisions, distinct)
            for scale in scales
        ]
    )
    by_levels: dict[tuple[int, ...], np.ndarray] = {}
    for i, levels in enumerate(distinct):
        fixed, by_cloud, by_hardware = (
            np.interp(drawn["growth"], scales, coefficients[:, i, k]) for k in range(3)
        )
        by_levels[levels] = (
            fixed + by_cloud * drawn["cloud_price"] + by_hardware * drawn["hardware_price"]
        )
    return {name: by_levels[levels] for name, levels in paths.items()}


def _outcome_shares(
    amounts: Mapping[str, np.ndarray], outcomes: Mapping[str, str] | None
) -> dict[str, float]:
    """The share of draws in which each outcome's plan costs least (ties: the smaller
    commitment first, as the cost model breaks them)."""
    ordered = [key for key in TIE_ORDER if key in (outcomes or {})]
    shares: dict[str, float] = {}
    if outcomes and ordered:
        least = np.argmin(np.vstack([amounts[outcomes[key]] for key in ordered]), axis=0)
        shares = {key: round(float((least == i).mean()), 4) for i, key in enumerate(ordered)}
    return shares


def _beats(amounts: Mapping[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """beats[a][b]: the share of draws (%) in which plan b costs less than plan a."""
    return {
        name: {
            other: round(float((values < amounts[name]).mean()) * 100, 1)
            for other, values in amounts.items()
            if other != name
        }
        for name in amounts
    }
