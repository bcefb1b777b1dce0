"""A plan in stages: when to start owning GPUs, and how many, as the demand grows.

The source ends on it (§九): in most cases the realistic path is a hybrid that evolves in
stages. The cost model prices one demand for the whole horizon; here the demand may grow
(a yearly rate, or a base and a peak per year) and cloud prices may fall, and the plan may
buy node groups at chosen months: cloud only until the base is worth owning, then own it,
then add to it as it grows.

The search. Owned capacity changes only at decision months (every quarter from the first
month owned hardware can run, which is the lead time, or the hiring delay when the team must
be hired first) and never shrinks. Every level of whole nodes the base or the peak reaches is
a candidate. Each quarter's cost for each level is summed once (power, space, maintenance,
licences, people, and the demand above the level rented at that month's price),
and a dynamic programme over (decision month, level) finds the cheapest path: purchases are
paid when ordered (the lead time earlier), and each node group's resale is credited at the
end for its age. Present values at the cost of capital, as the cost model.

Constraints: nothing is owned before it can arrive; an owned cluster carries its minimum
team; work whose data may not leave the premises is never rented: owned capacity covers it
from the first month it can, and before that it waits (as in the cost model).

Two plans are priced beside the best one: cloud only (when the data allows it) and
"commit now", the final base owned from the first month it can be. Rented GPUs that run
all the time (the base above what is owned, or the peak when bursts are most of the time)
are committed on the cost model's term (3 years for a horizon of 3 years or more, else 1),
renewed as the base grows; the bursts above them are on demand (with the spot share), so
that with today's demand held cloud only costs what the cost model's cloud costs.

Buy now or wait: the first stage's GPUs owned from the first month they can run, against
ordered 3 to 24 months later, over the same future (the answers' falls of cloud and server
prices; none given, today's hold), and the share of the odds' draws in which each wait
costs less. Each wait is a path the search weighed, so none costs less than its plan. The
GPU model's published path (`engine/gpus.py`) is shown as what the answers may give.

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import functools
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from decider.engine import odds
from decider.engine.costs import (
    HOURS_PER_MONTH,
    TIE_ORDER,
    CostAnswers,
    commit_rate,
    on_demand_rate,
    resale_share,
    staff_needed,
    team_employed,
)
from decider.engine.figures import Figure, figures_values
from decider.engine.gpus import DEFAULT, Generation, PricePath, gpu, next_generation
from decider.engine.i18n import gettext
from decider.engine.markets import currency_rate

DECISION_EVERY = 3  # months between decisions
MAX_LEVELS = 40  # candidate owned sizes, spread over the range the demand covers
MAX_YEARS = 10


# --- the future: demand growth and the cloud price path ------------------------------


@dataclass(frozen=True)
class Future:
    """How demand grows and cloud prices fall over the horizon."""

    growth_pct: float = 0.0  # a year, compounded monthly (ignored when `years` is given)
    years: tuple[tuple[float, float], ...] = ()  # (base, peak) GPUs for year 1, 2, ...
    cloud_fall_pct: float = 0.0  # a year: cloud GPU-hour prices this much lower each year
    growth_scale: float = 1.0  # the change from month 0's demand, × this (the odds draw it)
    hardware_fall_pct: float = 0.0  # a year: servers ordered later cost this much less

    def demand(self, base: float, peak: float, months: int) -> tuple[np.ndarray, np.ndarray]:
        """(base, peak) GPUs in each month 1..months (index 0 is month 0, before any work)."""
        t = np.arange(months + 1, dtype=float)
        if self.years:
            year = np.clip(np.ceil(t / 12).astype(int) - 1, 0, len(self.years) - 1)
            bases = np.array([b for b, _p in self.years])[year]
            peaks = np.array([p for _b, p in self.years])[year]
        else:
            factor = (1 + self.growth_pct / 100) ** (t / 12)
            bases, peaks = base * factor, peak * factor
        if self.growth_scale == 1.0:
            return bases, peaks
        peaks = np.maximum(peaks[0] + (peaks - peaks[0]) * self.growth_scale, 0.0)
        bases = np.clip(bases[0] + (bases - bases[0]) * self.growth_scale, 0.0, peaks)
        return bases, peaks

    @property
    def grows(self) -> bool:
        """Whether demand changes over the horizon (the cost section prices today's)."""
        return bool(self.years) or self.growth_pct != 0

    @property
    def prices_move(self) -> bool:
        """Whether the answers give a fall of cloud or server prices (none: today's hold)."""
        return self.cloud_fall_pct != 0 or self.hardware_fall_pct != 0

    def price_factor(self, months: int) -> np.ndarray:
        t = np.arange(months + 1, dtype=float)
        return (1 - self.cloud_fall_pct / 100) ** (t / 12)

    def hardware_factor(self, months: int) -> np.ndarray:
        """Servers ordered in each month 0..months, × today's price."""
        t = np.arange(months + 1, dtype=float)
        return (1 - self.hardware_fall_pct / 100) ** (t / 12)


def future_of(answers: Mapping[str, Any]) -> Future:
    """The future the answers give: `growth_pct`, `cloud_price_fall_pct` and
    `hardware_price_fall_pct` (questions), `growth_years` (a base and a peak per year,
    checked by years_given); none: today's demand and prices hold. The one future every
    section prices: the cost section, the plan, the wait and the next generation."""
    years = tuple((row["base_gpus"], row["peak_gpus"]) for row in answers.get("growth_years", ()))
    return Future(
        growth_pct=float(answers.get("growth_pct") or 0.0),
        years=years,
        cloud_fall_pct=float(answers.get("cloud_price_fall_pct") or 0.0),
        hardware_fall_pct=float(answers.get("hardware_price_fall_pct") or 0.0),
    )


def years_given(raw: Any) -> tuple[tuple[tuple[float, float], ...], tuple[str, str] | None]:
    """The answers' `growth_years` checked: ((base, peak) per year, None), or ((), (key,
    message)) naming the first year that is wrong.

    raw: [{"base_gpus": 8, "peak_gpus": 16}, ...] for year 1, 2, …; the last year holds.
    """
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_YEARS:
        return (), ("growth_years", gettext("must be a list of 1 to 10 years"))
    years = []
    for i, row in enumerate(raw):
        key = f"growth_years.{i}"
        if not isinstance(row, Mapping) or set(row) != {"base_gpus", "peak_gpus"}:
            return (), (key, gettext("must be an object with base_gpus and peak_gpus"))
        base, peak = row["base_gpus"], row["peak_gpus"]
        if not (_number(base) and _number(peak) and 0 <= base <= peak <= 100_000 and peak >= 1):
            return (), (key, gettext("needs 0 ≤ base_gpus ≤ peak_gpus ≤ 100000, peak ≥ 1"))
        years.append((float(base), float(peak)))
    return tuple(years), None


def _number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


# --- the months' costs ---------------------------------------------------------------


@dataclass(frozen=True)
class _World:
    """Everything a month's cost needs, as arrays over months 0..H."""

    params: Mapping[str, float]
    answers: CostAnswers
    base: np.ndarray
    peak: np.ndarray
    price: np.ndarray  # on-demand rate per GPU-hour, by month
    committed: np.ndarray  # committed rate per GPU-hour (the cost model's term), by month
    discount: np.ndarray
    home_share: float  # the share of the work whose data may not leave
    hardware: np.ndarray | None = None  # the hardware price by order month, × today's
    finance: float = 1.0  # what a purchase costs in present value per unit of its price
    blocks: str = "best"  # how it rents above what it owns (BLOCKS)
    _hires: dict[tuple[int, int], tuple[float, float]] = field(default_factory=dict)
    _team: dict[tuple[int, int], float] = field(default_factory=dict)

    @property
    def months(self) -> int:
        return self.answers.horizon_months

    @property
    def per_node(self) -> int:
        return int(self.params["gpus_per_node"])

    def nodes(self, gpus: float) -> int:
        return math.ceil(gpus / self.per_node - 1e-9) if gpus > 0 else 0

    def hires(self, owned_nodes: int, rented_nodes: int) -> tuple[float, float]:
        """FTE hired for an owned and a rented fleet (the cost model's rule), remembered:
        the search asks for the same few sizes thousands of times."""
        key = (owned_nodes, rented_nodes)
        if key not in self._hires:
            self._hires[key] = staff_needed(
                self.params, self.answers, owned_nodes=owned_nodes, rented_nodes=rented_nodes
            )
        return self._hires[key]

    def team(self, owned_nodes: int, rented_nodes: int) -> float:
        """FTE of the team already there that the fleet employs, when the answers count it
        (paid from month 0: they have joined)."""
        key = (owned_nodes, rented_nodes)
        if key not in self._team:
            self._team[key] = team_employed(
                self.params, self.answers, owned_nodes=owned_nodes, rented_nodes=rented_nodes
            )
        return self._team[key]


def _running(world: _World, gpus: np.ndarray, months: np.ndarray) -> np.ndarray:
    """The running cost in each of `months` with `gpus` owned (arrays of the same shape)."""
    total = np.zeros(np.shape(gpus))
    for amount in _running_lines(world, gpus, months).values():
        total = total + amount
    return total


def _running_lines(world: _World, gpus: np.ndarray, months: np.ndarray) -> dict[str, np.ndarray]:
    """The running cost in each of `months` with `gpus` owned, by cost line (the cost
    model's names), each an array of their shape."""
    p, answers = world.params, world.answers
    q = answers.demand.peak_share
    base, peak = world.base[months], world.peak[months]
    nodes = np.ceil(gpus / world.per_node)
    owned = gpus > 0
    busy = (1 - q) * np.minimum(base, gpus) + q * np.minimum(peak, gpus)
    load = np.where(owned, p["idle_share"] + (1 - p["idle_share"]) * busy / np.maximum(gpus, 1), 0)
    power = nodes * p["node_kw"] * load * p["pue"] * HOURS_PER_MONTH * p["kwh_price"]
    colo = nodes * (0.0 if answers.has_datacenter else p["node_kw"] * p["colo_kw_month"])
    storage = answers.dataset_tb * p["storage_capex_per_tb"]
    hardware = nodes * (p["server_price"] + p["network_per_node"]) + np.where(owned, storage, 0)
    # Above the owned GPUs: the work that may leave is rented; the rest waits.
    # A committed block runs all the time, on the cost model's term, and the bursts above it
    # on demand. The block is the rented base, or the rented peak when the bursts run so
    # much of the time that committing them costs less (as the cost model chooses its block).
    steady, peaked = _rented(world, base, gpus), _rented(world, peak, gpus)
    committed, price = world.committed[months], world.price[months]
    renting = ((1 - q) * steady + q * peaked > 1e-9) | ~owned
    block, overflow = _renting(steady, peaked, q, committed, price, world.blocks)
    rented_nodes = np.ceil(np.maximum(peak - gpus, 0) / world.per_node)
    hired = np.array(
        [
            world.hires(int(n), int(r))
            for n, r in zip(nodes.ravel(), rented_nodes.ravel(), strict=True)
        ]
    ).reshape((*nodes.shape, 2))
    # Hired people are paid from when they join (the cost model's rule); owned hardware
    # cannot run before then, so only a cloud platform's hires are ever waited for.
    joined = np.clip(months - p["hiring_months"], 0, 1)
    pay = p["fte_cost"] / 12 * joined
    lines = {
        "power": power,
        "colocation": colo,
        "maintenance": p["maintenance_rate"] * hardware / 12,
        "licences": gpus * p["licence_gpu_year"] / 12,
        "gpu_committed": block * HOURS_PER_MONTH,
        "gpu": overflow * HOURS_PER_MONTH,
        "cloud_storage": np.where(renting, answers.dataset_tb * p["cloud_storage_tb_month"], 0),
        "egress": np.where(renting, p["egress_tb_month"] * p["egress_price_tb"], 0),
        "staff": hired[..., 0] * pay,
        "cloud_staff": hired[..., 1] * pay,
    }
    if answers.count_team:
        team = np.array(
            [
                world.team(int(n), int(r))
                for n, r in zip(nodes.ravel(), rented_nodes.ravel(), strict=True)
            ]
        ).reshape(nodes.shape)
        lines["team"] = team * p["fte_cost"] / 12
    return lines


# How a plan rents above what it owns: the cheapest block (the cost model's committed cloud,
# and every plan that owns), none (all on demand), or the whole peak committed (reserved).
BLOCKS = ("best", "none", "peak")


def _renting(
    low: np.ndarray,
    high: np.ndarray,
    q: float,
    committed: np.ndarray,
    price: np.ndarray,
    blocks: str = "best",
) -> tuple[np.ndarray, np.ndarray]:
    """The hourly cost of renting `low` GPUs (1 - q of the time) and `high` (q of it): (the
    block of whole GPUs committed, the rest on demand). The block is the cheapest of none,
    the base level either side and the peak level, as the cost model chooses it
    (costs._best_commitment), so that with today's demand the two price the cloud alike;
    or none, or the peak (`blocks`)."""
    if blocks == "none":
        sizes = np.zeros_like(low)[None]
    elif blocks == "peak":
        sizes = np.ceil(high)[None]
    else:
        sizes = np.stack([np.zeros_like(low), np.floor(low), np.ceil(low), np.ceil(high)])
    overflow = ((1 - q) * np.maximum(low - sizes, 0) + q * np.maximum(high - sizes, 0)) * price
    block = sizes * committed
    best = np.argmin(block + overflow, axis=0)[None]
    return np.take_along_axis(block, best, 0)[0], np.take_along_axis(overflow, best, 0)[0]


def _rented(world: _World, demand: np.ndarray, gpus: np.ndarray) -> np.ndarray:
    """The GPUs rented at a demand level: what the owned GPUs leave, once they hold the work
    whose data may not leave; while they cannot hold it all, that work waits and only the
    rest is rented."""
    home = world.home_share * demand
    return np.where(gpus >= home - 1e-9, np.maximum(demand - gpus, 0), demand - home)


# --- the search ----------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    month: int  # the month the GPUs run work from
    ordered: int  # the month they are ordered and paid
    owned_gpus: int  # owned from then on
    added_gpus: int


@dataclass(frozen=True)
class _Path:
    cost: float
    levels: tuple[int, ...]  # owned GPUs in each segment (decision months)


def _decisions(world: _World) -> list[int]:
    """The months at which owned capacity may change: the first month it can run work
    (the lead time, or the hiring delay when a team must be hired), then every quarter."""
    p, answers = world.params, world.answers
    hires_needed = staff_needed(p, answers, owned_nodes=1, rented_nodes=0)[0] > 0
    first = max(p["lead_time_months"], p["hiring_months"] if hires_needed else 0.0)
    start = min(math.ceil(first - 1e-9), world.months)
    return list(range(start, world.months, DECISION_EVERY))


def _levels(world: _World) -> list[int]:
    """Candidate owned sizes (GPUs, whole nodes): every size the base or the peak needs
    over the horizon, thinned evenly to MAX_LEVELS, and none."""
    wanted = {world.nodes(g) for g in np.r_[world.base[1:], world.peak[1:]]}
    wanted |= {world.nodes(world.home_share * g) for g in world.peak[1:]}
    nodes = sorted(wanted | {0})
    if len(nodes) > MAX_LEVELS:
        keep = np.unique(np.linspace(0, len(nodes) - 1, MAX_LEVELS).round().astype(int))
        nodes = sorted({nodes[i] for i in keep} | {nodes[-1]})
    # The GPUs already owned: the plans start from them (and add to them, never below).
    return sorted({n * world.per_node for n in nodes} | {world.answers.fleet_gpus})


def _segments(world: _World, decisions: list[int]) -> list[np.ndarray]:
    """The months each decision's level runs: (d_j, d_j+1], the last to the horizon."""
    ends = [*decisions[1:], world.months]
    return [np.arange(start + 1, end + 1) for start, end in zip(decisions, ends, strict=True)]


def _buy(world: _World, added: np.ndarray, first: np.ndarray, arrives: int) -> np.ndarray:
    """Present value of buying `added` GPUs to run from month `arrives` (ordered and paid the
    lead time earlier, resold at the end for their age); `first`: the first purchase, which
    also pays the set-up, the storage and the team's recruiting."""
    ordered, paid, resold, refreshed = _buy_lines(world, added, first, arrives)
    value = sum(paid.values()) * world.discount[ordered] - resold * world.discount[world.months]
    for month, amount in refreshed:
        value = value + amount * world.discount[month]
    return np.where(np.ceil(np.maximum(added, 0) / world.per_node) > 0, value, 0.0)


def refresh_months(params: Mapping[str, float], since: float, months: int) -> list[int]:
    """The months servers running from `since` are replaced, each at the end of its life
    (`depreciation_years`), within a horizon of `months`."""
    life = params["depreciation_years"] * 12
    if life <= 0:
        return []
    found, month = [], since + life
    while month < months:
        found.append(int(round(month)))
        month += life
    return found


def _buy_lines(
    world: _World, added: np.ndarray, first: np.ndarray, arrives: int
) -> tuple[int, dict[str, np.ndarray], np.ndarray, list[tuple[int, np.ndarray]]]:
    """(the month the purchase is ordered and paid, what is paid then by cost line, the
    resale credited at the end, the refreshes: (month, amount) of replacing the servers at
    the end of their life) of buying `added` GPUs to run from month `arrives`."""
    p = world.params
    ordered = max(int(round(arrives - p["lead_time_months"])), 0)
    nodes = np.ceil(np.maximum(added, 0) / world.per_node)
    storage = world.answers.dataset_tb * p["storage_capex_per_tb"]
    price = 1.0 if world.hardware is None else float(world.hardware[ordered])
    servers = nodes * p["server_price"] * price
    network = nodes * p["network_per_node"] * price
    hires = staff_needed(p, world.answers, owned_nodes=1, rented_nodes=0)[0]
    bought = {
        "servers": servers,
        "network": network,
        "storage": np.where(first, storage * price, 0),
        "spares": (servers + network) * p["spares_share"],
        "setup": np.where(first, p["setup_cost"], 0),
    }
    # In instalments when no capital is available; recruiting is paid as it happens.
    if world.finance != 1.0:
        bought = {"financing": sum(bought.values()) * world.finance}
    paid = {**bought, "hiring": np.where(first, hires * p["hire_cost"], 0)}
    realised = p["residual_value"]
    age = (world.months - arrives) / 12
    resold = np.where(first, storage * price, 0) * resale_share(p, age) * realised
    servers_now = (servers + network) / price  # at today's price
    refreshed = []
    for month in refresh_months(p, arrives, world.months):
        at = 1.0 if world.hardware is None else float(world.hardware[month])
        refreshed.append((month, servers_now * at * (1 + p["spares_share"])))
        servers, network, age = servers_now * at, 0.0, (world.months - month) / 12
    resold = resold + (servers + network) * resale_share(p, age) * realised
    return ordered, paid, resold, refreshed


# The searches done lately, by what defines their world: scoring prices the cost section
# (future_lines) and the plan over the same future, and each would search it again.
_SEARCHED: OrderedDict[tuple[Any, ...], tuple[_Path, list[int]]] = OrderedDict()
_SEARCHED_KEPT = 32
_SEARCHED_LOCK = threading.Lock()


def _search(world: _World, *, must_own: bool = False) -> tuple[_Path, list[int]]:
    """The cheapest path over the decision months, and those months (`must_own`: the
    cheapest that owns GPUs by the last decision); remembered for the same world."""
    key = (_world_key(world), must_own)
    with _SEARCHED_LOCK:
        if (found := _SEARCHED.get(key)) is not None:
            _SEARCHED.move_to_end(key)
            return found[0], list(found[1])
    path, decisions = _searched(world, must_own=must_own)
    with _SEARCHED_LOCK:
        _SEARCHED[key] = (path, list(decisions))
        if len(_SEARCHED) > _SEARCHED_KEPT:
            _SEARCHED.popitem(last=False)
    return path, decisions


def forget_searches() -> None:
    """Forget the searches remembered (benchmarks: a new assessment each time)."""
    with _SEARCHED_LOCK:
        _SEARCHED.clear()


def _world_key(world: _World) -> tuple[Any, ...]:
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


def _searched(world: _World, *, must_own: bool = False) -> tuple[_Path, list[int]]:
    decisions = _decisions(world)
    levels = _levels(world)
    if not decisions:  # nothing can arrive within the horizon
        return _Path(_path_cost(world, [], ()), ()), decisions
    segments = _segments(world, decisions)
    floors = [world.home_share * world.peak[s].max() for s in segments]
    # cost[j][k]: the running cost of segment j with levels[k] owned; a level that cannot
    # hold the work whose data may not leave is not a choice.
    owned_levels = np.array(levels, dtype=float)
    cost = np.empty((len(segments), len(levels)))
    for j, months in enumerate(segments):
        gpus = np.repeat(owned_levels[:, None], len(months), axis=1)
        when = np.broadcast_to(months, gpus.shape)
        running = (_running(world, gpus, when) * world.discount[when]).sum(axis=1)
        cost[j] = np.where(owned_levels >= floors[j] - 1e-9, running, math.inf)
    owned = owned_levels
    n = len(levels)
    added = owned[None, :] - owned[:, None]  # [held before, held after]
    first = np.broadcast_to((owned == 0)[:, None], (n, n))
    allowed = added >= 0  # owned capacity never shrinks
    best = np.zeros(n)  # the cost of what follows the last decision
    if must_own:
        best[owned == 0] = math.inf
    choice = np.zeros((len(decisions), n), dtype=int)
    for j in range(len(decisions) - 1, -1, -1):
        options = cost[j][None, :] + _buy(world, added, first, decisions[j]) + best[None, :]
        options = np.where(allowed, options, math.inf)
        choice[j] = np.argmin(options, axis=1)
        best = options[np.arange(n), choice[j]]
    start = levels.index(world.answers.fleet_gpus)  # what is owned today
    path, k = [], start
    for j in range(len(decisions)):
        k = choice[j][k]
        path.append(levels[k])
    return _Path(float(best[start]) + _before(world, decisions), tuple(path)), decisions


def _before(world: _World, decisions: list[int]) -> float:
    """Months 1 .. the first decision: only the GPUs already owned (the rest rented, home
    work beyond them waits); and what keeping them all gives back at the end."""
    fleet = world.answers.fleet_gpus
    kept = _fleet_pv(world, fleet)
    months = np.arange(1, (decisions[0] if decisions else world.months) + 1)
    if not len(months):
        return _recruiting(world) + kept
    running = _running(world, np.full(len(months), fleet), months) * world.discount[months]
    return _recruiting(world) + kept + float(running.sum())


def _fleet_lines(world: _World, kept: int) -> dict[str, np.ndarray]:
    """The GPUs already owned, by cost line and month: those a plan does not keep sold
    today, those it keeps resold at the end for their age then (the cost model's reckoning,
    at today's server price × the hardware price of month 0)."""
    answers, p = world.answers, world.params
    lines: dict[str, np.ndarray] = {}
    if not answers.fleet_gpus:
        return lines
    kept = min(kept, answers.fleet_gpus)
    price = 1.0 if world.hardware is None else float(world.hardware[0])
    per_node = (p["server_price"] + p["network_per_node"]) * price * p["residual_value"]
    sold = world.nodes(answers.fleet_gpus) - world.nodes(kept)
    if sold > 0:
        lines["fleet_sale"] = np.zeros(world.months + 1)
        lines["fleet_sale"][0] = -sold * per_node * resale_share(p, answers.fleet_age_years)
    if kept > 0:
        nodes = world.nodes(kept)
        today = p["server_price"] + p["network_per_node"]
        value, age = today * price, answers.fleet_age_years + world.months / 12
        # Replaced at the end of its life when that comes within the horizon; a fleet past
        # its life already runs on as it is.
        if answers.fleet_age_years < p["depreciation_years"]:
            since = -answers.fleet_age_years * 12
            for month in refresh_months(p, since, world.months):
                at = 1.0 if world.hardware is None else float(world.hardware[month])
                refresh = lines.setdefault("refresh", np.zeros(world.months + 1))
                refresh[month] += nodes * today * at * (1 + p["spares_share"])
                value, age = today * at, (world.months - month) / 12
        lines["residual"] = np.zeros(world.months + 1)
        lines["residual"][world.months] = (
            -nodes * value * resale_share(p, age) * p["residual_value"]
        )
    return lines


def _fleet_pv(world: _World, kept: int) -> float:
    return float(
        sum((amount * world.discount).sum() for amount in _fleet_lines(world, kept).values())
    )


def _kept(world: _World, path: tuple[int, ...]) -> int:
    """The GPUs already owned that a path keeps: all, unless it starts below them."""
    fleet = world.answers.fleet_gpus
    return min(fleet, path[0]) if path else fleet


def _recruiting(world: _World) -> float:
    """Recruiting the cloud platform's team, paid in month 0 as the cost model pays it:
    every plan rents first, as nothing owned can arrive in month 1."""
    p = world.params
    rented = world.nodes(float(world.peak[1])) if world.months else 0
    _owned, hires = staff_needed(p, world.answers, owned_nodes=0, rented_nodes=rented)
    return hires * p["hire_cost"]


def _path_cost(world: _World, decisions: list[int], path: tuple[int, ...]) -> float:
    """The present value of holding `path[j]` GPUs from decisions[j] on (and before the
    first, the GPUs already owned that it keeps)."""
    owned = _kept(world, path)
    held = np.full(world.months + 1, float(owned))
    total = _recruiting(world) + _fleet_pv(world, owned)
    for start, level in zip(decisions, path, strict=True):
        if level > owned:
            total += float(_buy(world, np.array(level - owned), np.array(owned == 0), start))
            owned = level
        held[start + 1 :] = owned
    months = np.arange(1, world.months + 1)
    running = _running(world, held[months], months)
    return total + float((running * world.discount[months]).sum())


def _path_lines(
    world: _World, decisions: list[int], path: tuple[int, ...]
) -> dict[str, np.ndarray]:
    """What holding `path[j]` GPUs from decisions[j] on pays in each month 0..H, by cost
    line: the same reckoning as _path_cost (its present value is theirs), spread out."""
    months_all = world.months + 1
    owned = _kept(world, path)
    lines: dict[str, np.ndarray] = {"hiring": np.zeros(months_all), **_fleet_lines(world, owned)}
    lines["hiring"][0] = _recruiting(world)
    held = np.full(months_all, float(owned))
    for start, level in zip(decisions, path, strict=True):
        if level > owned:
            ordered, paid, resold, refreshed = _buy_lines(
                world, np.array(level - owned), np.array(owned == 0), start
            )
            for name, amount in paid.items():
                lines.setdefault(name, np.zeros(months_all))[ordered] += float(amount)
            for month, amount in refreshed:
                lines.setdefault("refresh", np.zeros(months_all))[month] += float(amount)
            lines.setdefault("residual", np.zeros(months_all))[world.months] -= float(resold)
            owned = level
        held[start + 1 :] = owned
    months = np.arange(1, months_all)
    for name, amount in _running_lines(world, held[months], months).items():
        lines.setdefault(name, np.zeros(months_all))[1:] += amount
    return lines


def future_lines(
    *, answers: CostAnswers, figures: Mapping[str, Figure], future: Future
) -> dict[str, dict[str, np.ndarray]] | None:
    """The cost section's options over a future whose demand grows (option_lines), with the
    plans plan_compute weighs for each outcome: the peak owned from the first month it can,
    and the search's stages (or, when they own nothing, the cheapest plan that owns). None
    when nothing owned can arrive within the horizon."""
    world = _world(figures_values(figures), answers, future)
    staged, decisions = _search(world)
    if not decisions:
        return None
    owns = any(level > 0 for level in staged.levels)
    hybrid = staged if owns else _search(world, must_own=True)[0]
    peak = world.nodes(float(world.peak[1:].max())) * world.per_node
    return option_lines(
        world,
        decisions,
        own=tuple(peak for _ in decisions),
        hybrid=(hybrid if math.isfinite(hybrid.cost) else staged).levels,
    )


def option_lines(
    world: _World, decisions: list[int], *, own: tuple[int, ...], hybrid: tuple[int, ...]
) -> dict[str, dict[str, np.ndarray]]:
    """The cost section's five options over this future, each a path of the search's
    reckoning, by cost line and month: on-prem owns the peak from the first month it can
    (renting before: its bridge), the cloud rents throughout all on demand, the whole peak
    reserved, or the cheapest block committed (cloud only), and the hybrid holds `hybrid`.
    The cloud options rent all the work, as the cost model prices them whatever the data's
    residency (the rules exclude them where it binds)."""
    nothing = tuple(0 for _ in decisions)
    anywhere = replace(world, home_share=0.0, _hires={}, _team={})
    onprem = _path_lines(world, decisions, own)
    rented = [onprem.pop(name) for name in ("gpu", "gpu_committed") if name in onprem]
    onprem["bridge"] = sum(rented, np.zeros(world.months + 1))
    return {
        "onprem": onprem,
        "cloud_on_demand": _path_lines(replace(anywhere, blocks="none"), decisions, nothing),
        "cloud_reserved": _path_lines(replace(anywhere, blocks="peak"), decisions, nothing),
        "cloud_committed": _path_lines(anywhere, decisions, nothing),
        "hybrid": _path_lines(world, decisions, hybrid),
    }


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
    future: Future = Future(),
    currency: str = "USD",
    gpu_model: str = DEFAULT,
    market: str = "global",
    ranges: Mapping[str, tuple[float, float]] | None = None,
    seed: int = 0,
    outcome: str | None = None,
) -> dict[str, Any]:
    """The cheapest staged plan, with cloud only and "commit now" beside it, whether to
    buy now or wait, and whether to own this generation or the next (`ranges` and `seed`:
    the odds of waiting and of the next generation); `outcome`: the headline, which the
    plan recommended follows (the headline's verdict reads the plan when demand grows)."""
    params = figures_values(figures)
    world = _world(params, answers, future)
    rate = currency_rate(params["usd_cny"], prices_in=answers.prices_in, shown_in=currency)
    staged, decisions = _search(world)
    kept = _kept(world, staged.levels)  # the GPUs owned already that the plan keeps
    stages = _stages(decisions, staged.levels, params["lead_time_months"], kept)
    weighed = _weighed(world, decisions, staged, stages)
    outcomes = _outcome_plans(weighed.paths, stages, decisions, answers.excluded)
    ranges = {**odds.ranges_of(None), **(ranges or {})}  # an input not given: its default
    drawn = odds.draw(ranges, seed=seed)
    found_odds = (
        None
        if not decisions
        else _plan_odds(
            params,
            answers,
            future,
            decisions,
            weighed.paths,
            ranges=ranges,
            drawn=drawn,
            rate=rate,
            outcomes=outcomes,
        )
    )
    recommended = _recommended(
        world, decisions, stages, weighed, found_odds, outcome, gpu_model, kept=kept, rate=rate
    )
    return {
        "currency": currency,
        **recommended,
        "financing": _financing_shown(world),
        "stages": _stage_rows(world, decisions, staged.levels, stages, rate),
        "present_value": _present_shown(weighed.present, rate),
        "commit_now_gpus": weighed.committed if decisions else 0,
        # The GPUs already owned that the plan keeps from month 0 (the answers' `owned`).
        "owned_already": kept,
        "first_possible_month": decisions[0] if decisions else None,
        "timeline": _timeline(world, kept, stages),
        **_when_to_own(world, future, stages, gpu_model, market=market, drawn=drawn, rate=rate),
        "odds": found_odds,
        "future": _future_shown(future),
        **_outcomes_shown(outcomes, weighed.present, rate),
    }


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


