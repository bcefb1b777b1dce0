"""A plan in stages: when to start owning GPUs, and how many, as the demand grows.

The source ends on it (§九): in most cases the realistic path is a hybrid that evolves in
stages. The cost model prices one demand for the whole horizon; here the demand may grow
(a yearly rate, or a base and a peak per year) and cloud prices may fall, and the plan may
buy node groups at chosen months: cloud only until the base is worth owning, then own it,
then add to it as it grows.

The plan is the search's cheapest path (engine/search.py) over the months' costs
(engine/months.py) of the future the answers give (engine/future.py). Two plans are priced
beside the best one: cloud only (when the data allows it) and "commit now", the final base
owned from the first month it can be. With them: how sure the plan is
(engine/plan_odds.py), buy now or wait (engine/waiting.py) and this generation or the next
(engine/nextgen.py).

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from decider.engine import odds
from decider.engine import search as searches
from decider.engine.costs import HOURS_PER_MONTH, CostAnswers, OptionPlans, useful_gpu_hours
from decider.engine.drawn import GROWTH_POINTS, PlanSet, Spec, forget_priced
from decider.engine.figures import Figure, figures_values
from decider.engine.future import MAX_YEARS, Future, future_of, years_given
from decider.engine.gpus import DEFAULT, gpu, next_generation
from decider.engine.i18n import gettext
from decider.engine.markets import currency_rate
from decider.engine.months import (
    BLOCKS,
    World,
    finance_factor,
    fleet_kept,
    path_cost,
    path_lines,
    refresh_months,
    world_of,
)
from decider.engine.nextgen import SWITCH_WAITS, which_generation
from decider.engine.plan_odds import plan_odds
from decider.engine.repricing import Repricing
from decider.engine.search import (
    DECISION_EVERY,
    MAX_LEVELS,
    Path,
    search,
    segment_months,
)
from decider.engine.waiting import WAITS, wait

# Public names, as before the plan's parts moved to their own modules.
__all__ = [
    "BLOCKS",
    "DECISION_EVERY",
    "GROWTH_POINTS",
    "MARGINAL_DRAWS_PCT",
    "MARGINAL_EDGE_PCT",
    "MAX_LEVELS",
    "MAX_YEARS",
    "SWITCH_WAITS",
    "WAITS",
    "Future",
    "OptionPlans",
    "Stage",
    "finance_factor",
    "forget_searches",
    "future_lines",
    "future_of",
    "option_lines",
    "plan_compute",
    "refresh_months",
    "years_given",
]


def forget_searches() -> None:
    """Forget the searches and the plans priced lately (benchmarks: a new assessment)."""
    searches.forget_searches()
    forget_priced()


@dataclass(frozen=True)
class Stage:
    month: int  # the month the GPUs run work from
    ordered: int  # the month they are ordered and paid
    owned_gpus: int  # owned from then on
    added_gpus: int


def future_lines(
    *,
    answers: CostAnswers,
    figures: Mapping[str, Figure],
    future: Future,
    curve: bool = False,
) -> OptionPlans | None:
    """The cost section's options over the answers' future, held or growing (option_lines),
    with the plans plan_compute weighs for each outcome: the peak owned from the first month
    it can, and the search's stages (or, when they own nothing, the cheapest plan that
    owns). `curve`: the hybrid curve prices each level the search weighs, held from the first
    decision (so the plan's own point is its lowest). None when nothing owned can arrive
    within the horizon."""
    world = world_of(figures_values(figures), answers, future)
    staged, decisions = search(world)
    if not decisions:
        return None
    owns = any(level > 0 for level in staged.levels)
    hybrid = staged if owns else search(world, must_own=True)[0]
    levels = (hybrid if math.isfinite(hybrid.cost) else staged).levels
    peak = world.nodes(float(world.peak[1:].max())) * world.per_node
    own = tuple(peak for _ in decisions)
    lines = option_lines(world, decisions, own=own, hybrid=levels)
    points = {
        level: _priced(path_lines(world, decisions, tuple(level for _ in decisions)), world)
        for level in set(searches.owned_levels(world) if curve else ()) - {max(levels)}
    }
    points[max(levels)] = _priced(lines["hybrid"], world)  # the plan's hybrid: its own point
    return OptionPlans(
        lines,
        own,
        levels,
        owns,
        curve=tuple((level, *priced) for level, priced in sorted(points.items())),
        repricing=Repricing(answers, figures_values(figures), future),
        decisions=tuple(decisions),
        owned_hours=useful_gpu_hours(
            answers,
            world.base[(arrival := _arrival(world, decisions, own)) :],
            world.peak[arrival:],
        ),
        committed={
            "cloud_committed": _committed_from(lines["cloud_committed"], world, 0),
            "hybrid": _committed_from(lines["hybrid"], world, _arrival(world, decisions, levels)),
        },
    )


def _committed_from(lines: Mapping[str, np.ndarray], world: World, month: int) -> int:
    """The GPUs a plan commits to in the month after `month` (its first month renting
    beside what it owns, when it owns): its committed rent over the committed rate."""
    month = min(month + 1, world.months)
    rate = float(world.committed[month]) * HOURS_PER_MONTH
    rent = float(lines.get("gpu_committed", np.zeros(world.months + 1))[month])
    return round(rent / rate) if rate > 0 else 0


def drawn_options(planned: OptionPlans) -> PlanSet:
    """The cost section's options as the odds price them (engine/drawn.py): the same plans
    as option_lines, over the same decision months."""
    nothing = tuple(0 for _ in planned.decisions)
    return PlanSet(
        planned.decisions,
        {
            "onprem": Spec(planned.own),
            "cloud_on_demand": Spec(nothing, "none"),
            "cloud_reserved": Spec(nothing, "peak"),
            "cloud_committed": Spec(nothing, "best"),
            "hybrid": Spec(planned.hybrid),
        },
    )


def _total(lines: Mapping[str, np.ndarray]) -> float:
    """A path's money over the horizon, no discounting."""
    return float(sum(float(amounts.sum()) for amounts in lines.values()))


def _priced(lines: Mapping[str, np.ndarray], world: World) -> tuple[float, float]:
    """A path's money over the horizon and its present value (what the search weighs)."""
    return _total(lines), float(sum(lines.values()) @ world.discount)


def option_lines(
    world: World, decisions: list[int], *, own: tuple[int, ...], hybrid: tuple[int, ...]
) -> dict[str, dict[str, np.ndarray]]:
    """The cost section's five options over this future, each a path of the search's
    reckoning, by cost line and month: on-prem owns the peak from the first month it can
    (renting before: its bridge), the cloud rents throughout all on demand, the whole peak
    reserved, or the cheapest block committed (cloud only), and the hybrid holds `hybrid`.
    The cloud options rent all the work, as the cost model prices them whatever the data's
    residency (the rules exclude them where it binds)."""
    nothing = tuple(0 for _ in decisions)
    anywhere = replace(world, home_share=0.0, _hires={}, _team={})
    return {
        "onprem": _bridged(path_lines(world, decisions, own), world.months),
        "cloud_on_demand": path_lines(replace(anywhere, blocks="none"), decisions, nothing),
        "cloud_reserved": _rent_as_one(
            path_lines(replace(anywhere, blocks="peak"), decisions, nothing)
        ),
        "cloud_committed": path_lines(anywhere, decisions, nothing),
        "hybrid": _bridged(
            path_lines(world, decisions, hybrid), _arrival(world, decisions, hybrid)
        ),
    }


RENT_LINES = ("gpu", "gpu_committed")


def _rent_as_one(lines: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The whole peak reserved: all its rent is one line, "gpu" (as the cost section
    has always named the reserved option's rent)."""
    committed = lines.pop("gpu_committed", None)
    if committed is not None:
        lines["gpu"] = lines.get("gpu", np.zeros_like(committed)) + committed
    return lines


def _arrival(world: World, decisions: list[int], path: tuple[int, ...]) -> int:
    """The last month before the path's first owned GPUs run work (0: owned already)."""
    if fleet_kept(world, path) > 0:
        return 0
    return next((start for start, level in zip(decisions, path, strict=True) if level > 0), 0)


def _bridged(lines: dict[str, np.ndarray], until: int) -> dict[str, np.ndarray]:
    """A path's rent up to month `until` (inclusive) as its own line, "bridge": renting
    while the owned GPUs are on their way; after it, rent stays rent (the bursts)."""
    bridge = np.zeros_like(next(iter(lines.values())))
    for name in RENT_LINES:
        if name in lines:
            bridge[: until + 1] += lines[name][: until + 1]
            lines[name] = np.concatenate([np.zeros(until + 1), lines[name][until + 1 :]])
            if not lines[name].any() and until >= len(bridge) - 1:
                del lines[name]  # all of it bridged: on-prem rents nothing else
    lines["bridge"] = bridge
    return lines


def _stages(decisions: list[int], path: tuple[int, ...], lead: float, held: int = 0) -> list[Stage]:
    """The purchases a path makes: `held` GPUs owned before it."""
    stages: list[Stage] = []
    for month, level in zip(decisions, path, strict=True):
        if level > held:
            ordered = max(int(round(month - lead)), 0)
            stages.append(Stage(month, ordered, level, level - held))
            held = level
    return stages


# --- the public entry point ------------------------------------------------------------


def plan_compute(
    *,
    answers: CostAnswers,
    figures: Mapping[str, Figure],
    future: Future = Future(),  # noqa: B008 (frozen: immutable)
    currency: str = "USD",
    gpu_model: str = DEFAULT,
    market: str = "global",
    ranges: Mapping[str, tuple[float, float]] | None = None,
    seed: int = 0,
    outcome: str | None = None,
    fixed: Mapping[str, tuple[float, float]] | None = None,
    bursts_owned: int = 0,
) -> dict[str, Any]:
    """The cheapest staged plan, with cloud only and "commit now" beside it, buy now or
    wait, this generation or the next (`ranges`, `seed`: the odds); `outcome`: the
    headline, which the plan recommended follows; `fixed`: the per-token outcomes (with a
    hybrid, its plan: `bursts_owned` GPUs, the bursts per token, _bursts_sent)."""
    params = figures_values(figures)
    world = world_of(params, answers, future)
    rate = currency_rate(params, prices_in=answers.prices_in, shown_in=currency)
    staged, decisions = search(world)
    kept = fleet_kept(world, staged.levels)  # the GPUs owned already that the plan keeps
    stages = _stages(decisions, staged.levels, params["lead_time_months"], kept)
    weighed = _weighed(world, decisions, staged, stages)
    outcomes = _outcome_plans(weighed.paths, stages, decisions, answers.excluded)
    found_odds, drawn = _drawn_odds(
        world,
        future,
        decisions,
        weighed.paths,
        ranges,
        seed=seed,
        rate=rate,
        outcomes=outcomes,
        fixed=fixed,
    )
    recommended = _recommended(
        world, decisions, stages, weighed, found_odds, outcome, gpu_model, kept=kept, rate=rate
    )
    when = functools.partial(
        _when_to_own, world, future, gpu_model=gpu_model, market=market, drawn=drawn, rate=rate
    )
    shown = {
        "currency": currency,
        **recommended,
        "financing": _financing_shown(world),
        "stages": _stage_rows(world, decisions, staged.levels, stages, rate),
        "present_value": _present_shown(weighed.present, rate),
        "commit_now_gpus": weighed.committed if decisions else 0,
        "owned_already": kept,  # the GPUs owned already (`owned`) kept from month 0
        "first_possible_month": decisions[0] if decisions else None,
        "timeline": _timeline(world, kept, stages),
        **when(stages),
        "odds": found_odds,
        "future": _future_shown(future),
        **_outcomes_shown(outcomes, weighed.present, rate),
    }
    sent = _bursts_sent(world, decisions, gpu_model, owned=bursts_owned, kept=kept, when=when)
    return sent(shown, (fixed or {}).get("hybrid"), outcome == "hybrid")


def _bursts_sent(
    world: World,
    decisions: list[int],
    gpu_model: str,
    *,
    owned: int,
    kept: int,
    when: Callable[[list[Stage]], dict[str, Any]],
) -> Callable[[dict[str, Any], tuple[float, float] | None, bool], dict[str, Any]]:
    """The plan with the hybrid that owns the steady base (`owned` GPUs from the first
    month they can run) and sends the bursts per token as the hybrid's plan, at its present
    value (the cost section's, engine/evaluation.py's _bursts_sent: its two parts), and as
    the plan recommended when the headline is a hybrid (`chosen`): its stage, its timeline,
    and buy now or wait for the GPUs it owns (`when`)."""

    def sent(
        shown: dict[str, Any], parts: tuple[float, float] | None, chosen: bool
    ) -> dict[str, Any]:
        if parts is None or "hybrid" not in shown["outcome_plans"]:
            return shown
        value = round(sum(parts), 2)
        shown = shown | {
            "outcome_plans": {**shown["outcome_plans"], "hybrid": "api_hybrid"},
            "outcome_present_value": {**shown["outcome_present_value"], "hybrid": value},
        }
        if not chosen:
            return shown
        if not (owned and decisions):
            return shown | {"chosen_plan": "api_hybrid", "chosen_present_value": value}
        row = _commit_row(world, decisions, gpu_model, owned)
        row["reason"] = gettext(
            "Owned for the steady base from the first month it can run; the bursts above "
            "it are sent per token."
        )
        base = [Stage(decisions[0], row["order_month"], owned, owned)]
        return shown | {
            "chosen_plan": "api_hybrid",
            "chosen_present_value": value,
            "chosen": [row],
            "marginal": False,
            "timeline": _timeline(world, kept, base),
            **when(base),
        }

    return sent


def _drawn_odds(
    world: World,
    future: Future,
    decisions: list[int],
    paths: dict[str, tuple[int, ...]],
    ranges: Mapping[str, tuple[float, float]] | None,
    *,
    seed: int,
    rate: float,
    outcomes: Mapping[str, str],
    fixed: Mapping[str, tuple[float, float]] | None,
) -> tuple[dict[str, Any] | None, dict[str, np.ndarray]]:
    """The plans' odds (engine/plan_odds.py) and the draws they read: `ranges` over the
    defaults (an input not given: its default)."""
    ranges = {**odds.ranges_of(None), **(ranges or {})}
    drawn = odds.draw(ranges, seed=seed)
    found = plan_odds(
        world.params,
        world.answers,
        future,
        decisions,
        paths,
        ranges=ranges,
        drawn=drawn,
        rate=rate,
        outcomes=outcomes,
        fixed=fixed,
    )
    return found, drawn


def _money(value: float | None, rate: float) -> float | None:
    """An amount in USD in the currency shown, to the cent."""
    return None if value is None else round(value * rate, 2)


@dataclass(frozen=True)
class _Weighed:
    """The plans weighed beside the search's: their paths over the decision months and
    their present values (None: not a choice), by name."""

    paths: dict[str, tuple[int, ...]]
    present: dict[str, float | None]
    committed: int  # the GPUs "commit now" owns
    peak_level: int  # the GPUs "own the peak" owns


def _weighed(world: World, decisions: list[int], staged: Path, stages: list[Stage]) -> _Weighed:
    """The search's plan (staged) and those beside it: commit now (the final base, or what
    the work that may not leave needs), cloud only (when the data allows it), the peak owned
    from the first month it can run (what an on-premises headline owns, as the cost
    section's on-prem does), and the plan that owns when the search's owns nothing."""
    final_base = world.nodes(float(world.base[1:].max())) * world.per_node
    floor = world.nodes(world.home_share * float(world.peak[1:].max())) * world.per_node
    committed = max(final_base, floor)
    commit_path = tuple(committed for _ in decisions)
    commit_cost = path_cost(world, decisions, commit_path) if decisions else None
    cloud_cost = (
        path_cost(world, decisions, tuple(0 for _ in decisions)) if world.home_share == 0 else None
    )
    peak_level = world.nodes(float(world.peak[1:].max())) * world.per_node
    peak_path = tuple(peak_level for _ in decisions)
    peak_cost = path_cost(world, decisions, peak_path) if decisions else None
    paths = {
        "staged": staged.levels,
        "commit_now": commit_path,
        **({"cloud_only": tuple(0 for _ in decisions)} if cloud_cost is not None else {}),
        **({"own_peak": peak_path} if peak_cost is not None else {}),
    }
    present = {"staged": staged.cost, "commit_now": commit_cost, "cloud_only": cloud_cost}
    if peak_cost is not None:
        present["own_peak"] = peak_cost
    # A hybrid owns a base: the search's plan, or when that owns nothing, the cheapest plan
    # that owns GPUs by the last decision.
    owning = staged if stages or not decisions else search(world, must_own=True)[0]
    if not stages and decisions and math.isfinite(owning.cost):
        paths["owning"] = owning.levels
        present["owning"] = owning.cost
    return _Weighed(paths, present, committed, peak_level)


def _outcome_plans(
    paths: Mapping[str, tuple[int, ...]],
    stages: list[Stage],
    decisions: list[int],
    excluded: frozenset[str],
) -> dict[str, str]:
    """The plan that stands for each outcome the rules allow, over this future (none when
    nothing owned can arrive within the horizon)."""
    candidates = {
        "cloud": "cloud_only" if "cloud_only" in paths else None,
        "hybrid": "staged" if stages else ("owning" if "owning" in paths else None),
        "onprem": "own_peak" if "own_peak" in paths else None,
    }
    return {
        key: name
        for key, name in candidates.items()
        if name is not None and key not in excluded and decisions
    }


def _recommended(
    world: World,
    decisions: list[int],
    stages: list[Stage],
    weighed: _Weighed,
    found_odds: Mapping[str, Any] | None,
    outcome: str | None,
    gpu_model: str,
    *,
    kept: int,
    rate: float,
) -> dict[str, Any]:
    """The plan recommended (the headline's, or with none the search's unless marginal):
    its name, present value and stages, and the plans beside it."""
    present = weighed.present
    chosen, marginal = _chosen(stages, present, found_odds, outcome, kept=kept)
    committed = weighed.peak_level if chosen == "own_peak" else weighed.committed
    return {
        "chosen_plan": chosen,
        "chosen_present_value": _money(present[chosen], rate),
        "chosen": _chosen_stages(
            chosen,
            stages,
            world,
            decisions,
            gpu_model,
            marginal=marginal,
            committed=committed if decisions else 0,
            kept=kept,
        ),
        "marginal": marginal,
        "alternatives": _alternatives(chosen, present, found_odds, rate, same_as_cloud=not stages),
    }


def _financing_shown(world: World) -> dict[str, Any] | None:
    """The finance terms of what is bought, with no capital up front (None: it is there)."""
    if world.answers.capex_available:
        return None
    params = world.params
    return {
        "rate": params["finance_rate"],
        "term_months": int(params["finance_term_months"]),
        "factor": round(world.finance, 4),
    }


def _stage_rows(
    world: World, decisions: list[int], path: tuple[int, ...], stages: list[Stage], rate: float
) -> list[dict[str, Any]]:
    """Each purchase of the search's plan, with the demand when it runs and what it saves."""
    base, peak, months = world.base, world.peak, world.months
    rows = []
    for i, s in enumerate(stages):
        # Owned because the data may not leave: nothing to weigh it against.
        required = _required(world, decisions, s, stages[i - 1] if i else None)
        rows.append(
            {
                "month": s.month,
                "order_month": s.ordered,
                "owned_gpus": s.owned_gpus,
                "added_gpus": s.added_gpus,
                "base_gpus": round(float(base[min(s.month + 1, months)]), 1),
                "peak_gpus": round(float(peak[min(s.month + 1, months)]), 1),
                "required_by_data": required,
                "saves": None
                if required
                else _money(_saving(world, decisions, path, i, stages), rate),
            }
        )
    return rows


def _present_shown(present: Mapping[str, float | None], rate: float) -> dict[str, float | None]:
    """The present value of each plan weighed but the owning one (None: not a choice)."""
    return {
        "staged": _money(present["staged"], rate),
        "commit_now": _money(present["commit_now"], rate),
        "cloud_only": _money(present["cloud_only"], rate),
        # The peak owned from the first month it can run: an on-premises headline's.
        **({"own_peak": _money(present["own_peak"], rate)} if "own_peak" in present else {}),
    }


def _timeline(world: World, kept: int, stages: list[Stage]) -> dict[str, list[Any]]:
    """The GPUs owned, and the base and peak demand, month by month."""
    owned = np.full(world.months + 1, float(kept))
    for stage in stages:
        owned[stage.month + 1 :] = stage.owned_gpus
    return {
        "months": list(range(world.months + 1)),
        "owned_gpus": [int(v) for v in owned],
        "base_gpus": [round(float(v), 1) for v in world.base],
        "peak_gpus": [round(float(v), 1) for v in world.peak],
    }


def _when_to_own(
    world: World,
    future: Future,
    stages: list[Stage],
    gpu_model: str,
    *,
    market: str,
    drawn: Mapping[str, np.ndarray],
    rate: float,
) -> dict[str, Any]:
    """Buy now or wait, and this generation or the next: for the first stage's GPUs (a node
    of the first month's base when the plan owns none)."""
    params, answers = world.params, world.answers
    first_base = max(world.nodes(float(world.base[1])), 1) * world.per_node
    level = stages[0].owned_gpus if stages else first_base
    path = gpu(gpu_model).price_path
    generation = next_generation(market, gpu_model)
    return {
        "wait": wait(params, answers, future, path, level=level, drawn=drawn, rate=rate),
        "generation": None
        if generation is None
        else which_generation(
            params,
            answers,
            future,
            generation,
            model=gpu_model,
            level=level,
            workload=answers.workload,
            drawn=drawn,
            rate=rate,
        ),
    }


def _outcomes_shown(
    outcomes: Mapping[str, str], present: Mapping[str, float | None], rate: float
) -> dict[str, Any]:
    """Each allowed outcome's plan over this future, and its present value."""
    return {
        "outcome_plans": outcomes,
        "outcome_present_value": {
            key: _money(present[name], rate) for key, name in outcomes.items()
        },
    }


def _future_shown(future: Future) -> dict[str, Any]:
    return {
        "growth_pct_per_year": future.growth_pct if not future.years else None,
        "years": [{"base_gpus": b, "peak_gpus": p} for b, p in future.years],
        "cloud_fall_pct_per_year": future.cloud_fall_pct,
        "hardware_fall_pct_per_year": future.hardware_fall_pct,
        "grows": future.grows,
    }


# A staged plan that saves less than this share of cloud only, or costs less in fewer than
# this share of the odds' draws, is marginal: cloud only keeps the choices open instead.
MARGINAL_EDGE_PCT = 5.0
MARGINAL_DRAWS_PCT = 50.0


def _chosen(
    stages: list[Stage],
    present: Mapping[str, float | None],
    found: Mapping[str, Any] | None,
    outcome: str | None,
    *,
    kept: int = 0,
) -> tuple[str, bool]:
    """(the plan recommended, whether the search's plan is marginal). The plan follows the
    headline (`outcome`): a cloud one rents, an on-prem or hybrid one owns (the search's plan,
    or the final base from the first month it can run when the search owns nothing). With no
    headline, owning must earn its commitment: against cloud only by MARGINAL_EDGE_PCT, in
    at least MARGINAL_DRAWS_PCT of the draws, or renting throughout keeps the choices open
    (the data allowing it)."""
    cloud, staged = present["cloud_only"], present["staged"]
    marginal = False
    owns = bool(stages) or kept > 0  # keeping the GPUs owned already is owning too
    if owns and cloud is not None and staged is not None:
        edge = (cloud - staged) / cloud * 100 if cloud > 0 else 0.0
        wins = (found or {}).get("staged_cheaper_pct", {}).get("cloud_only")
        marginal = edge < MARGINAL_EDGE_PCT or (wins is not None and wins < MARGINAL_DRAWS_PCT)
    if outcome == "onprem" and present.get("own_peak") is not None:
        return "own_peak", marginal  # the cost section's on-prem: one plan, one price
    if cloud is None:
        return "staged", marginal  # data that may not leave: owning is no choice
    if outcome == "cloud":
        return "cloud_only", marginal
    if outcome in ("onprem", "hybrid"):
        if owns or present["commit_now"] is None:
            return "staged", marginal
        return "commit_now", marginal
    if not owns:
        return "cloud_only", marginal
    return ("cloud_only" if marginal else "staged"), marginal


def _chosen_stages(
    chosen: str,
    stages: list[Stage],
    world: World,
    decisions: list[int],
    gpu_model: str,
    *,
    marginal: bool,
    committed: int,
    kept: int = 0,
) -> list[dict[str, Any]]:
    """The recommended plan's stages: each with its month, action, GPU model, GPUs and why
    (first, when it keeps GPUs owned already, a "keep" row at month 0)."""
    if chosen != "cloud_only" and kept:
        keep = _keep_row(gpu_model, kept)
        rest = _chosen_stages(
            chosen, stages, world, decisions, gpu_model, marginal=marginal, committed=committed
        )
        return [keep, *rest]
    if chosen == "cloud_only":
        return [_rent_row(world, stages, gpu_model, marginal=marginal)]
    if chosen in ("commit_now", "own_peak"):
        return [_commit_row(world, decisions, gpu_model, committed)]
    return _own_rows(world, decisions, stages, gpu_model)


def _keep_row(gpu_model: str, kept: int) -> dict[str, Any]:
    """Keeping the `kept` GPUs owned already, from month 0."""
    return {
        "month": 0,
        "order_month": 0,
        "action": "keep",
        "gpu_model": gpu_model,
        "gpus": kept,
        "owned_gpus": kept,
        "required_by_data": False,
        "reason": gettext("The GPUs you own already run from month 0: nothing to buy."),
    }


def _rent_row(
    world: World, stages: list[Stage], gpu_model: str, *, marginal: bool
) -> dict[str, Any]:
    """Renting the peak throughout, and why: it costs least, owning is marginal, or the
    answers carry renting though the search's stages would cost less."""
    if not stages:
        reason = gettext("Renting throughout costs least.")
    elif marginal:
        reason = gettext(
            "Owning saves too little, or in too few of the draws, to be worth the "
            "commitment: the choices stay open."
        )
    else:
        reason = gettext(
            "The recommendation rents: the answers carry it, though owning in stages "
            "would cost less."
        )
    return {
        "month": 0,
        "action": "rent",
        "gpu_model": gpu_model,
        "gpus": int(world.nodes(float(world.peak[1:].max())) * world.per_node),
        "reason": reason,
    }


def _commit_row(
    world: World, decisions: list[int], gpu_model: str, committed: int
) -> dict[str, Any]:
    """Owning `committed` GPUs from the first month they can run (commit now, or the peak)."""
    lead = world.params["lead_time_months"]
    return {
        "month": decisions[0],
        "order_month": max(int(round(decisions[0] - lead)), 0),
        "action": "own",
        "gpu_model": gpu_model,
        "gpus": committed,
        "owned_gpus": committed,
        "required_by_data": False,
        "reason": gettext(
            "The recommendation owns GPUs: the answers carry it, though renting "
            "throughout would cost less."
        ),
    }


def _own_rows(
    world: World, decisions: list[int], stages: list[Stage], gpu_model: str
) -> list[dict[str, Any]]:
    """The search's purchases, each owned because the data may not leave or because it costs
    less than renting."""
    rows = []
    for i, stage in enumerate(stages):
        required = _required(world, decisions, stage, stages[i - 1] if i else None)
        rows.append(
            {
                "month": stage.month,
                "order_month": stage.ordered,
                "action": "own",
                "gpu_model": gpu_model,
                "gpus": stage.added_gpus,
                "owned_gpus": stage.owned_gpus,
                "required_by_data": required,
                "reason": gettext("The data may not leave the premises: owned GPUs must hold it.")
                if required
                else gettext("Owning these GPUs from this month costs less than renting them."),
            }
        )
    return rows


def _alternatives(
    chosen: str,
    present: Mapping[str, float | None],
    found: Mapping[str, Any] | None,
    rate: float,
    *,
    same_as_cloud: bool,
) -> list[dict[str, Any]]:
    """The plans the search weighed beside the chosen one: present value, and the share of
    the draws in which each costs less than the chosen plan (`same_as_cloud`: the search's
    plan owns nothing, so it is cloud only and not an alternative to it)."""
    shares = (found or {}).get("beats", {})
    return [
        {
            "plan": name,
            "present_value": round(value * rate, 2),
            "beats_chosen_pct": shares.get(chosen, {}).get(name),
        }
        for name, value in present.items()
        if name != chosen and value is not None and not (name == "staged" and same_as_cloud)
    ]


def _required(world: World, decisions: list[int], stage: Stage, before: Stage | None) -> bool:
    """Whether the stage is needed to hold the work whose data may not leave."""
    segment = segment_months(world, decisions)[decisions.index(stage.month)]
    floor = world.nodes(world.home_share * float(world.peak[segment].max())) * world.per_node
    return (before.owned_gpus if before else 0) < floor


def _saving(
    world: World,
    decisions: list[int],
    path: tuple[int, ...],
    index: int,
    stages: list[Stage],
) -> float:
    """What the plan would cost more without stage `index` (holding the level before it
    until the next stage)."""
    stage = stages[index]
    before = stages[index - 1].owned_gpus if index else 0
    until = stages[index + 1].month if index + 1 < len(stages) else world.months + 1
    changed = tuple(
        before if stage.month <= month < until else level
        for month, level in zip(decisions, path, strict=True)
    )
    return path_cost(world, decisions, changed) - path_cost(world, decisions, path)
