"""Cost model: owning GPUs, renting them, or owning a base and renting the bursts.

Plain data in, plain data out; no Django. Each formula is written once, in the
`_*_lines` builders below, as cash-flow lines (`decider.engine.cashflow`).
The searches (the hybrid's owned base, the cloud commitment, break-even,
sensitivity, cost per GPU-hour) only add the lines up; the monthly table,
present value and yearly sums spread the very same lines over the months.
All money is computed in USD and converted once, on the way out. What each
figure means (label, unit, bounds, source) is in `decider.engine.figures`.

Demand is a steady base plus bursts to a peak (`decider.engine.demand`).
Constraints bind the costs too: an outcome the rules exclude is priced but
never compared, and work whose data may not leave is never rented (no cloud
bridge while the hardware arrives, a hybrid that keeps that work at home).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

import numpy as np

from decider.engine.cashflow import (
    Line,
    amounts_frame,
    by_option,
    cashflow_frame,
    lines_monthly,
    lines_total,
    once,
    per_month,
    present_values,
    yearly,
)
from decider.engine.demand import SHAPE_BASE_SHARE, Demand
from decider.engine.figures import (
    FIGURE_NAMES,
    FIGURES,
    SENSITIVITY_NAMES,
    Figure,
    figures_as_dict,
    figures_values,
)
from decider.engine.markets import CURRENCIES, currency_rate
from decider.engine.outcomes import COST_OPTIONS
from decider.engine.reality import BUSY_FROM, utilization_check

if TYPE_CHECKING:
    import pandas as pd


class Repricing(Protocol):
    """The cost section's fixed plans priced again (engine/repricing.Repricing)."""

    def totals(
        self,
        utilization: float | None = None,
        *,
        changed: Mapping[str, float] | None = None,
        options: tuple[str, ...] = ...,
    ) -> dict[str, float]: ...

    def useful_hours(self, utilization: float) -> float: ...


HOURS_PER_MONTH = 730
OPTIONS = COST_OPTIONS
CLOUD_OPTIONS = ("cloud_on_demand", "cloud_reserved", "cloud_committed")
# Cost per useful GPU-hour is drawn at these average utilizations (%).
UTILIZATION_GRID_PCT: tuple[int, ...] = tuple(range(0, 101, 5))
DEMAND_SHAPES = SHAPE_BASE_SHARE

# Cheapest option must beat the runner-up by this share of the runner-up's
# present value for the verdict to be "clear".
CLEAR_GAP_PCT = 15.0
SENSITIVITY_STEP = 0.2
# Up to this many owned bases the hybrid curve shows every one; above, the turns and an
# even sample (a chart and a table of 12,500 points at 100,000 GPUs read no better).
HYBRID_CURVE_POINTS = 25
# The source's rule of thumb (§七): at or above 70 % average utilization owning
# is cheaper, at or below 30 % renting is.
# Above the first, a utilization published fleets rarely reach (engine/reality.py).
SELF_BUILD_FROM, CLOUD_UP_TO = BUSY_FROM, 0.30


# Ties between equally cheap options go to the smaller commitment.
_TIE_ORDER = ("cloud", "hybrid", "onprem")


@dataclass(frozen=True)
class CostAnswers:
    gpus: int  # GPUs at the peak
    utilization: float  # average, 0..1
    horizon_months: int
    dataset_tb: float
    has_datacenter: bool
    demand_shape: str = "moderate"  # used when base_gpus is not given
    base_gpus: float | None = (
        None  # GPUs busy around the clock; with it, utilization sets the bursts
    )
    team_fte: float = 0.0  # the infrastructure people the team already has
    cloud_share: float = 1.0  # share of the work whose data may run in the cloud, 0..1
    excluded: frozenset[str] = field(default_factory=frozenset)  # outcomes the rules exclude
    prices_in: str = "USD"  # the currency of the price set (its market's, markets.py)
    capex_available: bool = True  # False: the plan finances what it buys (engine/stages.py)
    cloud_fall_pct: float = 0.0  # a year: cloud GPU-hour prices this much lower each year
    workload: str = "training"  # which speed against an H100 counts: training or inference
    # Count the team the assessment already has at its loaded cost, in the options that
    # employ it (False: it is paid anyway, and only hires are costed).
    count_team: bool = False
    # The GPUs of this model already owned (the answers' `owned`), and their age today:
    # owning them needs no purchase and no bridge; an option that owns fewer sells the rest.
    fleet_gpus: int = 0
    fleet_age_years: float = 0.0
    fleet_others: tuple[tuple[str, int], ...] = ()  # (GPU model, GPUs) owned, not priced

    def __post_init__(self) -> None:
        if isinstance(self.gpus, bool) or not isinstance(self.gpus, int) or self.gpus < 1:
            raise ValueError(f"gpus must be an integer >= 1, got {self.gpus!r}")
        if not 0 <= self.utilization <= 1:
            raise ValueError(f"utilization must be within 0..1, got {self.utilization!r}")
        if not isinstance(self.horizon_months, int) or self.horizon_months < 1:
            raise ValueError(f"horizon_months must be an integer >= 1, got {self.horizon_months!r}")
        if self.prices_in not in CURRENCIES:
            raise ValueError(f"prices_in must be one of {CURRENCIES}, got {self.prices_in!r}")
        if not (math.isfinite(self.dataset_tb) and self.dataset_tb >= 0):
            raise ValueError(f"dataset_tb must be >= 0, got {self.dataset_tb!r}")
        if self.demand_shape not in DEMAND_SHAPES:
            raise ValueError(
                f"demand_shape must be one of {sorted(DEMAND_SHAPES)}, got {self.demand_shape!r}"
            )
        if self.base_gpus is not None and not (
            0 <= self.base_gpus <= self.gpus * self.utilization + 1e-9
        ):
            raise ValueError(
                f"base_gpus must be within 0 and the mean demand, got {self.base_gpus!r}"
            )
        if not (math.isfinite(self.team_fte) and self.team_fte >= 0):
            raise ValueError(f"team_fte must be >= 0, got {self.team_fte!r}")
        if not 0 <= self.cloud_share <= 1:
            raise ValueError(f"cloud_share must be within 0..1, got {self.cloud_share!r}")
        if not isinstance(self.fleet_gpus, int) or self.fleet_gpus < 0:
            raise ValueError(f"fleet_gpus must be an integer >= 0, got {self.fleet_gpus!r}")
        if not (math.isfinite(self.fleet_age_years) and self.fleet_age_years >= 0):
            raise ValueError(f"fleet_age_years must be >= 0, got {self.fleet_age_years!r}")

    @cached_property
    def demand(self) -> Demand:  # read hundreds of times per computation
        if self.base_gpus is None:
            return Demand.from_average(
                peak=self.gpus, utilization=self.utilization, shape=self.demand_shape
            )
        return Demand.from_base(peak=self.gpus, base=self.base_gpus, utilization=self.utilization)

    def at_utilization(self, utilization: float) -> CostAnswers:
        """The same plan with a steady demand at another average (for the per-hour curves)."""
        return replace(self, utilization=utilization, base_gpus=None, demand_shape="steady")


class _Plan(NamedTuple):
    """One way of meeting the demand: GPUs owned, and the cloud GPUs committed above them."""

    owned: int
    committed: int


# --- the pieces every option is made of ------------------------------------


def _nodes(params: Mapping[str, float], gpus: float) -> int:
    return math.ceil(gpus / params["gpus_per_node"]) if gpus > 0 else 0


def _on_demand_rate(params: Mapping[str, float]) -> float:
    """On demand, with the share of interruptible work on spot."""
    spot = params["spot_share"]
    return (1 - spot) * params["gpu_hour_on_demand"] + spot * params["gpu_hour_spot"]


def _commit_rate(params: Mapping[str, float], answers: CostAnswers) -> float:
    """A 3-year commitment when the plan runs 3 years or more, else 1-year."""
    return params[
        "gpu_hour_reserved_3y" if answers.horizon_months >= 36 else "gpu_hour_reserved_1y"
    ]


