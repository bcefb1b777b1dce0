"""The cost section's fixed plans priced again, at another utilization or other figures.

On-prem (the peak owned from the first month it can) and the cloud's three pricing modes
(all on demand, the whole peak reserved, the cheapest block committed) are plans of the
months' reckoning (engine/months.py). The cost per useful GPU-hour by utilization, the
utilization at which owning and renting cost the same, the sensitivity (how far the gap
moves with each figure) and the rule of thumb's check all read these same plans, priced
again: never a second model of the options beside them (issue 50).

A plan priced under changed figures reads only some of them (the cloud's plans read no
server price): each plan remembers which figures its pricing read, and a change to none of
them gives back its total as priced, which is exact, not an estimate.

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from decider.engine.costs import CostAnswers, useful_gpu_hours
from decider.engine.future import Future
from decider.engine.months import World, path_lines, world_of
from decider.engine.search import decision_months

PLAN_OPTIONS = ("onprem", "cloud_on_demand", "cloud_reserved", "cloud_committed")
# How each cloud mode rents (months.BLOCKS): on demand none, reserved the whole peak,
# committed the cheapest block.
_BLOCKS = {"cloud_on_demand": "none", "cloud_reserved": "peak", "cloud_committed": "best"}


class _Reads(Mapping[str, float]):
    """The figures, noting each one read (a copy reads them all: conservative)."""

    def __init__(self, values: Mapping[str, float]) -> None:
        self._values = values
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> float:
        self.read.add(key)
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        self.read.update(self._values)
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def _answers_at(answers: CostAnswers, utilization: float) -> CostAnswers:
    """The answers at another average utilization, their demand shape kept (levels given
    outright are a demand of their own: steady at the other utilization)."""
    if answers.base_gpus is None:
        return replace(answers, utilization=utilization)
    return answers.at_utilization(utilization)


def plan_total(world: World, option: str) -> float:
    """The option's plan over this world, its money over the horizon (no discounting):
    NaN when nothing owned can arrive within it."""
    if option != "onprem":  # owns nothing: when it might buy is no matter
        world = replace(world, home_share=0.0, blocks=_BLOCKS[option], _hires={}, _team={})
        return _total(path_lines(world, [0], (0,)))
    decisions = decision_months(world)
    if not decisions:
        return math.nan
    peak = world.nodes(float(world.peak[1:].max())) * world.per_node
    return _total(path_lines(world, decisions, tuple(peak for _ in decisions)))


def _total(lines: Mapping[str, np.ndarray]) -> float:
    return float(sum(float(amounts.sum()) for amounts in lines.values()))


@dataclass
class Repricing:
    """The fixed plans of these answers, priced again: `totals` at another utilization or
    with some figures changed; `useful_hours`, the GPU-hours of work at a utilization."""

    answers: CostAnswers
    params: Mapping[str, float]
    future: Future
    _read: dict[str, frozenset[str]] = field(default_factory=dict)
    _point: dict[str, float] = field(default_factory=dict)

    def _priced(self, answers: CostAnswers, params: Mapping[str, float], option: str) -> float:
        return plan_total(world_of(params, answers, self.future), option)

    def point(self, option: str) -> float:
        """The option's total at the answers' own figures, and the figures it read."""
        if option not in self._point:
            reads = _Reads(self.params)
            self._point[option] = self._priced(self.answers, reads, option)
            self._read[option] = frozenset(reads.read)
        return self._point[option]

    def totals(
        self,
        utilization: float | None = None,
        *,
        changed: Mapping[str, float] | None = None,
        options: tuple[str, ...] = PLAN_OPTIONS[:3],
    ) -> dict[str, float]:
        changed = changed or {}
        answers = self.answers if utilization is None else _answers_at(self.answers, utilization)
        params = {**self.params, **changed}
        totals = {}
        for option in options:
            if utilization is None and not (set(changed) & self._read_by(option)):
                totals[option] = self.point(option)
            else:
                totals[option] = self._priced(answers, params, option)
        return totals

    def _read_by(self, option: str) -> frozenset[str]:
        self.point(option)
        return self._read[option]

    def useful_hours(self, utilization: float) -> float:
        """The GPU-hours of work over the horizon at this utilization (the future's demand
        path: held or growing)."""
        answers = _answers_at(self.answers, utilization)
        demand = answers.demand
        base, peak = self.future.demand(demand.base, float(demand.peak), answers.horizon_months)
        return useful_gpu_hours(answers, base, peak)
