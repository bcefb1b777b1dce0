"""A reality check on the utilization a plan expects (issue 51).

Utilization here is GPU-hours busy with work over GPU-hours owned (or rented), averaged over
the horizon; `nvidia-smi`'s "util" counts a GPU busy when any kernel runs and overstates it.
Plans expect more than fleets reach: the published traces below. Above BUSY_FROM the answer
is kept, the result says how rare it is, and the odds draw the utilization down as far as
the best-run trace (an answer the user gave a range for keeps that range); below IDLE_BELOW
the result says that renting is the usual answer.

Plain Python: no Django.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from decider.engine.ranges import SPREADS
from decider.engine.text import Text

# The source's own line for owning (§七), its rule of thumb's (engine/costs.py): above it,
# a fleet the published traces rarely see.
BUSY_FROM = 0.70
IDLE_BELOW = 0.15
# The busiest published trace of a shared cluster: Acme's LLM clusters were busy about 62 %
# to 70 % of the time (Hu et al., NSDI 2024). An answer above BUSY_FROM is drawn down to it.
SEEN_BUSIEST = 0.62


@dataclass(frozen=True)
class Trace:
    """A published measure of how busy real GPU fleets are."""

    key: str
    what: Text  # the fleet and the figure, in both languages
    source: str
    as_of: str

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "what": self.what.as_dict(),
            "source": self.source,
            "as_of": self.as_of,
        }


TRACES: tuple[Trace, ...] = (
    Trace(
        "acme",
        Text(
            "Shanghai AI Lab's Acme LLM clusters: GPUs busy about 62–70 % of the time, about 40 % "
            "SM activity (2023)",
            "上海人工智能实验室 Acme 大模型集群：GPU 约 62–70 % 的时间处于忙碌，SM 活跃度约 40 %（2023 年）",
        ),
        "Hu et al., Characterization of Large Language Model Development in the Datacenter, "
        "USENIX NSDI 2024 (arXiv 2403.07648)",
        "2024-04-16",
    ),
    Trace(
        "philly",
        Text(
            "Microsoft's Philly cluster: about 47 % mean GPU utilization (2017)",
            "微软 Philly 集群：GPU 平均利用率约 47 %（2017 年）",
        ),
        "Jeon et al., Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training "
        "Workloads, USENIX ATC 2019",
        "2019-07-10",
    ),
    Trace(
        "pai",
        Text(
            "Alibaba PAI: about 10 % median GPU utilization (2020)",
            "阿里巴巴 PAI：GPU 利用率中位数约 10 %（2020 年）",
        ),
        "Weng et al., MLaaS in the Wild: Workload Analysis and Scheduling in Large-Scale "
        "Heterogeneous GPU Clusters, USENIX NSDI 2022",
        "2022-04-04",
    ),
    Trace(
        "castai",
        Text(
            "Cast AI: about 5 % average GPU utilization across 23,000 Kubernetes clusters (2026)",
            "Cast AI：23,000 个 Kubernetes 集群的 GPU 平均利用率约 5 %（2026 年）",
        ),
        "Cast AI, State of Kubernetes Optimization Report, 2026",
        "2026-03-01",
    ),
    Trace(
        "llama3",
        Text(
            "Meta's Llama 3 405B run: 419 unexpected interruptions in 54 days, about 90 % "
            "effective training time (2024)",
            "Meta 的 Llama 3 405B 训练：54 天内 419 次意外中断，有效训练时间约 90 %（2024 年）",
        ),
        "Dubey et al., The Llama 3 Herd of Models (arXiv 2407.21783), §3.3.4",
        "2024-07-31",
    ),
)


@dataclass(frozen=True)
class UtilizationCheck:
    """What the traces say of the utilization a plan expects: `kind` "busy" (above
    BUSY_FROM: rarely reached) or "idle" (below IDLE_BELOW: renting is the usual answer)."""

    kind: str
    utilization: float
    drawn_from: float | None  # busy: the lowest utilization the odds draw

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "utilization_pct": round(self.utilization * 100, 2),
            "threshold_pct": round((BUSY_FROM if self.kind == "busy" else IDLE_BELOW) * 100, 2),
            "odds_low_pct": None if self.drawn_from is None else round(self.drawn_from * 100, 2),
            "traces": [trace.to_json() for trace in TRACES],
        }


def utilization_check(utilization: float) -> UtilizationCheck | None:
    """The check on an expected average utilization (a share), or None when it is within
    what fleets reach."""
    if utilization > BUSY_FROM:
        low = drawn_low(utilization, SPREADS["utilization"].low)
        return UtilizationCheck("busy", utilization, utilization * low)
    if utilization < IDLE_BELOW:
        return UtilizationCheck("idle", utilization, None)
    return None


def drawn_low(utilization: float, low: float) -> float:
    """The low end of the odds' utilization multiplier: `low`, or lower for an answer above
    BUSY_FROM, so that the draws reach the busiest published trace (SEEN_BUSIEST)."""
    if utilization <= BUSY_FROM:
        return low
    return min(low, SEEN_BUSIEST / utilization)