def _resale_share(params: Mapping[str, float], years: float) -> float:
    """What hardware of this age fetches, as a share of its price (a declining balance)."""
    if params["depreciation_years"] <= 0 or years > params["depreciation_years"]:
        return 0.0
    return float((1 - params["resale_decline"]) ** years)


def _staff(
    params: Mapping[str, float], answers: CostAnswers, *, owned_nodes: int, rented_nodes: int
) -> tuple[float, float]:
    """(FTE to hire for the owned cluster, FTE to hire for the cloud platform).

    An owned cluster needs at least `onprem_min_fte` whatever its size. The
    team the assessment already has covers the owned cluster first.
    """
    owned_need, cloud_need = _needs(params, owned_nodes=owned_nodes, rented_nodes=rented_nodes)
    team_left = max(answers.team_fte - owned_need, 0.0)
    return max(owned_need - answers.team_fte, 0.0), max(cloud_need - team_left, 0.0)


def _needs(
    params: Mapping[str, float], *, owned_nodes: int, rented_nodes: int
) -> tuple[float, float]:
    """(FTE an owned cluster needs, FTE a cloud platform needs)."""
    owned_need = (
        max(params["onprem_min_fte"], owned_nodes * params["onprem_fte"]) if owned_nodes else 0.0
    )
    return owned_need, rented_nodes * params["cloud_fte"]


def _team_employed(
    params: Mapping[str, float], answers: CostAnswers, *, owned_nodes: int, rented_nodes: int
) -> float:
    """FTE of the team the assessment already has that an option employs (the owned
    cluster first, then the cloud platform), when the answers count it; else 0: the
    people the option does not need are free for other work."""
    if not answers.count_team:
        return 0.0
    owned_need, cloud_need = _needs(params, owned_nodes=owned_nodes, rented_nodes=rented_nodes)
    on_owned = min(answers.team_fte, owned_need)
    return on_owned + min(answers.team_fte - on_owned, cloud_need)


def _staff_lines(
    params: Mapping[str, float], answers: CostAnswers, *, owned_nodes: int, rented_nodes: int
) -> tuple[list[Line], float]:
    """Hired people (paid from when they join) and their recruiting; and when owning can start."""
    months = answers.horizon_months
    owned_hires, cloud_hires = _staff(
        params, answers, owned_nodes=owned_nodes, rented_nodes=rented_nodes
    )
    joined = min(params["hiring_months"], months) if owned_hires or cloud_hires else 0.0
    team = _team_employed(params, answers, owned_nodes=owned_nodes, rented_nodes=rented_nodes)
    lines = [
        once("hiring", (owned_hires + cloud_hires) * params["hire_cost"]),
        per_month("staff", owned_hires * params["fte_cost"] / 12, joined, months),
        per_month("cloud_staff", cloud_hires * params["fte_cost"] / 12, joined, months),
        *([per_month("team", team * params["fte_cost"] / 12, 0, months)] if team else []),
    ]
    starts = max(params["lead_time_months"], joined if owned_hires else 0.0)
    return lines, min(starts, months)


def _owned_lines(
    params: Mapping[str, float],
    answers: CostAnswers,
    *,
    gpus: int,
    busy_gpus: float,
    starts: float,
) -> list[Line]:
    """Own `gpus` GPUs, on average `busy_gpus` of them busy, the ones bought in use from
    month `starts`; those already owned (the fleet, up to `gpus`) from month 0, with no
    purchase and no bridge, resold at the end for their age then."""
    p = params
    months = answers.horizon_months
    nodes = _nodes(p, gpus)
    kept = min(gpus, answers.fleet_gpus)
    kept_nodes = _nodes(p, kept)
    bought_nodes = max(nodes - kept_nodes, 0)
    per_node = p["server_price"] + p["network_per_node"]
    servers = bought_nodes * p["server_price"]
    network = bought_nodes * p["network_per_node"]
    # A cluster that runs already has its storage and its set-up.
    storage = 0.0 if kept else answers.dataset_tb * p["storage_capex_per_tb"]
    bought = servers + network + storage
    held = kept_nodes * per_node  # the fleet, at today's price of the same servers
    served_kept = answers.demand.split(kept)[0] if kept else 0.0
    # Until the hardware bought arrives, the work whose data may leave and the fleet cannot
    # hold runs on cloud GPUs; the rest waits.
    bridged = max(busy_gpus - served_kept, 0.0) * answers.cloud_share if bought_nodes else 0.0
    if not bought_nodes:
        starts = 0.0
    purchases = [
        once("servers", servers),
        once("network", network),
        once("storage", storage),
        once("spares", servers * p["spares_share"]),
        once("setup", 0.0 if kept else p["setup_cost"]),
    ]
    renewed, since = bought_nodes * per_node, starts if bought_nodes else months
    refreshes, resold = _renewals(
        p, answers, renewed=renewed, since=since, held=held, storage=storage
    )
    before_power, before_colo = _power_and_colocation(p, answers, kept_nodes, served_kept, kept)
    after_power, after_colo = _power_and_colocation(p, answers, nodes, busy_gpus, gpus)
    return [
        *(purchases if answers.capex_available else _financed(p, answers, purchases)),
        per_month("bridge", bridged * HOURS_PER_MONTH * _on_demand_rate(p), 0, starts),
        per_month("power", before_power, 0, starts),
        per_month("power", after_power, starts, months),
        per_month("colocation", before_colo, 0, starts),
        per_month("colocation", after_colo, starts, months),
        per_month("maintenance", p["maintenance_rate"] * held / 12, 0, starts),
        per_month("maintenance", p["maintenance_rate"] * (held + bought) / 12, starts, months),
        per_month("licences", kept * p["licence_gpu_year"] / 12, 0, starts),
        per_month("licences", gpus * p["licence_gpu_year"] / 12, starts, months),
        *refreshes,
        once("residual", -resold * p["residual_value"], months),
    ]


def _power_and_colocation(
    params: Mapping[str, float], answers: CostAnswers, count: int, busy: float, owned: int
) -> tuple[float, float]:
    """Power and colocation of `count` nodes a month, `busy` of `owned` GPUs busy."""
    p = params
    load = p["idle_share"] + (1 - p["idle_share"]) * (busy / owned) if owned else 0.0
    power = count * p["node_kw"] * load * p["pue"] * HOURS_PER_MONTH
    colo = 0.0 if answers.has_datacenter else count * p["node_kw"] * p["colo_kw_month"]
    return power * p["kwh_price"], colo


def _renewals(
    params: Mapping[str, float],
    answers: CostAnswers,
    *,
    renewed: float,
    since: float,
    held: float,
    storage: float,
) -> tuple[list[Line], float]:
    """(the refreshes, the resale at the end before the costs of selling) of the servers
    bought (worth `renewed`, running from `since`) and of the fleet kept (worth `held`), and
    of the `storage` bought. Servers are replaced at the end of their life
    (`depreciation_years`) when that comes within the horizon; what is resold at the end is
    the last of them, for its age then."""
    p = params
    months = answers.horizon_months
    refreshes = []
    resold = storage * _resale_share(p, months / 12)
    last = None
    for month in _refresh_months(p, since, months):
        refreshes.append(once("refresh", renewed * (1 + p["spares_share"]), month))
        last = month
    resold += renewed * _resale_share(p, (months - last if last is not None else months) / 12)
    last = None
    if answers.fleet_age_years < p["depreciation_years"]:  # past its life: runs on as it is
        for month in _refresh_months(p, -answers.fleet_age_years * 12, months):
            refreshes.append(once("refresh", held * (1 + p["spares_share"]), month))
            last = month
    age = answers.fleet_age_years + months / 12 if last is None else (months - last) / 12
    resold += held * _resale_share(p, age)
    return refreshes, resold


