"""This generation or the next: own the first stage's GPUs of this model now, or rent until
the next generation can run and own its speed-equivalent from then (or some months later).

The next generation's prices are the model's figures times its ratios (engine/gpus.py),
falling as the future's from the month it ships, and the demand is counted in its GPUs;
once it ships, both rent the cheaper generation per unit of work. With the odds of each
option against owning now, and what the GPUs owned now are worth year by year against
renting their work in the cloud.

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from decider.engine.costs import HOURS_PER_MONTH, CostAnswers, commit_rate, on_demand_rate
from decider.engine.future import Future
from decider.engine.gpus import Generation
from decider.engine.months import (
    World,
    buy,
    linear_levels,
    paths_cost_linear,
    running_cost,
    running_pv,
    world_of,
)
from decider.engine.plan_odds import priced_at_draws
from decider.engine.search import decision_months

SWITCH_WAITS = (0, 3, 6, 9, 12, 18, 24)  # months after the next generation can first run
_CLOUD_RATES = (
    "gpu_hour_on_demand",
    "gpu_hour_spot",
    "gpu_hour_reserved_1y",
    "gpu_hour_reserved_3y",
)


def _successor_world(
    world: World,
    generation: Generation,
    future: Future,
    *,
    speed: float,
    cloud: float,
    hardware: float,
) -> World:
    """The months as the next generation sees them: its prices (the model's figures times
    the generation's ratios, falling as the `future`'s from the month it ships, `cloud` and
    `hardware` scaling them as in `world_of`), and the demand counted in its GPUs."""
    p = world.params
    params = {
        **p,
        "server_price": p["server_price"] * generation.server_price,
        "network_per_node": p["network_per_node"] * generation.network_price,
        "node_kw": p["node_kw"] * generation.node_kw,
        **{name: p[name] * generation.cloud_price for name in _CLOUD_RATES},
    }
    t = np.arange(world.months + 1, dtype=float)
    since = np.maximum(t - generation.ships_month, 0) / 12
    falls = cloud * (1 - future.cloud_fall_pct / 100) ** since
    return replace(
        world,
        params=params,
        base=world.base / speed,
        peak=world.peak / speed,
        price=on_demand_rate(params) * falls,
        committed=min(commit_rate(params, world.answers), on_demand_rate(params)) * falls,
        hardware=hardware * (1 - future.hardware_fall_pct / 100) ** since,
        _hires={},
        _team={},
    )


def _renting_the_cheaper(
    world: World, successor: World, ships: int, speed: float
) -> tuple[World, World]:
    """Both worlds renting what they rent on the cheaper generation per unit of work, once
    the next one ships: which generation is owned then decides the comparison, not which
    one is rented above it."""
    months = np.arange(world.months + 1)
    newer = months > ships  # the months after it ships

    def cheaper(this: np.ndarray, next_one: np.ndarray) -> np.ndarray:
        return np.where(newer, np.minimum(this, next_one / speed), this)

    price = cheaper(world.price, successor.price)
    committed = cheaper(world.committed, successor.committed)
    return (
        replace(world, price=price, committed=committed),
        replace(successor, price=price * speed, committed=committed * speed),
    )


def _switch_cost(
    worlds: Callable[[float, float], tuple[World, World]], gpus: int, month: int
) -> tuple[float, float, float]:
    """The linear pieces (months.linear_levels) of the present value of renting everything
    on this generation until `month`, then owning `gpus` of the next one from it (ordered a
    lead time earlier, resold at the end)."""
    (world, successor), dearer = worlds(1.0, 1.0), worlds(1.0, 2.0)[1]
    before = np.arange(1, month + 1)
    after = np.arange(month + 1, world.months + 1)
    running = {
        name: float(amount)
        for name, amount in running_pv(world, np.zeros(len(before)), before).items()
    }
    for name, amount in running_pv(successor, np.full(len(after), float(gpus)), after).items():
        running[name] = running.get(name, 0.0) + float(amount)
    bought = float(buy(successor, np.array(gpus), np.array(True), month))
    bought_dearer = float(buy(dearer, np.array(gpus), np.array(True), month))
    return linear_levels(running, bought, bought_dearer)


def which_generation(
    params: Mapping[str, float],
    answers: CostAnswers,
    future: Future,
    generation: Generation,
    *,
    model: str,
    level: int,
    workload: str,
    drawn: Mapping[str, np.ndarray],
    rate: float,
) -> dict[str, Any]:
    """This generation or the next: own `level` GPUs of this model from the first month
    they can run, or rent until the next generation can run and own its speed-equivalent
    from then (or some months later), with the odds of each against owning now. And what
    the GPUs owned now are worth year by year: their running cost against renting the same
    work on the cheaper of the two generations in the cloud. Over the plan's own future:
    both generations' prices fall as the answers say (the next one's from when it ships)."""
    speed = generation.speed(workload)
    worlds = _generation_worlds(params, answers, future, generation, speed)
    world, successor = worlds(1.0, 1.0)
    decisions = decision_months(world)
    successor_gpus = max(successor.nodes(level / speed), 1) * successor.per_node
    lead = params["lead_time_months"]
    earliest = max(decisions[0], math.ceil(generation.ships_month + lead)) if decisions else None
    shown = _generation_shown(generation, model, speed, level, successor_gpus, earliest)
    if answers.cloud_share < 1 or earliest is None:  # renting meanwhile is no choice
        return shown
    # Owning `level` from the first decision, and renting throughout.
    owning, renting_throughout = paths_cost_linear(
        lambda cloud, hardware: worlds(cloud, hardware)[0],
        decisions,
        [tuple(level for _ in decisions), tuple(0 for _ in decisions)],
    )
    now = priced_at_draws(owning, drawn)
    assert now is not None  # decisions exist, so owning now fits the horizon
    options: list[dict[str, Any]] = [
        {"own": "current", "month": decisions[0], "gpus": level, "middle": now[0]},
        *_successor_options(worlds, now[1], world.months, successor_gpus, earliest, drawn),
    ]
    best = min(options, key=lambda o: (o["middle"], o["month"]))
    renting = priced_at_draws(renting_throughout, drawn)
    assert renting is not None
    shown["rent_only"] = {
        "present_value": round(renting[0] * rate, 2),
        "cheaper_than_current_pct": round(float((renting[1] < now[1]).mean()) * 100, 1),
    }
    shown["options"] = [
        {
            "own": o["own"],
            "month": o["month"],
            "gpus": o["gpus"],
            "present_value": round(o["middle"] * rate, 2),
            "cheaper_than_current_pct": o.get("cheaper_pct"),
        }
        for o in options
    ]
    shown["best"] = {"own": best["own"], "month": best["month"]}
    shown["worth"], shown["outlived_month"] = _worth(world, level, decisions[0], rate)
    return shown


def _generation_worlds(
    params: Mapping[str, float],
    answers: CostAnswers,
    future: Future,
    generation: Generation,
    speed: float,
) -> Callable[[float, float], tuple[World, World]]:
    """This generation's world and the next one's at each cloud and hardware price level,
    both renting the cheaper per unit of work once the next one ships; remembered (three
    price levels, each asked for by every option)."""

    @functools.cache
    def worlds(cloud: float, hardware: float) -> tuple[World, World]:
        world = world_of(params, answers, future, cloud=cloud, hardware=hardware)
        successor = _successor_world(
            world, generation, future, speed=speed, cloud=cloud, hardware=hardware
        )
        return _renting_the_cheaper(world, successor, generation.ships_month, speed)

    return worlds


def _generation_shown(
    generation: Generation,
    model: str,
    speed: float,
    level: int,
    successor_gpus: int,
    earliest: int | None,
) -> dict[str, Any]:
    """What this generation or the next weighs, before its options: the two generations,
    the GPUs of each and the first month the next one can run."""
    return {
        "model": model,
        "successor": generation.successor,
        "successor_name": generation.label.as_dict(),
        "ships_month": generation.ships_month,
        "speed": round(speed, 2),
        "owned_gpus": level,
        "successor_gpus": successor_gpus,
        "first_successor_month": earliest,
        "source": generation.source,
        "source_zh": generation.source_zh,
        "as_of": generation.as_of,
        "options": [],
        "best": None,
        "rent_only": None,  # renting throughout, on the cheaper generation per unit of work
        "worth": [],
        "outlived_month": None,
    }


def _successor_options(
    worlds: Callable[[float, float], tuple[World, World]],
    now: np.ndarray,
    months: int,
    successor_gpus: int,
    earliest: int,
    drawn: Mapping[str, np.ndarray],
) -> list[dict[str, Any]]:
    """Owning the next generation from each wait after it can first run (SWITCH_WAITS) that
    fits the horizon: its present value on today's prices, and the share of the draws in
    which it costs less than owning this generation now (`now`: that plan's at each)."""

    def switch(month: int) -> tuple[float, float, float] | None:
        return None if month >= months else _switch_cost(worlds, successor_gpus, month)

    options = []
    for wait in SWITCH_WAITS:
        if (priced := priced_at_draws(switch(earliest + wait), drawn)) is not None:
            middle, draws = priced
            options.append(
                {
                    "own": "successor",
                    "month": earliest + wait,
                    "gpus": successor_gpus,
                    "middle": middle,
                    "cheaper_pct": round(float((draws < now).mean()) * 100, 1),
                }
            )
    return options


def _worth(
    world: World, gpus: int, start: int, rate: float
) -> tuple[list[dict[str, Any]], int | None]:
    """What `gpus` owned from `start` are worth, by year: the cost of running them (power,
    space, upkeep, licences, their team; the purchase is sunk) against renting the work
    they do in the cloud on the cheaper generation per unit of speed. And the first month
    renting that work costs less than running them, when it comes: the month to resell."""
    months = np.arange(start + 1, world.months + 1)
    if not len(months):
        return [], None
    held = np.full(len(months), float(gpus))
    kept = replace(
        world,
        base=np.minimum(world.base, gpus),
        peak=np.minimum(world.peak, gpus),
        _hires={},
        _team={},
    )
    running = running_cost(kept, held, months)
    q = world.answers.demand.peak_share
    steady = kept.base[months]
    bursts = q * (kept.peak[months] - steady)
    # The world rents on the cheaper generation per unit of work (_renting_the_cheaper).
    renting = (steady * world.committed[months] + bursts * world.price[months]) * HOURS_PER_MONTH
    years = np.ceil(months / 12).astype(int)
    worth = [
        {
            "year": int(year),
            "running": round(float(running[years == year].sum()) * rate, 2),
            "cloud_equivalent": round(float(renting[years == year].sum()) * rate, 2),
        }
        for year in np.unique(years)
    ]
    cheaper = np.flatnonzero(renting < running)
    return worth, (int(months[cheaper[0]]) if len(cheaper) else None)
