"""The months' costs: what holding owned GPUs costs, month by month, over a future.

A world (`World`, made by `world_of`) holds what a month's cost needs, as arrays over
months 0..H: the demand, the cloud prices, the discount. Each month's running cost for a
level owned (power, space, maintenance, licences, people, and the demand above the level
rented at that month's price) and the purchases (paid when ordered, the lead time earlier;
each node group's resale credited at the end for its age; in instalments with no capital up
front, see `finance_factor`) give a path's present value (`path_cost`) or its lines month by
month (`path_lines`). Present values at the cost of capital, as the cost model.

An owned cluster carries its minimum team; work whose data may not leave the premises is
never rented: while the owned GPUs cannot hold it, it waits (as in the cost model). Rented
GPUs that run all the time (the base above what is owned, or the peak when bursts are most
of the time) are committed on the cost model's term (3 years for a horizon of 3 years or
more, else 1), renewed as the base grows; the bursts above them are on demand (with the spot
share), so that with today's demand held cloud only costs what the cost model's cloud costs.

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from decider.engine.costs import (
    HOURS_PER_MONTH,
    CostAnswers,
    commit_rate,
    life_months,
    on_demand_rate,
    resale_share,
    staff_needed,
    team_employed,
)
from decider.engine.future import Future


@dataclass(frozen=True)
class World:
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


def running_cost(world: World, gpus: np.ndarray, months: np.ndarray) -> np.ndarray:
    """The running cost in each of `months` with `gpus` owned (arrays of the same shape)."""
    total = np.zeros(np.shape(gpus))
    for amount in _running_lines(world, gpus, months).values():
        total = total + amount
    return total


def _running_lines(world: World, gpus: np.ndarray, months: np.ndarray) -> dict[str, np.ndarray]:
    """The running cost in each of `months` with `gpus` owned, by cost line (the cost
    model's names), each an array of their shape."""
    p, answers = world.params, world.answers
    q = answers.demand.peak_share
    base, peak = world.base[months], world.peak[months]
    nodes = np.ceil(gpus / world.per_node)
    owned = gpus > 0
    # Above the owned GPUs: the work that may leave is rented; the rest waits.
    # A committed block runs all the time, on the cost model's term, and the bursts above it
    # on demand. The block is the rented base, or the rented peak when the bursts run so
    # much of the time that committing them costs less (as the cost model chooses its block).
    steady, peaked = _rented(world, base, gpus), _rented(world, peak, gpus)
    committed, price = world.committed[months], world.price[months]
    renting = ((1 - q) * steady + q * peaked > 1e-9) | ~owned
    block, overflow = _renting(steady, peaked, q, committed, price, world.blocks)
    rented_nodes = np.ceil(np.maximum(peak - gpus, 0) / world.per_node)
    hired = _per_pair(world.hires, nodes, rented_nodes, width=2)
    # Hired people are paid from when they join (the cost model's rule); owned hardware
    # cannot run before then, so only a cloud platform's hires are ever waited for.
    joined = np.clip(months - p["hiring_months"], 0, 1)
    pay = p["fte_cost"] / 12 * joined
    lines = {
        **_owned_running(world, gpus, months),
        "gpu_committed": block * HOURS_PER_MONTH,
        "gpu": overflow * HOURS_PER_MONTH,
        "cloud_storage": np.where(renting, answers.dataset_tb * p["cloud_storage_tb_month"], 0),
        "egress": np.where(renting, p["egress_tb_month"] * p["egress_price_tb"], 0),
        "staff": hired[..., 0] * pay,
        "cloud_staff": hired[..., 1] * pay,
    }
    if answers.count_team:
        team = _per_pair(world.team, nodes, rented_nodes, width=1)[..., 0]
        lines["team"] = team * p["fte_cost"] / 12
    return lines


def _owned_running(world: World, gpus: np.ndarray, months: np.ndarray) -> dict[str, np.ndarray]:
    """What the owned GPUs cost to run each month: power (load-weighted between idle and
    full draw), colocation, maintenance, licences. A plan that owns nothing reads none of
    these figures (engine/repricing.py: what a plan reads, it is priced again for)."""
    p, answers = world.params, world.answers
    if not np.any(gpus > 0):
        zero = np.zeros(np.shape(gpus))
        return {"power": zero, "colocation": zero, "maintenance": zero, "licences": zero}
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
    return {
        "power": power,
        "colocation": colo,
        "maintenance": p["maintenance_rate"] * hardware / 12,
        "licences": gpus * p["licence_gpu_year"] / 12,
    }


def _per_pair(
    rule: Callable[[int, int], Any], owned: np.ndarray, rented: np.ndarray, *, width: int
) -> np.ndarray:
    """`rule(owned nodes, rented nodes)` at each element, asked once per distinct pair (a
    plan's months hold a few sizes): shape (*owned.shape, width)."""
    span = int(rented.max(initial=0)) + 1
    keys = owned.ravel().astype(np.int64) * span + rented.ravel().astype(np.int64)
    distinct, where = np.unique(keys, return_inverse=True)
    values = np.array([rule(int(k // span), int(k % span)) for k in distinct], dtype=float)
    return values.reshape(len(distinct), width)[where].reshape((*owned.shape, width))


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


def _rented(world: World, demand: np.ndarray, gpus: np.ndarray) -> np.ndarray:
    """The GPUs rented at a demand level: what the owned GPUs leave, once they hold the work
    whose data may not leave; while they cannot hold it all, that work waits and only the
    rest is rented."""
    home = world.home_share * demand
    return np.where(gpus >= home - 1e-9, np.maximum(demand - gpus, 0), demand - home)


def buy(world: World, added: np.ndarray, first: np.ndarray, arrives: int) -> np.ndarray:
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
    life = life_months(params)
    if life is None:
        return []
    return [int(round(month)) for month in np.arange(since + life, months, life)]


def _buy_lines(
    world: World, added: np.ndarray, first: np.ndarray, arrives: int
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


def _fleet_lines(world: World, kept: int) -> dict[str, np.ndarray]:
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


def fleet_pv(world: World, kept: int) -> float:
    return float(
        sum((amount * world.discount).sum() for amount in _fleet_lines(world, kept).values())
    )


def fleet_kept(world: World, path: tuple[int, ...]) -> int:
    """The GPUs already owned that a path keeps: all, unless it starts below them."""
    fleet = world.answers.fleet_gpus
    return min(fleet, path[0]) if path else fleet


def recruiting(world: World) -> float:
    """Recruiting the cloud platform's team, paid in month 0 as the cost model pays it:
    every plan rents first, as nothing owned can arrive in month 1."""
    p = world.params
    rented = world.nodes(float(world.peak[1])) if world.months else 0
    _owned, hires = staff_needed(p, world.answers, owned_nodes=0, rented_nodes=rented)
    return hires * p["hire_cost"]


def path_cost(world: World, decisions: list[int], path: tuple[int, ...]) -> float:
    """The present value of holding `path[j]` GPUs from decisions[j] on (and before the
    first, the GPUs already owned that it keeps)."""
    owning, held = _owning_cost(world, decisions, path)
    months = np.arange(1, world.months + 1)
    running = running_cost(world, held[months], months)
    return owning + float((running * world.discount[months]).sum())


# The running lines the cloud price level of world_of scales (and no other line).
CLOUD_LEVEL_LINES = ("gpu", "gpu_committed")


def paths_cost_linear(
    world_at: Callable[[float, float], World],
    decisions: list[int],
    paths: list[tuple[int, ...]],
) -> list[tuple[float, float, float]]:
    """Each path's path_cost at cloud and hardware price levels c and h (`world_at(c, h)`)
    as (fixed, by_cloud, by_hardware): it is fixed + c × by_cloud + h × by_hardware. The
    paths run over the same months: their running costs are reckoned at once."""
    today, dearer = world_at(1.0, 1.0), world_at(1.0, 2.0)
    owning = [_owning_cost(today, decisions, path) for path in paths]
    dearer_owning = [_owning_cost(dearer, decisions, path)[0] for path in paths]
    months = np.arange(1, today.months + 1)
    held = np.stack([held[months] for _cost, held in owning])
    running = running_pv(today, held, np.broadcast_to(months, held.shape))
    return [
        linear_levels({name: float(pv[i]) for name, pv in running.items()}, cost, dearer_cost)
        for i, ((cost, _held), dearer_cost) in enumerate(zip(owning, dearer_owning, strict=True))
    ]


def linear_levels(
    running: Mapping[str, float], owning: float, owning_dearer: float
) -> tuple[float, float, float]:
    """(fixed, by_cloud, by_hardware) of a present value at cloud and hardware price levels
    c and h, fixed + c × by_cloud + h × by_hardware, from its running lines at today's
    prices and what buying, reselling and recruiting pay at hardware levels 1 and 2. The
    cloud level scales the rented GPU-hours alone (CLOUD_LEVEL_LINES), the hardware level
    only what is bought and resold: one running reckoning and two of the purchases give
    what three whole reckonings would."""
    by_cloud = sum(running.get(name, 0.0) for name in CLOUD_LEVEL_LINES)
    by_hardware = owning_dearer - owning
    return owning - by_hardware + sum(running.values()) - by_cloud, by_cloud, by_hardware


def _owning_cost(
    world: World, decisions: list[int], path: tuple[int, ...]
) -> tuple[float, np.ndarray]:
    """(the present value of recruiting, the GPUs already owned and the purchases; the
    GPUs held in each month 0..H)."""
    owned = fleet_kept(world, path)
    held = np.full(world.months + 1, float(owned))
    total = recruiting(world) + fleet_pv(world, owned)
    for start, level in zip(decisions, path, strict=True):
        if level > owned:
            total += float(buy(world, np.array(level - owned), np.array(owned == 0), start))
            owned = level
        held[start + 1 :] = owned
    return total, held


def running_pv(world: World, gpus: np.ndarray, months: np.ndarray) -> dict[str, np.ndarray]:
    """The present value of running `gpus` owned in each of `months` (arrays of one shape),
    by cost line: summed over the last axis."""
    discount = world.discount[months]
    return {
        name: (amount * discount).sum(axis=-1)
        for name, amount in _running_lines(world, gpus, months).items()
    }


def path_lines(world: World, decisions: list[int], path: tuple[int, ...]) -> dict[str, np.ndarray]:
    """What holding `path[j]` GPUs from decisions[j] on pays in each month 0..H, by cost
    line: the same reckoning as path_cost (its present value is theirs), spread out."""
    months_all = world.months + 1
    owned = fleet_kept(world, path)
    lines: dict[str, np.ndarray] = {"hiring": np.zeros(months_all), **_fleet_lines(world, owned)}
    lines["hiring"][0] = recruiting(world)
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


def world_of(
    params: Mapping[str, float],
    answers: CostAnswers,
    future: Future,
    *,
    cloud: float = 1.0,
    hardware: float = 1.0,
) -> World:
    """The months of the horizon as the plans see them, over the `future`'s demand and
    prices; `cloud` and `hardware` scale today's prices (the odds' draws of them)."""
    months = answers.horizon_months
    demand = answers.demand
    base, peak = future.demand(demand.base, float(demand.peak), months)
    path = future.price_factor(months) * cloud
    t = np.arange(months + 1, dtype=float)
    return World(
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