# A server's life is at least a year: a shorter one (an answer saved before the bound, say)
# is taken as a year, so that a horizon holds at most one refresh a year.
MIN_LIFE_MONTHS = 12


def life_months(params: Mapping[str, float]) -> float | None:
    """How long a server runs before it is replaced (`depreciation_years`), in months;
    None: never replaced (a life of 0, as older price sets may hold)."""
    life = params["depreciation_years"] * 12
    if not life > 0:
        return None
    return max(life, MIN_LIFE_MONTHS)


def _refresh_months(params: Mapping[str, float], since: float, months: int) -> list[float]:
    """The months servers running from `since` are replaced, each at the end of its life,
    within a horizon of `months` (engine/months.py's refresh_months, unrounded): at most
    one a year, whatever the figure says."""
    life = life_months(params)
    if life is None:
        return []
    return [float(month) for month in np.arange(since + life, months, life)]


def fleet_value(params: Mapping[str, float], answers: CostAnswers, gpus: int) -> float:
    """What `gpus` of the fleet fetch if sold today (USD, the price set's currency): their
    servers at today's price, aged on the resale curve, less the costs of selling."""
    nodes = _nodes(params, gpus)
    per_node = params["server_price"] + params["network_per_node"]
    share = _resale_share(params, answers.fleet_age_years)
    return nodes * per_node * share * params["residual_value"]


def _fleet_sale(params: Mapping[str, float], answers: CostAnswers, owned: int) -> list[Line]:
    """Sell today the fleet's GPUs a plan does not own (whole servers)."""
    fleet_nodes = _nodes(params, answers.fleet_gpus)
    sold_nodes = fleet_nodes - _nodes(params, min(owned, answers.fleet_gpus))
    if sold_nodes <= 0:
        return []
    per_node = params["server_price"] + params["network_per_node"]
    share = _resale_share(params, answers.fleet_age_years) * params["residual_value"]
    return [once("fleet_sale", -sold_nodes * per_node * share, 0)]


def _financed(
    params: Mapping[str, float], answers: CostAnswers, purchases: list[Line]
) -> list[Line]:
    """With no capital up front, the purchases as equal monthly instalments over the finance
    term at the finance rate, from month 1; instalments due after the horizon are one line
    at its end, valued at the cost of capital, so that the present value is the plan's
    (engine/months.py, finance_factor) whatever the horizon."""
    total = sum(line.amount for line in purchases)
    term = int(params["finance_term_months"])
    if term <= 0 or total <= 0:
        return purchases
    months = answers.horizon_months

    def annuity(yearly: float, count: int) -> float:
        monthly = (1 + yearly) ** (1 / 12) - 1
        return float(count) if monthly == 0 else (1 - (1 + monthly) ** -count) / monthly

    payment = total / annuity(params["finance_rate"], term)
    lines = [per_month("financing", payment, 0, min(term, months))]
    if term > months:
        later = payment * annuity(params["discount_rate"], term - months)
        lines.append(once("financing", later, months))
    return lines


def _commitment_cost(
    params: Mapping[str, float], answers: CostAnswers, low: float, high: float, committed: int
) -> float:
    """Monthly GPU cost of demand at `low` and `high` GPUs with `committed` GPUs committed."""
    q = answers.demand.peak_share
    overflow = (1 - q) * max(low - committed, 0.0) + q * max(high - committed, 0.0)
    return HOURS_PER_MONTH * (
        committed * _commit_rate(params, answers) + overflow * _on_demand_rate(params)
    )


def _best_commitment(params: Mapping[str, float], answers: CostAnswers, owned: int) -> int:
    """The committed block that costs least for the demand above `owned` GPUs.

    The cost is piecewise linear in the block with kinks at the two demand
    levels, so the best block is none, the base level or the peak level.
    """
    low, high = answers.demand.above(owned)
    candidates = sorted({0, math.floor(low), math.ceil(low), math.ceil(high)})
    return min(candidates, key=lambda c: (_commitment_cost(params, answers, low, high, c), c))


def _rented_lines(
    params: Mapping[str, float],
    answers: CostAnswers,
    *,
    owned: int,
    committed: int,
    one_gpu_line: bool = False,
) -> list[Line]:
    """Rent the demand above `owned` GPUs: `committed` GPUs paid every hour, the rest on demand.

    `one_gpu_line`: committed and on-demand hours as one "gpu" line (all-reserved cloud).
    """
    p = params
    months = answers.horizon_months
    low, high = answers.demand.above(owned)
    q = answers.demand.peak_share
    overflow = (1 - q) * max(low - committed, 0.0) + q * max(high - committed, 0.0)
    if owned <= 0 and committed == 0:
        overflow = answers.demand.mean  # exactly the mean, as the owned side counts it
    on_demand = overflow * HOURS_PER_MONTH * _on_demand_rate(p)
    reserved = committed * HOURS_PER_MONTH * _commit_rate(p, answers)
    gpu = (
        [per_month("gpu", on_demand + reserved, 0, months)]
        if one_gpu_line
        else [
            *([per_month("gpu_committed", reserved, 0, months)] if committed else []),
            per_month("gpu", on_demand, 0, months),
        ]
    )
    return [
        *gpu,
        per_month("cloud_storage", answers.dataset_tb * p["cloud_storage_tb_month"], 0, months),
        per_month("egress", p["egress_tb_month"] * p["egress_price_tb"], 0, months),
    ]


def _plan_lines(
    params: Mapping[str, float], answers: CostAnswers, plan: _Plan, *, one_gpu_line: bool = False
) -> list[Line]:
    """Every cost line of a plan: owned GPUs, cloud above them, people."""
    served, rented = answers.demand.split(plan.owned)
    rents = rented > 0 or plan.owned == 0
    staff, starts = _staff_lines(
        params,
        answers,
        owned_nodes=_nodes(params, plan.owned),
        rented_nodes=_nodes(params, answers.gpus - plan.owned) if rents else 0,
    )
    lines: list[Line] = _fleet_sale(params, answers, plan.owned)
    if plan.owned > 0:
        lines += _owned_lines(params, answers, gpus=plan.owned, busy_gpus=served, starts=starts)
    # With nothing owned, data and platform live in the cloud even if idle.
    if rents:
        lines += _rented_lines(
            params, answers, owned=plan.owned, committed=plan.committed, one_gpu_line=one_gpu_line
        )
    return lines + staff


def _option_lines(
    params: Mapping[str, float], answers: CostAnswers, option: str, plan: _Plan
) -> list[Line]:
    return _plan_lines(params, answers, plan, one_gpu_line=option == "cloud_reserved")


# --- the options ---------------------------------------------------------------


def _fixed_plans(answers: CostAnswers) -> dict[str, _Plan]:
    """The options that need no search."""
    return {
        "onprem": _Plan(answers.gpus, 0),
        "cloud_on_demand": _Plan(0, 0),
        # Reserving the whole peak around the clock, for the whole horizon.
        "cloud_reserved": _Plan(0, answers.gpus),
    }


def _plans(params: Mapping[str, float], answers: CostAnswers, hybrid: _Plan) -> dict[str, _Plan]:
    return _fixed_plans(answers) | {
        "cloud_committed": _Plan(0, _best_commitment(params, answers, 0)),
        "hybrid": hybrid,
    }


def _hybrid_floor(params: Mapping[str, float], answers: CostAnswers) -> int:
    """The fewest GPUs a hybrid may own: the work whose data may not leave stays at home."""
    return min(math.ceil((1 - answers.cloud_share) * answers.gpus - 1e-9), answers.gpus)


def hybrid_bases(params: Mapping[str, float], answers: CostAnswers) -> list[int]:
    """Every owned base the hybrid may choose: whole nodes from the floor, and the peak."""
    return [int(base) for base in _bases_array(params, answers)]


