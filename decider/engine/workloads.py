"""Several workloads decided together: one owned pool for their pooled demand.

A company decides for its training team, its inference product and its research group at
once: an owned cluster they share is busier than one each would own (the source's 70 % rule
is about exactly that), and one team runs it. The answers may list `workloads`, each with
its own demand (`gpus` and `utilization_pct` with `demand_shape`, or `base_gpus` with
`peak_share_pct`, or a `work` block to size it from), its kind and its data residency.

Pooled, their demand is one steady base plus bursts (engine/demand.py): the base is the sum
of their bases, the peak the sum of their peaks, and the time at the peak what keeps the sum
of their average demands. That is pooling as if the bursts may all come at once: the saving
shown is the least that pooling gives (bursts that take turns would need fewer GPUs). The
pooled demand stands in the answers' own demand keys, so the cost model, the odds, the plan
and the rules decide the pool as they decide one workload; the residency of the pool is the
strictest one's, with the share of work that may go to the cloud that of the workloads
allowed there.

Decided apart, each workload is priced alone at its cheapest allowed option; the plan then
says per workload where it runs, how many of the pool's owned GPUs it uses (the steady bases
first, then the bursts, in proportion) and its share of the cost (by the GPU-hours it uses).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from decider.engine.demand import CLOUD_SHARE_BY_RESIDENCY, DEMAND_ANSWERS, Demand
from decider.engine.future import MAX_YEARS

MAX_WORKLOADS = 8
NAME_MAX = 60
# The keys of one workload; the rest of the answers are the company's, shared by all.
DEMAND_KEYS = DEMAND_ANSWERS
ITEM_KEYS = (
    "name",
    "workload",
    "residency",
    "latency_critical",
    *DEMAND_KEYS,
    "growth_pct",
    "work",
    "separate",
)
# The company's answers a workload takes unless it gives its own.
DEFAULTED = ("workload", "residency", "latency_critical")
# The answers the pool's demand sets (pooled_answers): a workload alone gives its own.
POOLED_KEYS = (*DEMAND_KEYS, *DEFAULTED, "cloud_share_pct", "growth_years")
RESIDENCY_ORDER = ("none", "partial", "all")


@dataclass(frozen=True)
class Workload:
    name: str
    kind: str  # training | finetuning | inference | mixed
    residency: str  # none | partial | all
    demand: Demand
    # Latency-bound serving in another region: a cluster of its own, decided alone.
    separate: bool = False
    growth_pct: float | None = None  # a year, its own (None: the company's)
    latency_critical: bool = False

    @property
    def cloud_share(self) -> float:
        """The share of its work whose data may run in the cloud."""
        return CLOUD_SHARE_BY_RESIDENCY[self.residency] / 100


def items_given(
    raw: Any,
    *,
    defaults: Mapping[str, Any],
    check: Callable[[Mapping[str, Any]], tuple[dict[str, Any], dict[str, str]]],
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The `workloads` answer checked: (the items, errors by `workloads.N.key`). `defaults`:
    the company's answers an item may leave out (`workload`, `residency`); `check`: the
    questionnaire's check of one item's answers (its values and how they fit together)."""
    if not isinstance(raw, list) or not 2 <= len(raw) <= MAX_WORKLOADS:
        return [], {"workloads": f"give a list of 2 to {MAX_WORKLOADS} workloads"}
    items, errors = [], {}
    for number, item in enumerate(raw):
        where = f"workloads.{number}"
        if not isinstance(item, Mapping):
            errors[where] = "give an object with the workload's name and demand"
            continue
        unknown = [key for key in item if key not in ITEM_KEYS]
        if unknown:
            errors[f"{where}.{str(unknown[0])[:40]}"] = (
                f"unknown key (allowed: {', '.join(ITEM_KEYS)})"
            )
            continue
        name = item.get("name", f"Workload {number + 1}")
        if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX:
            errors[f"{where}.name"] = f"give a name of 1 to {NAME_MAX} characters"
            continue
        if not isinstance(separate := item.get("separate", False), bool):
            errors[f"{where}.separate"] = "must be true or false"
            continue
        answers = {key: defaults[key] for key in DEFAULTED if key in defaults}
        answers |= {key: value for key, value in item.items() if key not in ("name", "separate")}
        checked, problems = check(answers)
        if problems:
            errors.update({f"{where}.{key}": problem for key, problem in problems.items()})
            continue
        if "residency" in defaults:  # a workload's data is bound at least as the company's
            checked["residency"] = max(
                checked["residency"], defaults["residency"], key=RESIDENCY_ORDER.index
            )
        items.append(
            {"name": " ".join(name.split()), **checked, **({"separate": True} if separate else {})}
        )
    if not errors and all(item.get("separate") for item in items):
        errors["workloads"] = "at least one workload must share the pool (not separate)"
    return items, errors


def workloads_of(
    items: Sequence[Mapping[str, Any]], demand_of: Callable[[Mapping[str, Any]], Demand]
) -> list[Workload]:
    """The items as workloads (`demand_of`: the questionnaire's demand of one's answers)."""
    return [
        Workload(
            name=item["name"],
            kind=item["workload"],
            residency=item["residency"],
            demand=demand_of(item),
            separate=bool(item.get("separate")),
            growth_pct=item.get("growth_pct"),
            latency_critical=bool(item.get("latency_critical")),
        )
        for item in items
    ]


def members(workloads: Sequence[Workload]) -> list[Workload]:
    """The workloads that share the pool (not those in a region of their own)."""
    return [w for w in workloads if not w.separate]


