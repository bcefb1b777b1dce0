"""The search: the cheapest plan in stages over a world's months (engine/months.py).

Owned capacity changes only at decision months (every quarter from the first month owned
hardware can run, which is the lead time, or the hiring delay when the team must be hired
first) and never shrinks. Every level of whole nodes the base or the peak reaches is a
candidate. Each quarter's cost for each level is summed once, and a dynamic programme over
(decision month, level) finds the cheapest path. Nothing is owned before it can arrive;
owned capacity holds the work whose data may not leave from the first month it can. The
searches done lately are remembered (`forget_searches` forgets them).

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from decider.engine.costs import staff_needed
from decider.engine.months import World, buy, fleet_pv, path_cost, recruiting, running_cost

DECISION_EVERY = 3  # months between decisions
MAX_LEVELS = 40  # candidate owned sizes, spread over the range the demand covers


@dataclass(frozen=True)
class Path:
    cost: float
    levels: tuple[int, ...]  # owned GPUs in each segment (decision months)


def decision_months(world: World) -> list[int]:
    """The months at which owned capacity may change: the first month it can run work
    (the lead time, or the hiring delay when a team must be hired), then every quarter."""
    p, answers = world.params, world.answers
    hires_needed = staff_needed(p, answers, owned_nodes=1, rented_nodes=0)[0] > 0
    first = max(p["lead_time_months"], p["hiring_months"] if hires_needed else 0.0)
    start = min(math.ceil(first - 1e-9), world.months)
    return list(range(start, world.months, DECISION_EVERY))


def owned_levels(world: World) -> list[int]:
    """Candidate owned sizes (GPUs, whole nodes), none included: every whole node up to
    the most the peak needs when they are at most MAX_LEVELS (a demand that holds reaches
    only its base and its peak, and the cheapest mix may lie between them); else every
    size the base or the peak needs over the horizon, and whole nodes spread evenly over
    the range, thinned to MAX_LEVELS."""
    wanted = {world.nodes(g) for g in np.r_[world.base[1:], world.peak[1:]]}
    wanted |= {world.nodes(world.home_share * g) for g in world.peak[1:]}
    most = max(wanted | {0})
    if most + 1 <= MAX_LEVELS:
        nodes = list(range(most + 1))
    else:
        nodes = sorted(wanted | {0})
        if len(nodes) > MAX_LEVELS:
            keep = np.unique(np.linspace(0, len(nodes) - 1, MAX_LEVELS).round().astype(int))
            nodes = sorted({nodes[i] for i in keep} | {nodes[-1]})
        else:
            spread = np.linspace(0, most, MAX_LEVELS - len(nodes) + 2).round().astype(int)
            nodes = sorted(set(nodes) | {int(n) for n in spread})
    # The GPUs already owned: the plans start from them (and add to them, never below).
    return sorted({n * world.per_node for n in nodes} | {world.answers.fleet_gpus})


def segment_months(world: World, decisions: list[int]) -> list[np.ndarray]:
    """The months each decision's level runs: (d_j, d_j+1], the last to the horizon."""
    ends = [*decisions[1:], world.months]
    return [np.arange(start + 1, end + 1) for start, end in zip(decisions, ends, strict=True)]


# The searches done lately, by what defines their world: scoring prices the cost section
# (stages.future_lines) and the plan over the same future, and each would search it again.
# Each: the cheapest path, the cheapest that owns GPUs, and the decision months.
_SEARCHED: OrderedDict[tuple[Any, ...], tuple[Path, Path, list[int]]] = OrderedDict()
_SEARCHED_KEPT = 32
_SEARCHED_LOCK = threading.Lock()


def search(world: World, *, must_own: bool = False) -> tuple[Path, list[int]]:
    """The cheapest path over the decision months, and those months (`must_own`: the
    cheapest that owns GPUs by the last decision); remembered for the same world (both
    are searched at once: they share every cost)."""
    key = world_key(world)
    with _SEARCHED_LOCK:
        if (found := _SEARCHED.get(key)) is not None:
            _SEARCHED.move_to_end(key)
            plain, owning, decisions = found
            return (owning if must_own else plain), list(decisions)
    plain, owning, decisions = _searched_both(world)
    with _SEARCHED_LOCK:
        _SEARCHED[key] = (plain, owning, list(decisions))
        if len(_SEARCHED) > _SEARCHED_KEPT:
            _SEARCHED.popitem(last=False)
    return (owning if must_own else plain), decisions


