"""How sure the plan is: each plan's present value at each of the odds' draws.

The plans are held as they were chosen (the stages are decided now, the world is drawn
afterwards) and priced in the odds' drawn worlds as the cost section's options are
(engine/drawn.py): one set of worlds, one reckoning, so the plan's odds and the cost
section's name one favourite. Buy now or wait and the next generation price their own
plans at the draws of the cloud and hardware price levels from linear pieces
(`priced_at_draws`, months.paths_cost_linear).

Plain Python and numpy: no Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from decider.engine import drawn as drawn_plans
from decider.engine import odds
from decider.engine.costs import TIE_ORDER, CostAnswers
from decider.engine.drawn import PlanSet, Spec
from decider.engine.future import Future


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
    fixed: Mapping[str, tuple[float, float]] | None = None,
) -> dict[str, Any] | None:
    """How sure the plan is: its present value and those of the plans beside it in each of
    the odds' drawn worlds, each plan held as it was chosen (the stages are decided now, the
    world is drawn afterwards): the same worlds, priced the same way, as the cost section's
    odds (engine/drawn.py), so that both name one favourite. None without decision months
    (nothing owned arrives within the horizon)."""
    if not decisions:
        return None
    low, high = ranges["growth"]
    plans = PlanSet(tuple(decisions), {name: Spec(levels) for name, levels in paths.items()})
    amounts = drawn_plans.priced(
        params,
        answers,
        future,
        plans,
        ranges=ranges,
        drawn=drawn,
        band_months=np.array([answers.horizon_months]),
    ).present
    staged = amounts["staged"]
    return {
        "draws": len(staged),
        "outcome_cheapest_probability": _outcome_shares(
            amounts, outcomes, odds.per_token_draws(fixed or {}, drawn, rate)
        ),
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


def _outcome_shares(
    amounts: Mapping[str, np.ndarray],
    outcomes: Mapping[str, str] | None,
    held: Mapping[str, np.ndarray],
) -> dict[str, float]:
    """The share of draws in which each outcome's plan costs least (ties: the smaller
    commitment first, as the cost model breaks them), the per-token outcomes (`held`, at
    each draw: odds.per_token_draws) after them, the per-token hybrid in the plan's place
    when it is the hybrid weighed."""
    candidates = {key: amounts[name] for key, name in (outcomes or {}).items()} | dict(held)
    ordered = [key for key in TIE_ORDER if key in (outcomes or {})]
    if not ordered:
        return {}
    ordered = list(dict.fromkeys([*ordered, *held]))
    least = np.argmin(np.vstack([candidates[key] for key in ordered]), axis=0)
    return {key: round(float((least == i).mean()), 4) for i, key in enumerate(ordered)}


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
