"""The staged plan's search (engine/search.py) is a dynamic programme over the decision
months and the candidate owned sizes. On futures small enough to list every plan, it finds
the cheapest one there is: checked against brute force."""

import itertools
import math

import pytest

from decider.engine import search
from decider.engine.figures import figures_values
from decider.engine.future import Future
from decider.engine.months import path_cost, paths_cost_linear, world_of
from tests.factories import make_cost_answers, shipped_figures

CHEAP_SERVERS = dict(server_price=100_000, gpu_hour_on_demand=5.0)  # owning pays early
CASES = {
    "renting wins throughout": ({}, dict(gpus=16, utilization=0.3, horizon_months=15), Future()),
    "growth bought in stages": (
        CHEAP_SERVERS,
        dict(gpus=16, utilization=0.9, horizon_months=24),
        Future(growth_pct=80.0),
    ),
    "later servers cheaper": (
        CHEAP_SERVERS,
        dict(gpus=16, utilization=0.95, horizon_months=21),
        Future(growth_pct=100.0, hardware_fall_pct=20.0),
    ),
    "half the work stays home": (
        {},
        dict(gpus=24, utilization=0.6, horizon_months=18, cloud_share=0.5),
        Future(growth_pct=40.0),
    ),
    "GPUs already owned": (
        CHEAP_SERVERS,
        dict(gpus=32, utilization=0.9, horizon_months=21, fleet_gpus=8, fleet_age_years=1.0),
        Future(growth_pct=30.0, cloud_fall_pct=15.0),
    ),
}


def brute_force(world, *, must_own=False):
    """Every plan: a level per decision month, never below the one before or what is owned
    today, each able to hold the work that may not leave; the cheapest by its own cost."""
    decisions = search.decision_months(world)
    levels = [level for level in search.owned_levels(world) if level >= world.answers.fleet_gpus]
    segments = search.segment_months(world, decisions)
    floors = [world.home_share * world.peak[months].max() for months in segments]
    best = (math.inf, None)
    for path in itertools.combinations_with_replacement(levels, len(decisions)):
        if any(level < floor - 1e-9 for level, floor in zip(path, floors, strict=True)):
            continue
        if must_own and path[-1] == 0:
            continue
        best = min(best, (path_cost(world, decisions, path), path))
    return best, len(levels), len(decisions)


@pytest.mark.parametrize("must_own", [False, True])
@pytest.mark.parametrize("case", CASES)
def test_the_search_finds_the_cheapest_plan_there_is(case, must_own):
    prices, given, future = CASES[case]
    figures = figures_values(shipped_figures(**prices))
    world = world_of(figures, make_cost_answers(**given), future)
    (cheapest, _plan), levels, decisions = brute_force(world, must_own=must_own)
    assert levels >= 2 and decisions >= 3 and math.comb(levels + decisions, decisions) < 200_000

    search.forget_searches()
    found, _decisions = search.search(world, must_own=must_own)

    assert found.cost == pytest.approx(cheapest, rel=1e-9)
    # Its cost is the cost of the plan it names, reckoned on its own.
    assert path_cost(world, _decisions, found.levels) == pytest.approx(found.cost, rel=1e-9)
    if must_own:
        assert found.levels[-1] > 0


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("finance", [True, False])
def test_a_plan_priced_once_is_priced_at_any_price_levels(case, finance):
    """The odds price each plan at thousands of drawn cloud and hardware price levels from
    one reckoning (months.paths_cost_linear): it must give what pricing the plan afresh at
    those levels gives, with capital up front and financed alike."""
    prices, given, future = CASES[case]
    figures = figures_values(shipped_figures(**prices))
    answers = make_cost_answers(**given, capex_available=finance)

    def world_at(cloud, hardware):
        return world_of(figures, answers, future, cloud=cloud, hardware=hardware)

    world = world_at(1.0, 1.0)
    decisions = search.decision_months(world)
    levels = search.owned_levels(world)
    plans = [
        tuple(0 for _ in decisions),
        tuple(levels[-1] for _ in decisions),
        tuple(levels[min(i, len(levels) - 1)] for i in range(len(decisions))),
    ]
    for path, (fixed, by_cloud, by_hardware) in zip(
        plans, paths_cost_linear(world_at, decisions, plans), strict=True
    ):
        for cloud, hardware in [(1.0, 1.0), (0.75, 1.15), (1.25, 0.85), (0.3, 3.0)]:
            afresh = path_cost(world_at(cloud, hardware), decisions, path)
            linear = fixed + cloud * by_cloud + hardware * by_hardware
            assert linear == pytest.approx(afresh, rel=1e-9), (path, cloud, hardware)
