"""The plans priced over drawn worlds: one reckoning behind every set of odds.

The cost section's options and the plan's alternatives are each a plan (engine/stages.py):
GPUs held over the decision months, renting the rest. Here the same plans, held as they
were chosen (decided now; the world is drawn afterwards), are priced by the same months'
reckoning (engine/months.py, path_lines) in worlds drawn around the answers' own:

- the average demand busier or idler (`utilization`), and its growth (`growth`, when it
  grows), which change what is rented and what is run;
- a longer or shorter procurement lead time (`lead_time`): a purchase ordered when the plan
  orders it arrives later or sooner, and the months between are rented;
- the cloud's prices, the hardware's and the resale (`cloud_price`, `hardware_price`,
  `resale`), which scale their cost lines.

Each line is linear in its price multiplier; demand, growth and the lead time are not, so
the months' reckoning is run on a grid of them and every draw is read between its grid
neighbours (multilinear). The world at every multiplier 1 is priced exactly: it is the
point the page states, to the cent.

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from decider.engine.costs import CLOUD_PRICED, CostAnswers
from decider.engine.future import Future
from decider.engine.months import World, path_lines, world_of
from decider.engine.search import world_key

# The grid the months' reckoning is run on; each draw is read between its neighbours.
UTILIZATION_POINTS, LEAD_TIME_POINTS, GROWTH_POINTS = 5, 4, 3
# Which cost lines each price multiplier scales (engine/months.py names the lines).
HARDWARE_PRICED = frozenset(
    {"servers", "network", "storage", "spares", "maintenance", "financing", "refresh"}
)
RESOLD = frozenset({"residual", "fleet_sale"})
GROUPS = ("other", "cloud", "hardware", "resold")
# How a plan rents: as the answers allow ("plan"), or anywhere (the cost section's cloud
# options: no data rule, on demand, the whole peak reserved, the cheapest block committed).
RENTS = ("plan", "none", "peak", "best")


@dataclass(frozen=True)
class Spec:
    """One plan: the GPUs held from each decision month on, and how the rest is rented."""

    levels: tuple[int, ...]
    rents: str = "plan"


@dataclass(frozen=True)
class PlanSet:
    """The plans to price, by name, over the decision months they were chosen on."""

    decisions: tuple[int, ...]
    specs: Mapping[str, Spec]


@dataclass(frozen=True)
class Drawn:
    """Each plan's present value at today's world and at every drawn one, and its
    cumulative cost at `band_months` in every drawn world (price-set currency)."""

    today: dict[str, float]
    present: dict[str, np.ndarray]  # (draws,)
    cumulative: dict[str, np.ndarray]  # (band months, draws)
    band_months: np.ndarray = field(repr=False)


def group_of(line: str) -> int:
    """The price multiplier that scales a cost line (GROUPS)."""
    if line in CLOUD_PRICED:
        return 1
    if line in HARDWARE_PRICED:
        return 2
    return 3 if line in RESOLD else 0


def scaled(answers: CostAnswers, factor: float) -> CostAnswers:
    """The same demand, busier or idler by `factor` (its base and bursts alike)."""
    utilization = min(answers.utilization * factor, 1.0)
    base = answers.base_gpus
    if base is not None:
        base = min(base * factor, answers.gpus * utilization)
    return replace(answers, utilization=utilization, base_gpus=base)


def _points(low: float, high: float, count: int) -> np.ndarray:
    # Two points at least, so that every draw lies in a cell; a range held fixed gives the
    # same point twice (priced once).
    return np.linspace(low, high, count) if low < high else np.array([1.0, 1.0])


def _rented_as(world: World, rents: str) -> World:
    if rents == "plan":
        return world
    return replace(world, home_share=0.0, blocks=rents, _hires={}, _team={})


def _shifted(
    decisions: Sequence[int], levels: tuple[int, ...], shift: int, months: int
) -> tuple[list[int], tuple[int, ...]]:
    """The plan with each purchase ordered when it was and arriving `shift` months later
    (sooner when negative); a purchase that would arrive after the horizon is not made."""
    kept = [
        (max(month + shift, 0), level)
        for month, level in zip(decisions, levels, strict=True)
        if month + shift < months
    ]
    return [month for month, _ in kept], tuple(level for _, level in kept)


def _by_group(lines: Mapping[str, np.ndarray], months: int) -> np.ndarray:
    """(groups, months + 1): each multiplier's lines summed by month."""
    grouped = np.zeros((len(GROUPS), months + 1))
    for name, amounts in lines.items():
        grouped[group_of(name)] += amounts
    return grouped


def _world_prices(
    params: Mapping[str, float],
    answers: CostAnswers,
    future: Future,
    plans: PlanSet,
    point: tuple[float, float, float],
    band_months: np.ndarray,
) -> np.ndarray:
    """(groups, plans, 1 + band months) at one grid point (utilization, lead time, growth
    multipliers): each plan's present value and cumulative cost by line group."""
    utilization, lead, growth = point
    varied = {**params, "lead_time_months": params["lead_time_months"] * lead}
    grown = replace(future, growth_scale=growth) if future.grows else future
    world = world_of(varied, scaled(answers, utilization), grown)
    shift = int(round(params["lead_time_months"] * (lead - 1)))
    months = answers.horizon_months
    out = np.zeros((len(GROUPS), len(plans.specs), 1 + len(band_months)))
    for k, spec in enumerate(plans.specs.values()):
        decisions, levels = _shifted(plans.decisions, spec.levels, shift, months)
        out[:, k] = _path_priced(_rented_as(world, spec.rents), decisions, levels, band_months)
    return out


