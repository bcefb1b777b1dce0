"""How sure the plan is: each plan's present value at each of the odds' draws.

The plans are held as they were chosen (the stages are decided now, the world is drawn
afterwards) and priced over the draws of demand growth and of the cloud and hardware price
levels (engine/odds.py). A plan's present value is linear in the two price levels, so
three reckonings give it at every draw (`priced_at_draws`, which buy now or wait and the
next generation use too); not in growth: each plan is priced at GROWTH_POINTS growth
levels, and each draw is read between its two neighbours.

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from decider.engine import odds
from decider.engine.costs import TIE_ORDER, CostAnswers
from decider.engine.future import Future
from decider.engine.months import World, path_cost, world_of

GROWTH_POINTS = 5  # demand growth levels the plans are priced at; draws between them


def priced_at_draws(
    pv: Callable[[float, float], float | None], drawn: Mapping[str, np.ndarray]
) -> tuple[float, np.ndarray] | None:
    """A plan's present value on today's prices and at each of the odds' draws of the cloud
    and hardware price levels. It is linear in both levels (every line is cloud-priced,
    hardware-priced or neither), so three reckonings give it at every draw. None: the plan
    does not fit the horizon."""
    if (linear := _linear(pv)) is None:
        return None
    fixed, by_cloud, by_hardware = linear
    middle = fixed + by_cloud + by_hardware
    return middle, fixed + by_cloud * drawn["cloud_price"] + by_hardware * drawn["hardware_price"]


def _linear(pv: Callable[[float, float], float | None]) -> tuple[float, float, float] | None:
    """(fixed, per unit of cloud price level, per unit of hardware price level) of `pv`."""
    middle, dearer_cloud, dearer_hardware = pv(1.0, 1.0), pv(2.0, 1.0), pv(1.0, 2.0)
    if middle is None or dearer_cloud is None or dearer_hardware is None:
        return None
    by_cloud, by_hardware = dearer_cloud - middle, dearer_hardware - middle
    return middle - by_cloud - by_hardware, by_cloud, by_hardware


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

    Linear in the two price levels (three reckonings), not in growth: every plan is priced
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
    `scales` (three reckonings each), each draw read between its two neighbours."""

    @functools.cache  # each (growth, price levels) world serves every plan
    def world_at(scale: float, cloud: float, hardware: float) -> World:
        grown = replace(future, growth_scale=scale)
        return world_of(params, answers, grown, cloud=cloud, hardware=hardware)

    def priced(scale: float, levels: tuple[int, ...]) -> Callable[[float, float], float]:
        def pv(cloud: float, hardware: float) -> float:
            return path_cost(world_at(scale, cloud, hardware), decisions, levels)

        return pv

    # Plans that hold the same levels (the staged plan is often the one that commits now)
    # are priced once.
    by_levels: dict[tuple[int, ...], np.ndarray] = {}
    for levels in paths.values():
        if levels in by_levels:
            continue
        coefficients = np.array([_linear(priced(float(scale), levels)) for scale in scales])
        growth = drawn["growth"]
        fixed, by_cloud, by_hardware = (
            np.interp(growth, scales, coefficients[:, k]) for k in range(3)
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
