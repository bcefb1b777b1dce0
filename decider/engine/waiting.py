"""Buy now or wait: the first stage's GPUs owned now, or ordered later.

Owned from the first month they can run, against ordered 3 to 24 months later, over the
plan's future (the answers' falls of cloud and server prices; none given, today's hold),
and the share of the odds' draws in which each wait costs less. Each wait is a path the
search weighed, so none costs less than its plan. The GPU model's published path
(`engine/gpus.py`) is shown as what the answers may give.

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from decider.engine.costs import CostAnswers
from decider.engine.future import Future
from decider.engine.gpus import PricePath
from decider.engine.months import World, paths_cost_linear, world_of
from decider.engine.plan_odds import priced_at_draws
from decider.engine.search import decision_months

WAITS = (0, 3, 6, 9, 12, 18, 24)  # months an order may wait


def wait(
    params: Mapping[str, float],
    answers: CostAnswers,
    future: Future,
    path: PricePath,
    *,
    level: int,
    drawn: Mapping[str, np.ndarray],
    rate: float,
) -> dict[str, Any]:
    """Buy now or wait: own `level` GPUs from the first month they can run, or order them
    N months later and rent everything meanwhile, over the plan's own future (its demand and
    price path: each wait is a path the search weighed, so none costs less than its plan).
    Each plan's present value is linear in the two price levels (months.paths_cost_linear),
    so one reckoning gives it at every draw of them (the odds' ranges): the share of draws in which waiting N months
    costs less than buying now. `path`: the GPU model's published price path, shown as what
    the answers may give when they give no fall of their own."""
    shown = _wait_shown(future, path, level)
    if answers.cloud_share < 1:  # waiting would leave the work that may not leave waiting
        return shown
    at = _waits_priced(params, answers, future, level=level, drawn=drawn)
    if 0 not in at:
        return shown
    now = at[0][1]
    shown["options"] = [
        {
            "wait_months": wait,
            "present_value": round(middle * rate, 2),
            "cheaper_than_now_pct": None
            if wait == 0
            else round(float((draws < now).mean()) * 100, 1),
        }
        for wait, (middle, draws) in at.items()
    ]
    shown["best_wait_months"] = min(at, key=lambda wait: (at[wait][0], wait))
    return shown


def _wait_shown(future: Future, path: PricePath, level: int) -> dict[str, Any]:
    """What buy now or wait weighs, before its options: the GPUs, the falls of prices the
    plan's future gives, and the GPU model's published path."""
    return {
        "owned_gpus": level,
        "cloud_fall_pct_per_year": future.cloud_fall_pct,
        "hardware_fall_pct_per_year": future.hardware_fall_pct,
        # Where the falls come from: the answers, or none given (today's prices hold).
        "prices_from": "answers" if future.prices_move else "held",
        # The GPU model's published path: what the answers may give (source, as_of).
        "suggested": {
            "cloud_fall_pct_per_year": path.cloud_fall_pct,
            "hardware_fall_pct_per_year": path.hardware_fall_pct,
        },
        "source": path.source,
        "source_zh": path.source_zh,
        "as_of": path.as_of,
        "options": [],
        "best_wait_months": None,
    }


def _waits_priced(
    params: Mapping[str, float],
    answers: CostAnswers,
    future: Future,
    *,
    level: int,
    drawn: Mapping[str, np.ndarray],
) -> dict[int, tuple[float, np.ndarray]]:
    """Each wait that fits the horizon (WAITS): the present value of owning `level` GPUs
    from that many months after the first month they can run, on today's prices and at
    each of the odds' draws."""

    @functools.cache  # three price levels, each asked for by every wait
    def world_at(cloud: float, hardware: float) -> World:
        return world_of(params, answers, future, cloud=cloud, hardware=hardware)

    world = world_at(1.0, 1.0)
    decisions = decision_months(world)
    # The waits that fit the horizon, each a path owning `level` from its month on; their
    # running costs reckoned at once.
    fitting = [w for w in WAITS if decisions and decisions[0] + w < world.months]
    paths = [
        tuple(level if month >= decisions[0] + wait else 0 for month in decisions)
        for wait in fitting
    ]
    linear = paths_cost_linear(world_at, decisions, paths) if paths else []
    at: dict[int, tuple[float, np.ndarray]] = {}
    for wait, pieces in zip(fitting, linear, strict=True):
        if (priced := priced_at_draws(pieces, drawn)) is not None:
            at[wait] = priced
    return at