def _bases_array(params: Mapping[str, float], answers: CostAnswers) -> np.ndarray:
    """hybrid_bases, sorted and distinct as built: the floor (when not a whole node), the
    whole nodes from it up to below the peak, the peak."""
    step, peak = int(params["gpus_per_node"]), answers.gpus
    floor = _hybrid_floor(params, answers)
    first = -(-floor // step) * step
    head = [floor] if floor < min(first, peak) else []
    bases: np.ndarray = np.r_[head, np.arange(first, peak, step), peak].astype(int)
    return bases


def _hybrid_turns(params: Mapping[str, float], answers: CostAnswers) -> list[float]:
    """Where the hybrid total, a function of the owned GPUs, may change slope or jump.

    Between two whole-node bases every cost line is linear in the owned GPUs
    except at these points: the base demand level (the split, power and the
    rents-or-not switch), the owned size where committing the whole rented peak
    starts to beat renting it on demand, and the sizes where the people needed
    cross the minimum team, the team the assessment already has, or where the
    platform's people stop fitting in what the cluster leaves of the team
    (hires, and with them the hiring delay, start or stop).
    """
    step = params["gpus_per_node"]
    demand = answers.demand
    turns = [demand.base]
    committed, on_demand = _commit_rate(params, answers), _on_demand_rate(params)
    if committed != on_demand:
        turns.append((committed * demand.peak - on_demand * demand.mean) / (committed - on_demand))
    per_owned, per_rented = params["onprem_fte"], params["cloud_fte"]
    least, team = params["onprem_min_fte"], answers.team_fte
    all_nodes = _nodes(params, answers.gpus)
    nodes = []
    if per_owned > 0:
        nodes += [least / per_owned, team / per_owned]
    if per_rented > 0:
        nodes.append(all_nodes - max(team - least, 0.0) / per_rented)
    if per_owned != per_rented:
        nodes.append((team - all_nodes * per_rented) / (per_owned - per_rented))
    if answers.fleet_gpus:
        turns.append(answers.fleet_gpus)  # below it the fleet is sold, above it bought
    return turns + [n * step for n in nodes]


def _hybrid_search_bases(params: Mapping[str, float], answers: CostAnswers) -> list[int]:
    """The bases the search prices: those beside every turn, the two ends, and an even
    sample for the chart. Within a run of bases between two turns the total is linear,
    so its cheapest base is an end of the run: the cheapest of these is the cheapest
    of all (tests/test_costs.py checks it against every base)."""
    bases = _bases_array(params, answers)
    if len(bases) <= HYBRID_CURVE_POINTS:
        return [int(base) for base in bases]
    step = int(params["gpus_per_node"])
    low, high = int(bases[0]), int(bases[-1])
    picked = {low, high, int(bases[1]), int(bases[-2])}  # floor and peak may be part nodes
    for turn in _hybrid_turns(params, answers):
        if math.isfinite(turn):
            node = math.floor(turn / step)
            picked.update((node + k) * step for k in (-1, 0, 1, 2))
    sample = np.linspace(0, len(bases) - 1, HYBRID_CURVE_POINTS).round().astype(int)
    picked.update(int(base) for base in bases[sample])
    return sorted(b for b in picked if low <= b <= high and (b % step == 0 or b in (low, high)))


def _hybrid_curve(
    params: Mapping[str, float], answers: CostAnswers, bases: Iterable[int] | None = None
) -> list[tuple[_Plan, float]]:
    """Total cost for each owned base (by default the search's), the cloud mix above it
    chosen best."""
    curve = []
    for gpus in _hybrid_search_bases(params, answers) if bases is None else bases:
        plan = _Plan(gpus, _best_commitment(params, answers, gpus) if gpus < answers.gpus else 0)
        curve.append((plan, lines_total(_plan_lines(params, answers, plan))))
    return curve


def _hybrid_best(curve: list[tuple[_Plan, float]]) -> _Plan:
    best_plan, best_total = curve[0]
    for plan, total in curve[1:]:
        # A relative tolerance so float noise never beats a pure option.
        if total < best_total - 1e-9 * max(1.0, abs(best_total)):
            best_plan, best_total = plan, total
    return best_plan


def _hybrid_mix(answers: CostAnswers, plan: _Plan) -> str | None:
    """What a hybrid plan really is: None when it mixes, else the pure option it reduces to."""
    if plan.owned <= 0:
        return "cloud"
    return "onprem" if answers.demand.split(plan.owned)[1] <= 1e-9 else None


def _compared(answers: CostAnswers, hybrid_mix: str | None) -> list[str]:
    """The outcomes priced as a choice: allowed by the rules and possible with the data."""
    allowed = [
        "onprem",
        *(["cloud"] if answers.cloud_share >= 1 else []),
        *(["hybrid"] if hybrid_mix is None else []),
    ]
    return [outcome for outcome in allowed if outcome not in answers.excluded]


# --- searches over the totals --------------------------------------------


def _gap(params: Mapping[str, float], answers: CostAnswers) -> float:
    """On-prem total minus cloud on-demand total over the horizon (USD)."""
    onprem = lines_total(_plan_lines(params, answers, _Plan(answers.gpus, 0)))
    return onprem - lines_total(_plan_lines(params, answers, _Plan(0, 0)))


def _utilization_turns(answers: CostAnswers) -> list[float]:
    """The utilizations between which every total is linear in the utilization (steady
    demand: power, bridge and rented hours scale with it): the ends, and where the mean
    passes the GPUs owned already (what they cannot hold is bridged)."""
    turns = [0.0, 1.0]
    if 0 < answers.fleet_gpus < answers.gpus:
        turns.insert(1, answers.fleet_gpus / answers.gpus)
    return turns


def _break_even_utilization(params: Mapping[str, float], answers: CostAnswers) -> float | None:
    # Both totals are linear between the turns, so the turns give the lines.
    turns = _utilization_turns(answers)
    gaps = [_gap(params, answers.at_utilization(u)) for u in turns]
    for (u0, g0), (u1, g1) in itertools.pairwise(zip(turns, gaps, strict=True)):
        slope = g1 - g0
        if abs(slope) <= 1e-12 * max(1.0, abs(g0) + abs(g1)):
            continue  # level: the same everywhere or nowhere on it
        utilization = u0 - g0 * (u1 - u0) / slope
        if u0 - 1e-12 <= utilization <= u1 + 1e-12:
            return min(max(utilization, 0.0), 1.0)
    return None


Gap = Callable[[Mapping[str, float]], float]


def _moved(name: str, value: float, step: float) -> float:
    """The figure `step` (a share) higher or lower, within what it may be set to (a resale
    that declines by all of it each year declines no faster)."""
    spec = FIGURES[name]
    moved = max(value * (1 + step), spec.min)
    return moved if spec.max is None else min(moved, spec.max)


def _sensitivity(params: Mapping[str, float], gap: Gap) -> list[tuple[str, float, float]]:
    """How far `gap` (on-prem's total less renting on demand's, under some figures) moves
    with each figure 20 % lower and higher, the widest first."""
    base = gap(params)
    rows = []
    for name in SENSITIVITY_NAMES:
        value = params[name]
        if value == 0:
            continue
        low = gap({**params, name: _moved(name, value, -SENSITIVITY_STEP)}) - base
        high = gap({**params, name: _moved(name, value, SENSITIVITY_STEP)}) - base
        rows.append((name, low, high))
    rows.sort(key=lambda row: max(abs(row[1]), abs(row[2])), reverse=True)
    return rows


PER_HOUR_OPTIONS = ("onprem", "cloud_on_demand", "cloud_reserved")


def _per_hour(params: Mapping[str, float], answers: CostAnswers) -> dict[str, list[float | None]]:
    """Total cost over the horizon per useful GPU-hour, utilization 0..100 % in steps of 5,
    as the closed forms price today's demand (only when nothing owned arrives in time: else
    _plans_per_hour)."""
    curves: dict[str, list[float | None]] = {key: [] for key in PER_HOUR_OPTIONS}
    hours = [
        answers.gpus * HOURS_PER_MONTH * pct / 100 * answers.horizon_months
        for pct in UTILIZATION_GRID_PCT
    ]
    # Each total is linear in the utilization between the turns (steady demand: power,
    # bridge and rented hours scale with it, the rest does not), so the turns give the lines,
    # as for the break-even; tests/test_costs.py checks it against pricing every point.
    turns = _utilization_turns(answers)
    at_turns = {
        key: [
            lines_total(_option_lines(params, at, key, _fixed_plans(at)[key]))
            for at in (answers.at_utilization(u) for u in turns)
        ]
        for key in curves
    }
    for pct, useful_hours in zip(UTILIZATION_GRID_PCT, hours, strict=True):
        for key, values in curves.items():
            total = float(np.interp(pct / 100, turns, at_turns[key]))
            values.append(total / useful_hours if useful_hours else None)
    return curves


def _migration(params: Mapping[str, float], answers: CostAnswers) -> tuple[float, float | None]:
    cost = answers.dataset_tb * params["egress_price_tb"]
    if params["transfer_gbps"] == 0:
        return cost, None
    seconds = answers.dataset_tb * 8e12 / (params["transfer_gbps"] * 1e9)
    return cost, seconds / 86400


def _rate(params: Mapping[str, float], answers: CostAnswers, currency: str) -> float:
    if currency not in CURRENCIES:
        raise ValueError(f"currency must be one of {CURRENCIES}, got {currency!r}")
    return currency_rate(params, prices_in=answers.prices_in, shown_in=currency)


def h100_equivalent(params: Mapping[str, float], workload: str) -> float:
    """How many H100s one GPU of the chosen model is worth for this workload: inference
    serving counts its inference speed, training and fine-tuning their training speed, a
    mix the mean of the two."""
    train, infer = params["perf_train_vs_h100"], params["perf_infer_vs_h100"]
    if workload == "inference":
        return infer
    return (train + infer) / 2 if workload == "mixed" else train


# The lines priced by the cloud GPU-hour: they follow its yearly fall (the plan's path).
CLOUD_PRICED = ("gpu", "gpu_committed", "bridge")


def price_path(answers: CostAnswers) -> dict[str, np.ndarray] | None:
    """The cloud price over the horizon, × today's, for each line priced by it (None when
    prices are held): (1 - fall) ** (month / 12), as engine/future.py's Future prices it."""
    if not answers.cloud_fall_pct:
        return None
    months = np.arange(answers.horizon_months + 1, dtype=float)
    factor = (1 - answers.cloud_fall_pct / 100) ** (months / 12)
    return dict.fromkeys(CLOUD_PRICED, factor)


def cloud_present_value(*, answers: CostAnswers, figures: Mapping[str, Figure]) -> float:
    """The cloud's present value at its cheapest pricing mode, in the price set's currency,
    on today's demand: what ranks the providers (engine/providers.py) without the rest of
    the cost model."""
    params = figures_values(figures)
    plans = _fixed_plans(answers) | {
        "cloud_committed": _Plan(0, _best_commitment(params, answers, 0))
    }
    months = answers.horizon_months
    discount = (1.0 + params["discount_rate"]) ** (-np.arange(months + 1) / 12)
    path = price_path(answers)
    return min(
        float(lines_monthly(lines, months, path=path).sum(axis=0) @ discount)
        for lines in (_option_lines(params, answers, o, plans[o]) for o in CLOUD_OPTIONS)
    )


def _cashflow(params: Mapping[str, float], answers: CostAnswers, hybrid: _Plan) -> pd.DataFrame:
    """Monthly cash flow in USD (rows: months 0..H) per option and cost line, unrounded."""
    plans = _plans(params, answers, hybrid)
    lines = {option: _option_lines(params, answers, option, plans[option]) for option in OPTIONS}
    return cashflow_frame(lines, answers.horizon_months, path=price_path(answers))


# --- verdict -------------------------------------------------------------


def _outcome_amounts(amounts: Mapping[str, float], reduces_to: str | None) -> dict[str, float]:
    return {key: float(value) for key, value in outcome_amounts(amounts, reduces_to).items()}


def _rank(
    amounts: Mapping[str, float], compared: Iterable[str], reduces_to: str | None = None
) -> tuple[str | None, str | None, float | None]:
    """(cheapest, runner-up, gap % of the runner-up's amount) among the compared outcomes."""
    candidates = _outcome_amounts(amounts, reduces_to)
    ranked = sorted(compared, key=lambda key: (candidates[key], _TIE_ORDER.index(key)))
    if len(ranked) < 2:
        return (ranked[0] if ranked else None), None, None
    cheapest, runner_up = ranked[0], ranked[1]
    runner = candidates[runner_up]
    gap = (runner - candidates[cheapest]) / runner * 100 if runner > 0 else 0.0
    return cheapest, runner_up, gap


def cost_order(costs: Mapping[str, Any]) -> list[str]:
    """The compared outcomes, cheapest present value first (breaks a tie on points)."""
    candidates = _outcome_amounts(costs["present_value"], costs.get("hybrid_reduces_to"))
    return sorted(
        costs["options_compared"], key=lambda key: (candidates[key], _TIE_ORDER.index(key))
    )


def cost_verdict(costs: Mapping[str, Any]) -> str | None:
    """The cost criterion's answer: "<cheapest>_clear" when it beats the runner-up by at least
    15 % of the runner-up's present value, else "<cheapest>_slight"; None when fewer than two
    outcomes are compared (nothing to choose between on cost)."""
    cheapest, _runner, gap = _rank(
        costs["present_value"], costs["options_compared"], costs.get("hybrid_reduces_to")
    )
    if cheapest is None or gap is None:
        return None
    return f"{cheapest}_clear" if gap >= CLEAR_GAP_PCT - 1e-9 else f"{cheapest}_slight"


# The cloud mode the rule of thumb compares (the cheapest), and the gap between owning and
# it under some figures.
GapTo = Callable[[str], Gap]


def _against_rule_of_thumb(
    params: Mapping[str, float],
    answers: CostAnswers,
    cheapest: str | None,
    totals: Mapping[str, float],
    gap_to: GapTo,
) -> dict[str, Any] | None:
    """When the costs run against the source's 30 % / 70 % rule: which figure makes it so.

    That figure is the one whose ±20 % moves the gap between the two most: on-prem's total
    less the cheapest cloud mode's (`gap_to(mode)`: that gap under some figures).
    """
    u = answers.demand.utilization
    expected = "onprem" if u >= SELF_BUILD_FROM else "cloud" if u <= CLOUD_UP_TO else None
    opposite = {"onprem": "cloud", "cloud": "onprem"}
    if expected is None or cheapest != opposite[expected]:
        return None
    cloud = min(CLOUD_OPTIONS, key=totals.__getitem__)
    gap = gap_to(cloud)
    base = gap(params)
    candidates = {*SENSITIVITY_NAMES, *(n for n, spec in FIGURES.items() if spec.kind == "money")}
    moves = {
        name: max(
            abs(gap({**params, name: _moved(name, params[name], d)}) - base)
            for d in (-SENSITIVITY_STEP, SENSITIVITY_STEP)
        )
        for name in sorted(candidates)
        if params[name]
    }
    return {
        "utilization_pct": round(u * 100, 1),
        "expected": expected,
        "cheapest": cheapest,
        "cloud_mode": cloud,
        "figure": max(moves, key=moves.__getitem__) if moves else None,
    }


def _closed_gap_to(answers: CostAnswers, plans: Mapping[str, _Plan]) -> GapTo:
    """The closed forms' gap between owning and a cloud mode (nothing owned in time)."""

    def gap_to(mode: str) -> Gap:
        def gap(values: Mapping[str, float]) -> float:
            return lines_total(_plan_lines(values, answers, plans["onprem"])) - lines_total(
                _plan_lines(values, answers, plans[mode])
            )

        return gap

    return gap_to


# --- the public entry point ----------------------------------------------


def costs_compute(
    *, answers: CostAnswers, figures: Mapping[str, Figure], currency: str = "USD"
) -> dict[str, Any]:
    """Everything the pages, charts, the API and the rule engine read of the costs."""
    params = figures_values(figures)
    rate = _rate(params, answers, currency)

    def money(value: float | None) -> float | None:
        return None if value is None else round(float(value) * rate, 2)

    curve = _hybrid_curve(params, answers)
    hybrid = _hybrid_best(curve)
    frame = _cashflow(params, answers, hybrid)
    monthly = by_option(frame)
    present = {
        option: money(v) for option, v in present_values(monthly, params["discount_rate"]).items()
    }
    ranking = _ranking(answers, present, _hybrid_mix(answers, hybrid))
    costs: dict[str, Any] = {
        "currency": currency,
        "horizon_months": answers.horizon_months,
        **_totals(monthly, money),
        "present_value": present,
        "discount_rate": params["discount_rate"],
        "yearly": {
            option: [money(v) for v in values] for option, values in yearly(monthly).items()
        },
        "breakdown": _breakdown(frame, money),
        **_break_even(monthly.cumsum(), _break_even_utilization(params, answers)),
        **_demand_facts(params, answers, hybrid),
        "hybrid_curve": {
            "owned_gpus": [plan.owned for plan, _ in curve],
            "total": [money(t) for _, t in curve],
        },
        **ranking,
        "sensitivity": _sensitivity_facts(params, lambda values: _gap(values, answers), money),
        "against_rule_of_thumb": _against_rule_of_thumb(
            params,
            answers,
            ranking["cheapest"],
            _plain_totals(monthly),
            _closed_gap_to(answers, _plans(params, answers, hybrid)),
        ),
        "migration": _migration_facts(params, answers, money),
        "owned_per_used_gpu_hour": None,  # read off on-prem's plan (_ranked_on)
        "assumptions": figures_as_dict(
            {name: figures[name] for name in FIGURE_NAMES}, answers.prices_in
        ),
        "prices_in": answers.prices_in,
        # No capital up front: what is owned is bought in instalments (_financed).
        "financing": None
        if answers.capex_available
        else {"rate": params["finance_rate"], "term_months": int(params["finance_term_months"])},
        **_per_hour_facts(params, answers, money, _per_hour(params, answers)),
        **_fleet_facts(params, answers, money),
    }
    costs["cheapest_cloud_mode"] = min(CLOUD_OPTIONS, key=costs["totals"].__getitem__)
    costs["verdict"] = cost_verdict(costs)
    costs["estimated_prices"] = _estimated_prices(figures, answers, costs)
    return costs


def present_values_of(
    *, answers: CostAnswers, figures: Mapping[str, Figure], currency: str = "USD"
) -> dict[str, Any]:
    """Each option's present value and the outcomes compared, as costs_compute gives them,
    without the facts around them (a tenth of its time): for pricing the same demand at
    other sizes (engine/hosted.py)."""
    params = figures_values(figures)
    rate = _rate(params, answers, currency)
    hybrid = _hybrid_best(_hybrid_curve(params, answers))
    monthly = by_option(_cashflow(params, answers, hybrid))
    present = {
        option: round(float(v) * rate, 2)
        for option, v in present_values(monthly, params["discount_rate"]).items()
    }
    reduces_to = _hybrid_mix(answers, hybrid)
    return {
        "present_value": present,
        "options_compared": _compared(answers, reduces_to),
        "hybrid_reduces_to": reduces_to,
    }


def plans_present_values(
    planned: OptionPlans,
    *,
    figures: Mapping[str, Figure],
    answers: CostAnswers,
    grows: bool,
    currency: str = "USD",
) -> dict[str, Any]:
    """Each option's present value and the outcomes compared, as costs_over_future gives
    them for the same plans, without the rest of the section: for pricing the same answers
    at other volumes (engine/hosted.py)."""
    params = figures_values(figures)
    rate = _rate(params, answers, currency)
    months = np.arange(answers.horizon_months + 1, dtype=float)
    factor = (1.0 + params["discount_rate"]) ** (-months / 12)
    present = {
        option: round(float((sum(planned.lines[option].values()) * factor).sum()) * rate, 2)
        for option in OPTIONS
    }
    compared, reduces_to = planned.compared(answers, grows=grows)
    return {
        "present_value": present,
        "options_compared": compared,
        "hybrid_reduces_to": reduces_to,
    }


def _ranking(
    answers: CostAnswers, present: Mapping[str, float | None], reduces_to: str | None
) -> dict[str, Any]:
    """The outcomes compared, the cheapest of them, the runner-up and the gap between the
    two (% of the runner-up's present value)."""
    compared = _compared(answers, reduces_to)
    cheapest, runner_up, gap = _rank(cast(dict[str, float], present), compared, reduces_to)
    return {
        "options_compared": compared,
        "cheapest": cheapest,
        "runner_up": runner_up,
        "cheapest_gap_pct": None if gap is None else round(gap, 2),
        # The gap the verdict is read from (engine/verdict.py), the same figure by its role.
        "verdict_gap_pct": None if gap is None else round(gap, 2),
    }


def _sensitivity_facts(
    params: Mapping[str, float], gap: Gap, money: Callable[[float], float | None]
) -> list[dict[str, Any]]:
    """How much the gap moves with each figure 20 % lower and higher, the widest first."""
    return [
        {"name": name, "low": money(low), "high": money(high)}
        for name, low, high in _sensitivity(params, gap)
    ]


def _per_hour_facts(
    params: Mapping[str, float],
    answers: CostAnswers,
    money: Callable[[float | None], float | None],
    curves: Mapping[str, list[float | None]],
) -> dict[str, Any]:
    """The cost per useful GPU-hour at each utilization of the grid (`curves`, per GPU-hour
    of this model). Per useful H100-equivalent hour: a slower card is not flattered."""
    equivalent = h100_equivalent(params, answers.workload)
    return {
        "h100_equivalent": round(equivalent, 4),
        "per_hour": {
            "utilization_pct": list(UTILIZATION_GRID_PCT),
            **{
                key: [money(None if value is None else value / equivalent) for value in values]
                for key, values in curves.items()
            },
        },
    }


def _fleet_facts(
    params: Mapping[str, float], answers: CostAnswers, money: Callable[[float], float | None]
) -> dict[str, Any]:
    """The GPUs of this model owned already and what they fetch today (None: none), and
    those of other models, which are not priced."""
    return {
        "fleet": {
            "gpus": answers.fleet_gpus,
            "age_years": round(answers.fleet_age_years, 2),
            "value_today": money(fleet_value(params, answers, answers.fleet_gpus)),
        }
        if answers.fleet_gpus
        else None,
        "fleet_not_priced": [
            {"gpu_model": model, "gpus": gpus} for model, gpus in answers.fleet_others
        ],
    }


def _estimated_prices(
    figures: Mapping[str, Figure], answers: CostAnswers, costs: Mapping[str, Any]
) -> list[str]:
    """The cloud prices that price the cheapest cloud and are estimates, not published."""
    return [
        name
        for name in _priced_by(costs["cheapest_cloud_mode"], answers, costs)
        if figures[name].estimated
    ]


def _priced_by(option: str, answers: CostAnswers, costs: Mapping[str, Any]) -> list[str]:
    """The GPU-hour price figures a cloud option is priced at (a committed block of none is
    on demand only)."""
    term = "gpu_hour_reserved_3y" if answers.horizon_months >= 36 else "gpu_hour_reserved_1y"
    if option == "cloud_reserved":
        return [term]
    if option == "cloud_committed" and costs["cloud_committed_gpus"]:
        return [term, "gpu_hour_on_demand"]
    return ["gpu_hour_on_demand"]


def useful_gpu_hours(answers: CostAnswers, base: np.ndarray, peak: np.ndarray) -> float:
    """The GPU-hours of work done in months 1..N of a demand path (`base` and `peak` per
    month, index 0 the month before any work): the base all the time, the peak for its share
    of it, as the month model serves them (months._running_lines)."""
    share = answers.demand.peak_share
    mean = (1 - share) * np.asarray(base)[1:] + share * np.asarray(peak)[1:]
    return round(float(mean.sum()) * HOURS_PER_MONTH, 2)


@dataclass(frozen=True)
class OptionPlans:
    """The cost section's options as the plan prices them (stages.future_lines): each
    option's monthly lines over the answers' future, held or growing, and what else reads
    the same plans."""

    lines: Mapping[str, Mapping[str, np.ndarray]]
    own: tuple[int, ...]  # on-prem's GPUs over the decision months: the peak, when it can
    hybrid: tuple[int, ...]  # the hybrid's: the search's stages, or the cheapest that owns
    staged_owns: bool  # whether the search's cheapest plan owns any (else: the cloud's mix)
    # The hybrid's total and present value per level owned throughout (its own level among
    # them), and the totals at another utilization: the hybrid curve and the cost per useful
    # GPU-hour by utilization while demand is held.
    curve: tuple[tuple[int, float, float], ...] = ()
    repricing: Repricing | None = None  # the fixed plans priced again (engine/repricing.py)
    decisions: tuple[int, ...] = ()  # the months a plan may change what it owns
    # The GPUs the cloud committed and the hybrid commit to in their first month renting.
    committed: Mapping[str, int] = field(default_factory=dict)
    # The GPU-hours of work on-prem's owned GPUs do: the months after they arrive.
    owned_hours: float = 0.0

    def compared(self, answers: CostAnswers, *, grows: bool) -> tuple[list[str], str | None]:
        """The outcomes compared, and the pure option the hybrid reduces to (None: a real
        mix; as demand grows, a hybrid that owns nothing today may own later: compared)."""
        reduces_to = None if grows else _levels_mix(self)
        return _compared(answers, reduces_to), reduces_to


def costs_over_future(
    costs: Mapping[str, Any],
    planned: OptionPlans,
    *,
    figures: Mapping[str, Figure],
    answers: CostAnswers,
    useful_hours: float,
    grows: bool,
    currency: str = "USD",
) -> dict[str, Any]:
    """The cost section as the plan prices it (`planned`), for every figure read off the
    cash flow (totals, present values, yearly, breakdown, break-even, the ranking and the
    verdict), with the GPU-hours of work the same months do (`useful_hours`), which each
    total is spread over. As demand grows, no one level stands for the hybrid (no curve),
    and the per-hour curves and the sensitivity are today's demand's."""
    params = figures_values(figures)
    rate = _rate(params, answers, currency)

    def money(value: float | None) -> float | None:
        return None if value is None else round(float(value) * rate, 2)

    frame = amounts_frame({option: planned.lines[option] for option in OPTIONS})
    monthly = by_option(frame)
    present = {
        option: money(v) for option, v in present_values(monthly, params["discount_rate"]).items()
    }
    compared, reduces_to = planned.compared(answers, grows=grows)
    cheapest, runner_up, gap = _rank(cast(dict[str, float], present), compared)
    shown: dict[str, Any] = {
        **costs,
        **_totals(monthly, money),
        "present_value": present,
        "yearly": {
            option: [money(v) for v in values] for option, values in yearly(monthly).items()
        },
        "breakdown": _lines_kept(_breakdown(frame, money), costs["breakdown"]),
        "break_even_month": _break_even(monthly.cumsum(), None)["break_even_month"],
        "options_compared": compared,
        "hybrid_reduces_to": reduces_to,
        "hybrid_owned_gpus": max(planned.hybrid, default=0),
        "hybrid_curve": None
        if grows or not planned.curve
        else {
            "owned_gpus": [level for level, _total, _present in planned.curve],
            "total": [money(total) for _level, total, _present in planned.curve],
            # What the plan weighs: its cheapest point is the hybrid's own.
            "present_value": [money(present) for _level, _total, present in planned.curve],
        },
        "cheapest": cheapest,
        "runner_up": runner_up,
        "cheapest_gap_pct": None if gap is None else round(gap, 2),
        "verdict_gap_pct": None if gap is None else round(gap, 2),
        "demand_grows": grows,
        "useful_gpu_hours": useful_hours,
    }
    if planned.repricing is not None:
        shown |= _plans_reread(params, answers, planned.repricing, money, shown)
    return _ranked_on(shown, planned, figures, answers)


def _ranked_on(
    shown: dict[str, Any],
    planned: OptionPlans,
    figures: Mapping[str, Figure],
    answers: CostAnswers,
) -> dict[str, Any]:
    """The facts read off the section's plans once they are priced: the GPUs committed,
    the cheapest cloud mode, the verdict, the estimated prices it stands on."""
    owning = shown["totals"]["onprem"] - (shown["breakdown"]["onprem"].get("bridge") or 0.0)
    # Owning's own cost per GPU-hour of work (of this model, not per H100-equivalent):
    # on-prem's plan less the rent while the servers arrive, over the hours they work.
    shown["owned_per_used_gpu_hour"] = (
        round(owning / planned.owned_hours, 4) if planned.owned_hours > 0 else None
    )
    if planned.committed:
        shown["cloud_committed_gpus"] = planned.committed["cloud_committed"]
        shown["hybrid_committed_gpus"] = planned.committed["hybrid"]
    shown["cheapest_cloud_mode"] = min(CLOUD_OPTIONS, key=shown["totals"].__getitem__)
    shown["verdict"] = cost_verdict(shown)
    shown["estimated_prices"] = _estimated_prices(figures, answers, shown)
    return shown


def _plans_reread(
    params: Mapping[str, float],
    answers: CostAnswers,
    repricing: Repricing,
    money: Callable[[float | None], float | None],
    shown: Mapping[str, Any],
) -> dict[str, Any]:
    """What the cost section reads of its fixed plans priced again (engine/repricing.py):
    the cost per useful GPU-hour by utilization (each total over the GPU-hours of work of
    the same months, demand held or growing), the utilization at which on-prem and renting
    on demand cost the same, how far their gap moves with each figure, and the rule of
    thumb's check."""
    grid = [
        (pct / 100, repricing.totals(pct / 100), repricing.useful_hours(pct / 100))
        for pct in UTILIZATION_GRID_PCT
    ]
    curves: dict[str, list[float | None]] = {
        key: [totals[key] / hours if hours else None for _u, totals, hours in grid]
        for key in PER_HOUR_OPTIONS
    }

    def gap_to(mode: str) -> Gap:
        def gap(values: Mapping[str, float]) -> float:
            changed = {name: v for name, v in values.items() if params.get(name) != v}
            totals = repricing.totals(changed=changed, options=("onprem", mode))
            return totals["onprem"] - totals[mode]

        return gap

    utilization = _plans_break_even(repricing, [(u, totals) for u, totals, _h in grid])
    cloud_totals = {mode: float(shown["totals"][mode]) for mode in CLOUD_OPTIONS}
    return {
        **_per_hour_facts(params, answers, money, curves),
        "break_even_utilization_pct": None if utilization is None else round(utilization * 100, 2),
        "sensitivity": _sensitivity_facts(params, gap_to("cloud_on_demand"), money),
        "against_rule_of_thumb": _against_rule_of_thumb(
            params, answers, shown["cheapest"], cloud_totals, gap_to
        ),
    }


def _plans_break_even(
    repricing: Repricing, grid: list[tuple[float, Mapping[str, float]]]
) -> float | None:
    """The lowest utilization at which on-prem's plan costs no more than renting on demand
    throughout, found between the grid's points where the gap changes sign; None when it
    never does."""
    pair = ("onprem", "cloud_on_demand")

    def gap(utilization: float) -> float:
        totals = repricing.totals(utilization, options=pair)
        return totals["onprem"] - totals["cloud_on_demand"]

    points = [(u, totals["onprem"] - totals["cloud_on_demand"]) for u, totals in grid]
    for (u0, g0), (u1, g1) in itertools.pairwise(points):
        if g0 == 0:
            return u0
        if (g0 > 0) != (g1 > 0) or g1 == 0:
            return _crossing(gap, (u0, g0), (u1, g1))
    return None


def _crossing(
    gap: Callable[[float], float], low: tuple[float, float], high: tuple[float, float]
) -> float:
    """Where `gap` crosses zero between two points either side (the Illinois method: the
    plans' totals are nearly straight between the grid's points, so a step or two)."""
    (u0, g0), (u1, g1) = low, high
    close = 1e-7 * (abs(g0) + abs(g1))
    side = 0
    u = u0
    for _step in range(12):
        u = u0 - g0 * (u1 - u0) / (g1 - g0)
        g = gap(u)
        if abs(g) <= close or u1 - u0 < 1e-7:
            break
        if (g > 0) == (g0 > 0):
            u0, g0 = u, g
            g1 = g1 / 2 if side == -1 else g1
            side = -1
        else:
            u1, g1 = u, g
            g0 = g0 / 2 if side == 1 else g0
            side = 1
    return min(max(u, 0.0), 1.0)


def _lines_kept(
    breakdown: dict[str, dict[str, float | None]], named: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, float | None]]:
    """The plan's lines, with every line `named` (today's breakdown of the same option)
    that the plan does not pay at zero (a script reading a line finds it), and none that
    is zero and not named (the cloud pays no power)."""
    for option, lines in breakdown.items():
        breakdown[option] = {
            line: amount
            for line, amount in lines.items()
            if amount or line in named.get(option, {})
        } | {line: 0.0 for line in named.get(option, {}) if line not in lines}
    return breakdown