def pooled(workloads: Sequence[Workload]) -> Demand:
    """Their demand pooled: the bases added, the peaks added, the averages kept."""
    peak = sum(w.demand.peak for w in workloads)
    base = min(sum(w.demand.base for w in workloads), float(peak))
    mean = sum(w.demand.mean for w in workloads)
    return Demand.from_base(peak=peak, base=base, utilization=mean / peak)


def levels(demand: Demand) -> dict[str, Any]:
    """A demand as the answers' levels: the peak, the base in whole GPUs, and the time at
    the peak that keeps its average."""
    base = math.floor(demand.base)
    share = 0.0 if demand.peak <= base else (demand.mean - base) / (demand.peak - base)
    return {
        "gpus": demand.peak,
        "base_gpus": base,
        "peak_share_pct": round(min(max(share, 0.0), 1.0) * 100, 4),
    }


def pooled_answers(workloads: Sequence[Workload]) -> dict[str, Any]:
    """The answers' own demand keys for the pool (levels), its kind, its residency and the
    share of its work that may run in the cloud (of the workloads that share it)."""
    workloads = members(workloads)
    demand = pooled(workloads)
    kinds = {w.kind for w in workloads}
    residencies = {w.residency for w in workloads}
    # One rule for all, or part of the data bound to the premises.
    residency = residencies.pop() if len(residencies) == 1 else "partial"
    # By the peaks, as the cost model reads it: the pool owns at least the GPUs whose data
    # may not leave at their peak (costs._hybrid_floor).
    cloud = sum(w.demand.peak * w.cloud_share for w in workloads) / demand.peak
    answers: dict[str, Any] = {
        **levels(demand),
        "workload": kinds.pop() if len(kinds) == 1 else "mixed",
        "residency": residency,
        # Latency-bound serving in the pool makes the pool's latency need.
        "latency_critical": any(w.latency_critical for w in workloads),
    }
    if residency == "partial":
        answers["cloud_share_pct"] = round(cloud * 100, 2)
    return answers


def growth_years(
    workloads: Sequence[Workload], *, company_pct: float, years: int
) -> list[dict[str, float]] | None:
    """The pool's base and peak year by year when a workload grows at its own rate (each
    other at the company's), as the answers' `growth_years` give them; None when none does."""
    sharing = members(workloads)
    if all(w.growth_pct is None for w in sharing):
        return None
    rows = []
    for year in range(min(max(years, 1), MAX_YEARS)):
        grown = [
            (w.demand, (1 + (company_pct if w.growth_pct is None else w.growth_pct) / 100) ** year)
            for w in sharing
        ]
        peak = max(sum(d.peak * f for d, f in grown), 1.0)
        base = min(sum(d.base * f for d, f in grown), peak)
        rows.append({"base_gpus": round(base, 2), "peak_gpus": round(peak, 2)})
    return rows


def hold(answers: Mapping[str, Any], workloads: Sequence[Workload]) -> bool:
    """Whether the answers' demand is still the workloads' pooled one (a what-if or a step
    saved since may have changed it: then the workloads describe answers no longer shown)."""
    wanted = pooled_answers(workloads)
    return all(answers.get(key) == wanted[key] for key in ("gpus", "base_gpus", "peak_share_pct"))


def utilization(demand: Demand, owned: float) -> float | None:
    """How busy `owned` GPUs are on average serving `demand` (None: nothing owned)."""
    if owned <= 0:
        return None
    return demand.split(owned)[0] / owned


def _shared(amount: float, claims: Sequence[float]) -> list[float]:
    """`amount` shared in proportion to `claims`, none getting more than it claims."""
    total = sum(claims)
    if total <= 0:
        return [0.0] * len(claims)
    return [min(claim, amount * claim / total) for claim in claims]


def placement(workloads: Sequence[Workload], owned: float) -> list[dict[str, Any]]:
    """Where each workload runs on a pool owning `owned` GPUs: the GPUs its data needs on
    the premises first (its peak when none may leave, half of it when part must stay), then
    the steady bases, then the bursts, each in proportion; the rest of its demand is rented."""
    bound = [w.demand.peak * (1 - w.cloud_share) for w in workloads]
    gpus = _shared(owned, bound)
    left = owned - sum(gpus)
    bases = [max(w.demand.base - g, 0.0) for w, g in zip(workloads, gpus, strict=True)]
    on_bases = _shared(left, bases)
    left -= sum(on_bases)
    bursts = [
        max(w.demand.peak - max(w.demand.base, g), 0.0)
        for w, g in zip(workloads, gpus, strict=True)
    ]
    on_bursts = _shared(left, bursts)
    placed = []
    for w, *parts in zip(workloads, gpus, on_bases, on_bursts, strict=True):
        used = sum(parts)
        served = w.demand.split(used)[0] if used > 0 else 0.0
        rented = w.demand.mean - served
        if used <= 1e-9:
            runs = "cloud"
        elif rented <= 1e-6:
            runs = "owned"
        else:
            runs = "owned_and_cloud"
        placed.append(
            {
                "name": w.name,
                "workload": w.kind,
                "residency": w.residency,
                "peak_gpus": w.demand.peak,
                "mean_gpus": round(w.demand.mean, 2),
                "runs": runs,
                "owned_gpus": round(used, 2),
                "rented_mean_gpus": round(rented, 2),
            }
        )
    return placed


def cost_shares(placed: Sequence[Mapping[str, Any]]) -> list[float]:
    """Each workload's share of the pool's cost: by the GPU-hours it uses."""
    total = sum(p["mean_gpus"] for p in placed)
    return [p["mean_gpus"] / total if total else 1 / len(placed) for p in placed]