# The plans priced lately, by their world, months and levels: the cost section's odds and
# the plan's price many of the same plans in the same worlds (on-prem is the peak owned,
# the hybrid the staged plan, the committed cloud cloud only).
_PRICED: OrderedDict[tuple[Any, ...], np.ndarray] = OrderedDict()
_PRICED_KEPT = 4096
_PRICED_LOCK = threading.Lock()


def _path_priced(
    world: World, decisions: list[int], levels: tuple[int, ...], band_months: np.ndarray
) -> np.ndarray:
    """(groups, 1 + band months): a plan's present value and cumulative cost at the band
    months by line group (remembered for the same world, months and levels)."""
    key = (world_key(world), tuple(decisions), levels, band_months.tobytes())
    with _PRICED_LOCK:
        if (found := _PRICED.get(key)) is not None:
            _PRICED.move_to_end(key)
            return found
    months = world.months
    grouped = _by_group(path_lines(world, decisions, levels), months)
    priced = np.empty((len(GROUPS), 1 + len(band_months)))
    priced[:, 0] = grouped @ world.discount
    priced[:, 1:] = np.cumsum(grouped, axis=1)[:, band_months]
    with _PRICED_LOCK:
        _PRICED[key] = priced
        if len(_PRICED) > _PRICED_KEPT:
            _PRICED.popitem(last=False)
    return priced


def forget_priced() -> None:
    """Forget the plans priced lately (benchmarks: a new assessment each time)."""
    with _PRICED_LOCK:
        _PRICED.clear()


def priced(
    params: Mapping[str, float],
    answers: CostAnswers,
    future: Future,
    plans: PlanSet,
    *,
    ranges: Mapping[str, tuple[float, float]],
    drawn: Mapping[str, np.ndarray],
    band_months: np.ndarray,
) -> Drawn:
    """Every plan of `plans` priced today and in each drawn world (`drawn`: the odds'
    multipliers, engine/odds.py draw; `ranges`: what they were drawn from)."""
    growth_range = ranges["growth"] if future.grows else (1.0, 1.0)
    axes = [
        _points(*ranges["utilization"], UTILIZATION_POINTS),
        _points(*ranges["lead_time"], LEAD_TIME_POINTS),
        _points(*growth_range, GROWTH_POINTS),
    ]
    at = functools.cache(
        lambda point: _world_prices(params, answers, future, plans, point, band_months)
    )
    table = np.array(
        [[[at((float(u), float(t), float(g))) for g in axes[2]] for t in axes[1]] for u in axes[0]]
    )  # (nu, nt, ng, groups, plans, 1 + bands)
    today = at((1.0, 1.0, 1.0))[:, :, 0].sum(axis=0)
    values = [drawn["utilization"], drawn["lead_time"], drawn["growth"]]
    read = _read(table, axes, values, _multipliers(drawn))  # (plans, 1 + bands, draws)
    names = list(plans.specs)
    return Drawn(
        today={name: float(today[k]) for k, name in enumerate(names)},
        present={name: read[k, 0] for k, name in enumerate(names)},
        cumulative={name: read[k, 1:] for k, name in enumerate(names)},
        band_months=band_months,
    )


def _multipliers(drawn: Mapping[str, np.ndarray]) -> np.ndarray:
    """(draws, groups): what each line group is multiplied by in each draw."""
    hardware = drawn["hardware_price"]
    return np.stack(
        [np.ones_like(hardware), drawn["cloud_price"], hardware, hardware * drawn["resale"]],
        axis=1,
    )


def _corners(points: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each value: the grid index below it and how far it lies towards the next."""
    step = points[1] - points[0]
    if step == 0:
        return np.zeros(len(values), dtype=int), np.zeros(len(values))
    position = np.clip((values - points[0]) / step, 0, len(points) - 1)
    below = np.minimum(position.astype(int), len(points) - 2)
    return below, position - below


def _read(
    table: np.ndarray,
    axes: Sequence[np.ndarray],
    values: Sequence[np.ndarray],
    scale: np.ndarray,
) -> np.ndarray:
    """Σ over line groups of `table` (*grid, groups, ...) at each draw's place on the grid
    (multilinear between its corners), times the draw's multiplier of the group:
    (..., draws). The draws of one grid cell are read by one matrix product."""
    dims = len(axes)
    found = [_corners(a, v) for a, v in zip(axes, values, strict=True)]
    below = [b for b, _f in found]
    fraction = [f for _b, f in found]
    corners = list(itertools.product((0, 1), repeat=dims))
    weights = np.stack(
        [
            np.prod([f if bit else 1 - f for bit, f in zip(corner, fraction, strict=True)], axis=0)
            for corner in corners
        ],
        axis=1,
    )  # (draws, corners)
    features = (weights[:, :, None] * scale[:, None, :]).reshape(len(scale), -1)
    cells = np.ravel_multi_index(tuple(below), [len(a) - 1 for a in axes])
    order = np.argsort(cells, kind="stable")
    flat = table.reshape((*table.shape[: dims + 1], -1))  # (*grid, groups, rest)
    read = np.empty((flat.shape[-1], len(scale)))
    bounds = np.flatnonzero(np.diff(cells[order])) + 1
    for run in np.split(order, bounds):
        index = [int(b[run[0]]) for b in below]
        stacked = np.concatenate(
            [
                flat[tuple(i + bit for i, bit in zip(index, corner, strict=True))]
                for corner in corners
            ]
        )  # (corners × groups, rest)
        read[:, run] = stacked.T @ features[run].T
    return read.reshape((*table.shape[dims + 1 :], len(scale)))