def _levels_mix(planned: OptionPlans) -> str | None:
    """What the hybrid plan really is (as _hybrid_mix for one level): the cloud when the
    cheapest plan owns nothing, on-prem when it owns the peak throughout, else None."""
    if not planned.staged_owns or max(planned.hybrid, default=0) <= 0:
        return "cloud"
    if all(h >= o for h, o in zip(planned.hybrid, planned.own, strict=True)):
        return "onprem"
    return None


@dataclass(frozen=True)
class Chosen:
    """The plans the cost model chose for each option, what it compares, and how it ranks
    them: what another reckoning over the same plans needs (engine/odds.py)."""

    plans: Mapping[str, _Plan]
    compared: list[str]
    reduces_to: str | None
    rate: float  # USD (or the price set's currency) to the currency shown

    def lines(self, params: Mapping[str, float], answers: CostAnswers, option: str) -> list[Line]:
        """The option's cost lines for its chosen plan, under other figures or demand."""
        return _option_lines(params, answers, option, self.plans[option])


def costs_chosen(
    *, answers: CostAnswers, figures: Mapping[str, Figure], currency: str = "USD"
) -> Chosen:
    params = figures_values(figures)
    hybrid = _hybrid_best(_hybrid_curve(params, answers))
    reduces_to = _hybrid_mix(answers, hybrid)
    return Chosen(
        plans=_plans(params, answers, hybrid),
        compared=_compared(answers, reduces_to),
        reduces_to=reduces_to,
        rate=_rate(params, answers, currency),
    )