def forget_searches() -> None:
    """Forget the searches remembered (benchmarks: a new assessment each time)."""
    with _SEARCHED_LOCK:
        _SEARCHED.clear()


def world_key(world: World) -> tuple[Any, ...]:
    """Everything a search's result depends on, hashable: the figures, the answers and the
    months' arrays (as bytes)."""
    arrays = (world.base, world.peak, world.price, world.committed, world.discount)
    hardware = b"" if world.hardware is None else world.hardware.tobytes()
    return (
        tuple(sorted(world.params.items())),
        world.answers,
        world.home_share,
        world.finance,
        world.blocks,
        hardware,
        *(a.tobytes() for a in arrays),
    )


def _searched_both(world: World) -> tuple[Path, Path, list[int]]:
    """(the cheapest path, the cheapest that owns GPUs by the last decision, the decision
    months): one reckoning of every segment's running cost and every purchase, two
    dynamic programmes over them."""
    decisions = decision_months(world)
    levels = owned_levels(world)
    if not decisions:  # nothing can arrive within the horizon
        nothing = Path(path_cost(world, [], ()), ())
        return nothing, nothing, decisions
    segments = segment_months(world, decisions)
    floors = [world.home_share * world.peak[s].max() for s in segments]
    # cost[j][k]: the running cost of segment j with levels[k] owned; a level that cannot
    # hold the work whose data may not leave is not a choice. The segments follow one
    # another: every level's months are reckoned at once, and summed by segment.
    owned = np.array(levels, dtype=float)
    months = np.arange(decisions[0] + 1, world.months + 1)
    gpus = np.repeat(owned[:, None], len(months), axis=1)
    when = np.broadcast_to(months, gpus.shape)
    monthly = running_cost(world, gpus, when) * world.discount[when]
    running = np.add.reduceat(monthly, np.array(decisions) - decisions[0], axis=1).T
    cost = np.where(owned[None, :] >= np.array(floors)[:, None] - 1e-9, running, math.inf)
    added = owned[None, :] - owned[:, None]  # [held before, held after]
    first = np.broadcast_to((owned == 0)[:, None], added.shape)
    # Owned capacity never shrinks.
    steps = [
        np.where(added >= 0, cost[j][None, :] + buy(world, added, first, decisions[j]), math.inf)
        for j in range(len(decisions))
    ]
    start = levels.index(world.answers.fleet_gpus)  # what is owned today
    before = _before(world, decisions)
    plain, owning = (_cheapest(steps, levels, start, must_own) for must_own in (False, True))
    return (
        Path(plain.cost + before, plain.levels),
        Path(owning.cost + before, owning.levels),
        decisions,
    )


def _cheapest(steps: list[np.ndarray], levels: list[int], start: int, must_own: bool) -> Path:
    """The dynamic programme: steps[j][a, b] is the cost of going from levels[a] to
    levels[b] at decision j and holding it to the next; the cheapest path from `start`."""
    n = len(levels)
    best = np.zeros(n)  # the cost of what follows the last decision
    if must_own:
        best[np.array(levels) == 0] = math.inf
    choice = np.zeros((len(steps), n), dtype=int)
    for j in range(len(steps) - 1, -1, -1):
        options = steps[j] + best[None, :]
        choice[j] = np.argmin(options, axis=1)
        best = options[np.arange(n), choice[j]]
    path, k = [], start
    for j in range(len(steps)):
        k = choice[j][k]
        path.append(levels[k])
    return Path(float(best[start]), tuple(path))


def _before(world: World, decisions: list[int]) -> float:
    """Months 1 .. the first decision: only the GPUs already owned (the rest rented, home
    work beyond them waits); and what keeping them all gives back at the end."""
    fleet = world.answers.fleet_gpus
    kept = fleet_pv(world, fleet)
    months = np.arange(1, (decisions[0] if decisions else world.months) + 1)
    if not len(months):
        return recruiting(world) + kept
    running = running_cost(world, np.full(len(months), fleet), months) * world.discount[months]
    return recruiting(world) + kept + float(running.sum())