def _weighed(world: _World, decisions: list[int], staged: _Path, stages: list[Stage]) -> _Weighed:
    """The search's plan (staged) and those beside it: commit now (the final base, or what
    the work that may not leave needs), cloud only (when the data allows it), the peak owned
    from the first month it can run (what an on-premises headline owns, as the cost
    section's on-prem does), and the plan that owns when the search's owns nothing."""
    final_base = world.nodes(float(world.base[1:].max())) * world.per_node
    floor = world.nodes(world.home_share * float(world.peak[1:].max())) * world.per_node
    committed = max(final_base, floor)
    commit_path = tuple(committed for _ in decisions)
    commit_cost = _path_cost(world, decisions, commit_path) if decisions else None
    cloud_cost = (
        _path_cost(world, decisions, tuple(0 for _ in decisions)) if world.home_share == 0 else None
    )
    peak_level = world.nodes(float(world.peak[1:].max())) * world.per_node
    peak_path = tuple(peak_level for _ in decisions)
    peak_cost = _path_cost(world, decisions, peak_path) if decisions else None
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
    owning = staged if stages or not decisions else _search(world, must_own=True)[0]
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
    world: _World,
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


def _financing_shown(world: _World) -> dict[str, Any] | None:
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
    world: _World, decisions: list[int], path: tuple[int, ...], stages: list[Stage], rate: float
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