def outcome_amounts(amounts: Mapping[str, Any], reduces_to: str | None) -> dict[str, Any]:
    """Per outcome (onprem, cloud, hybrid) from per-option amounts, floats or arrays of
    draws: cloud at its cheapest pricing mode, a hybrid that is really a pure option counted
    as that option."""
    cloud = amounts[CLOUD_OPTIONS[0]]
    for option in CLOUD_OPTIONS[1:]:
        cloud = np.minimum(cloud, amounts[option])
    candidates = {"onprem": amounts["onprem"], "cloud": cloud, "hybrid": amounts["hybrid"]}
    if reduces_to is not None:
        candidates[reduces_to] = np.minimum(candidates[reduces_to], amounts["hybrid"])
    return candidates


TIE_ORDER = _TIE_ORDER
# The pieces another reckoning over the same figures shares (the plan in stages:
# engine/months.py, search.py, nextgen.py).
on_demand_rate = _on_demand_rate
commit_rate = _commit_rate
resale_share = _resale_share
staff_needed = _staff
team_employed = _team_employed


def _plain_totals(monthly: pd.DataFrame) -> dict[str, float]:
    return {str(option): float(monthly[option].sum()) for option in monthly}


def _totals(monthly: pd.DataFrame, money: Callable[[float], float | None]) -> dict[str, Any]:
    """Each option's cumulative cost per month, and its plain total (no discounting)."""
    cumulative = {
        key: [money(v) for v in monthly[key].cumsum().to_numpy().tolist()] for key in OPTIONS
    }
    return {"cumulative": cumulative, "totals": {key: cumulative[key][-1] for key in OPTIONS}}


def _demand_facts(
    params: Mapping[str, float], answers: CostAnswers, hybrid: _Plan
) -> dict[str, Any]:
    """The demand served, the sizes chosen, and when owned hardware first runs work."""
    demand = answers.demand
    _lines, starts = _staff_lines(
        params, answers, owned_nodes=_nodes(params, answers.gpus), rented_nodes=0
    )
    owned_hires, _cloud = _staff(
        params, answers, owned_nodes=_nodes(params, answers.gpus), rented_nodes=0
    )
    return {
        "demand": {
            "peak_gpus": demand.peak,
            "base_gpus": round(demand.base, 2),
            "peak_share_pct": round(demand.peak_share * 100, 2),
            "utilization_pct": round(demand.utilization * 100, 2),
        },
        # The GPU-hours of work done over the horizon: what a total is spread over to give
        # its cost per useful GPU-hour (the same months the total adds up).
        "useful_gpu_hours": round(demand.mean * HOURS_PER_MONTH * answers.horizon_months, 2),
        "hybrid_owned_gpus": hybrid.owned,
        "hybrid_committed_gpus": hybrid.committed,
        "hybrid_reduces_to": _hybrid_mix(answers, hybrid),
        "cloud_committed_gpus": _best_commitment(params, answers, 0),
        # How rare the utilization expected is among published fleets (None: not rare).
        "utilization_check": None
        if (check := utilization_check(demand.utilization)) is None
        else check.to_json(),
        "onprem_hires_fte": round(owned_hires, 2),
        # GPUs owned already that hold the whole peak run now: nothing to wait for.
        "onprem_start_month": 0.0 if answers.fleet_gpus >= answers.gpus else round(starts, 2),
        # Work whose data may not leave has no cloud bridge: it waits for the hardware,
        # unless the GPUs owned already hold it.
        "onprem_delay_months": round(starts, 2)
        if answers.cloud_share < 1 and answers.fleet_gpus < _hybrid_floor(params, answers)
        else 0.0,
    }