def _timeline(world: _World, kept: int, stages: list[Stage]) -> dict[str, list[Any]]:
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
    world: _World,
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
        "wait": _wait(params, answers, future, path, level=level, drawn=drawn, rate=rate),
        "generation": None
        if generation is None
        else _generation(
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
    if cloud is None:
        return "staged", marginal  # data that may not leave: owning is no choice
    if outcome == "cloud":
        return "cloud_only", marginal
    if outcome == "onprem" and present.get("own_peak") is not None:
        return "own_peak", marginal
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
    world: _World,
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
    world: _World, stages: list[Stage], gpu_model: str, *, marginal: bool
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
    world: _World, decisions: list[int], gpu_model: str, committed: int
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
    world: _World, decisions: list[int], stages: list[Stage], gpu_model: str
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


def _required(world: _World, decisions: list[int], stage: Stage, before: Stage | None) -> bool:
    """Whether the stage is needed to hold the work whose data may not leave."""
    segment = _segments(world, decisions)[decisions.index(stage.month)]
    floor = world.nodes(world.home_share * float(world.peak[segment].max())) * world.per_node
    return (before.owned_gpus if before else 0) < floor


def _world(
    params: Mapping[str, float],
    answers: CostAnswers,
    future: Future,
    *,
    cloud: float = 1.0,
    hardware: float = 1.0,
) -> _World:
    """The months of the horizon as the plans see them, over the `future`'s demand and
    prices; `cloud` and `hardware` scale today's prices (the odds' draws of them)."""
    months = answers.horizon_months
    demand = answers.demand
    base, peak = future.demand(demand.base, float(demand.peak), months)
    path = future.price_factor(months) * cloud
    t = np.arange(months + 1, dtype=float)
    return _World(
        params=params,
        answers=answers,
        base=base,
        peak=peak,
        price=on_demand_rate(params) * path,
        committed=min(commit_rate(params, answers), on_demand_rate(params)) * path,
        discount=(1.0 + params["discount_rate"]) ** (-t / 12),
        home_share=1 - answers.cloud_share,
        hardware=hardware * future.hardware_factor(months),
        finance=finance_factor(params, answers),
    )


def finance_factor(params: Mapping[str, float], answers: CostAnswers) -> float:
    """With no capital up front, what buys hardware is financed: paid in equal monthly
    instalments over the finance term at the finance rate. Their present value at the cost
    of capital, per unit of the price paid at once (1 when the capital is there)."""
    term = int(params["finance_term_months"])
    if answers.capex_available or term <= 0:
        return 1.0

    def annuity(yearly: float) -> float:
        monthly = (1 + yearly) ** (1 / 12) - 1
        return float(term) if monthly == 0 else (1 - (1 + monthly) ** -term) / monthly

    return annuity(params["discount_rate"]) / annuity(params["finance_rate"])


WAITS = (0, 3, 6, 9, 12, 18, 24)  # months an order may wait


def _wait(
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
    Each plan's present value is linear in the two price levels, so three reckonings give it
    at every draw of them (the odds' ranges): the share of draws in which waiting N months
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
    def world_at(cloud: float, hardware: float) -> _World:
        return _world(params, answers, future, cloud=cloud, hardware=hardware)

    def pv(wait: int, cloud: float, hardware: float) -> float | None:
        world = world_at(cloud, hardware)
        decisions = _decisions(world)
        if not decisions or decisions[0] + wait >= world.months:
            return None
        arrives = decisions[0] + wait
        held = tuple(level if month >= arrives else 0 for month in decisions)
        return _path_cost(world, decisions, held)

    at: dict[int, tuple[float, np.ndarray]] = {}
    for wait in WAITS:
        if (priced := _priced(functools.partial(pv, wait), drawn)) is not None:
            at[wait] = priced
    return at


def _priced(
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


# --- how sure the plan is --------------------------------------------------------------

GROWTH_POINTS = 5  # demand growth levels the plans are priced at; draws between them


def _plan_odds(
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
    def world_at(scale: float, cloud: float, hardware: float) -> _World:
        grown = replace(future, growth_scale=scale)
        return _world(params, answers, grown, cloud=cloud, hardware=hardware)

    def priced(scale: float, levels: tuple[int, ...]) -> Callable[[float, float], float]:
        def pv(cloud: float, hardware: float) -> float:
            return _path_cost(world_at(scale, cloud, hardware), decisions, levels)

        return pv

    amounts = {}
    for name, levels in paths.items():
        coefficients = np.array([_linear(priced(float(scale), levels)) for scale in scales])
        growth = drawn["growth"]
        fixed, by_cloud, by_hardware = (
            np.interp(growth, scales, coefficients[:, k]) for k in range(3)
        )
        amounts[name] = (
            fixed + by_cloud * drawn["cloud_price"] + by_hardware * drawn["hardware_price"]
        )
    return amounts


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


# --- this generation or the next -------------------------------------------------------

SWITCH_WAITS = (0, 3, 6, 9, 12, 18, 24)  # months after the next generation can first run
_CLOUD_RATES = (
    "gpu_hour_on_demand",
    "gpu_hour_spot",
    "gpu_hour_reserved_1y",
    "gpu_hour_reserved_3y",
)


def _successor_world(
    world: _World,
    generation: Generation,
    future: Future,
    *,
    speed: float,
    cloud: float,
    hardware: float,
) -> _World:
    """The months as the next generation sees them: its prices (the model's figures times
    the generation's ratios, falling as the `future`'s from the month it ships, `cloud` and
    `hardware` scaling them as in `_world`), and the demand counted in its GPUs."""
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
    world: _World, successor: _World, ships: int, speed: float
) -> tuple[_World, _World]:
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


def _switch_cost(world: _World, successor: _World, gpus: int, month: int) -> float:
    """Present value of renting everything on this generation until `month`, then owning
    `gpus` of the next one from it (ordered a lead time earlier, resold at the end)."""
    before = np.arange(1, month + 1)
    after = np.arange(month + 1, world.months + 1)
    renting = _running(world, np.zeros(len(before)), before) * world.discount[before]
    owning = _running(successor, np.full(len(after), float(gpus)), after)
    bought = float(_buy(successor, np.array(gpus), np.array(True), month))
    return float(renting.sum()) + bought + float((owning * successor.discount[after]).sum())


def _generation(
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
    decisions = _decisions(world)
    successor_gpus = max(successor.nodes(level / speed), 1) * successor.per_node
    lead = params["lead_time_months"]
    earliest = max(decisions[0], math.ceil(generation.ships_month + lead)) if decisions else None
    shown = _generation_shown(generation, model, speed, level, successor_gpus, earliest)
    if answers.cloud_share < 1 or earliest is None:  # renting meanwhile is no choice
        return shown
    now = _priced(_held_throughout(worlds, decisions, level), drawn)
    assert now is not None  # decisions exist, so owning now fits the horizon
    options: list[dict[str, Any]] = [
        {"own": "current", "month": decisions[0], "gpus": level, "middle": now[0]},
        *_successor_options(worlds, now[1], world.months, successor_gpus, earliest, drawn),
    ]
    best = min(options, key=lambda o: (o["middle"], o["month"]))
    renting = _priced(_held_throughout(worlds, decisions, 0), drawn)
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
) -> Callable[[float, float], tuple[_World, _World]]:
    """This generation's world and the next one's at each cloud and hardware price level,
    both renting the cheaper per unit of work once the next one ships; remembered (three
    price levels, each asked for by every option)."""

    @functools.cache
    def worlds(cloud: float, hardware: float) -> tuple[_World, _World]:
        world = _world(params, answers, future, cloud=cloud, hardware=hardware)
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


def _held_throughout(
    worlds: Callable[[float, float], tuple[_World, _World]], decisions: list[int], level: int
) -> Callable[[float, float], float]:
    """The present value, at each price level, of holding `level` GPUs of this generation
    from the first decision (0: renting throughout)."""

    def pv(cloud: float, hardware: float) -> float:
        return _path_cost(worlds(cloud, hardware)[0], decisions, tuple(level for _ in decisions))

    return pv


def _successor_options(
    worlds: Callable[[float, float], tuple[_World, _World]],
    now: np.ndarray,
    months: int,
    successor_gpus: int,
    earliest: int,
    drawn: Mapping[str, np.ndarray],
) -> list[dict[str, Any]]:
    """Owning the next generation from each wait after it can first run (SWITCH_WAITS) that
    fits the horizon: its present value on today's prices, and the share of the draws in
    which it costs less than owning this generation now (`now`: that plan's at each)."""

    def switch(month: int) -> Callable[[float, float], float | None]:
        def pv(cloud: float, hardware: float) -> float | None:
            if month >= months:
                return None
            return _switch_cost(*worlds(cloud, hardware), successor_gpus, month)

        return pv

    options = []
    for wait in SWITCH_WAITS:
        if (priced := _priced(switch(earliest + wait), drawn)) is not None:
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
    world: _World, gpus: int, start: int, rate: float
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
    running = _running(kept, held, months)
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


def _saving(
    world: _World,
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
    return _path_cost(world, decisions, changed) - _path_cost(world, decisions, path)