def _migration_facts(
    params: Mapping[str, float], answers: CostAnswers, money: Callable[[float], float | None]
) -> dict[str, Any]:
    cost, days = _migration(params, answers)
    return {"cost": money(cost), "days": None if days is None else round(days, 2)}


def _breakdown(
    frame: pd.DataFrame, money: Callable[[float], float | None]
) -> dict[str, dict[str, float | None]]:
    """Each option's total per cost line."""
    breakdown: dict[str, dict[str, float | None]] = {key: {} for key in OPTIONS}
    for column, value in frame.sum().items():
        option, line = cast(tuple[str, str], column)
        breakdown[option][line] = money(value)
    return breakdown


def _break_even(cumulative_usd: pd.DataFrame, utilization: float | None) -> dict[str, Any]:
    """The month owning catches up with renting on demand, and the utilization they tie at
    (`utilization`: found by whoever priced the options)."""
    onprem = cumulative_usd["onprem"].to_numpy()
    cloud = cumulative_usd["cloud_on_demand"].to_numpy()
    reached = np.flatnonzero(onprem <= cloud + 1e-6)
    return {
        "break_even_month": int(reached[0]) if reached.size else None,
        "break_even_utilization_pct": (
            None if utilization is None else round(utilization * 100, 2)
        ),
    }
