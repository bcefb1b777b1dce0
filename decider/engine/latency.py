"""What a latency target leaves of a server's throughput, read from published pairs.

The throughput table (engine/throughput.py) is measured at maximum load: batches as large as
memory allows, each answer token as slow as that makes it. A service that must answer
interactively keeps the batch smaller, and each GPU writes fewer tokens a second. MLPerf
Inference publishes the same system, software and data set under two sets of latency limits
(99th percentile): the ordinary server limits and the interactive ones. Their ratio is the
share of throughput the tighter target keeps:

    Llama 2 70B on 8× H100 (v5.0): interactive (TTFT 450 ms, TPOT 40 ms) over server (2 s,
    200 ms): HPE 0.459, Dell 0.420.
    Llama 3.1 8B on 8× H200 (v5.1): interactive (500 ms, 30 ms) over server (2 s, 100 ms):
    HPE 0.824, Quanta 0.934. No H100 system published the 8B pair; the H200 is the same
    Hopper chip with more memory, and its ratio is borrowed.

A target between the two limits keeps a share interpolated in the logarithm of the time per
output token; one at or above the server limit keeps all of the table's rate (the server
limits are the reference); one tighter than the interactive limit keeps the interactive share
scaled down in proportion (beyond anything published: said so). A model size between the two
classes takes the nearer class in the logarithm of its parameters. GPUs outside the Hopper
family have no published pair: the sizing keeps its bandwidth estimate.

Plain Python: no Django.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from decider.engine import gpus

HOPPER = frozenset({"h100", "h200"})  # the table's names of the chips the pairs measured


@dataclass(frozen=True)
class Pair:
    """One system's published throughput under the server and the interactive limits."""

    benchmark: str
    system: str
    params_b: float
    gpu: str  # the table's name of the chip measured
    tight_ttft_ms: float
    tight_tpot_ms: float
    loose_ttft_ms: float
    loose_tpot_ms: float
    tight: float  # output tokens/s of the whole system under the interactive limits
    loose: float  # the same under the server limits
    source: str

    @property
    def kept(self) -> float:
        return self.tight / self.loose


_V50 = (
    "MLCommons, MLPerf Inference v5.0 results, 2025-04-02, github.com/mlcommons/"
    "inference_results_v5.0 (closed/{path}, llama2-70b-99 and -interactive-99, Server)"
)
_V51 = (
    "MLCommons, MLPerf Inference v5.1 results, 2025-09-09, github.com/mlcommons/"
    "inference_results_v5.1 (summary_results.json, llama3.1-8b and -interactive, Server)"
)
AS_OF = "2025-09-09"
PAIRS: tuple[Pair, ...] = (
    Pair(
        "MLPerf Inference v5.0, Llama 2 70B",
        "HPE Cray XD670, 8× H100-SXM-80GB, TensorRT",
        70,
        "h100",
        450,
        40,
        2000,
        200,
        14_004.93,
        30_498.90,
        _V50.format(path="HPE/results/HPE_Cray_XD670_H100_SXM_80GBx8_TRT"),
    ),
    Pair(
        "MLPerf Inference v5.0, Llama 2 70B",
        "Dell PowerEdge XE9680, 8× H100-SXM-80GB, TensorRT",
        70,
        "h100",
        450,
        40,
        2000,
        200,
        12_979.40,
        30_903.60,
        _V50.format(path="Dell/results/XE9680_H100_SXM_80GBx8_TRT"),
    ),
    Pair(
        "MLPerf Inference v5.1, Llama 3.1 8B",
        "HPE, 8× H200-SXM-141GB, TensorRT",
        8,
        "h200",
        500,
        30,
        2000,
        100,
        53_475.2,
        64_914.6,
        _V51,
    ),
    Pair(
        "MLPerf Inference v5.1, Llama 3.1 8B",
        "Quanta, 8× H200-SXM-141GB, TensorRT",
        8,
        "h200",
        500,
        30,
        2000,
        100,
        54_117.6,
        57_970.4,
        _V51,
    ),
)


@dataclass(frozen=True)
class Kept:
    """The share of the table's writing rate a time per output token keeps, and the pairs it
    was read from."""

    share: float
    tpot_ms: float  # the target asked for
    pairs: tuple[Pair, ...]
    beyond: bool  # tighter than any published limit: scaled down, not measured

    @property
    def tight_tpot_ms(self) -> float:
        return self.pairs[0].tight_tpot_ms

    @property
    def loose_tpot_ms(self) -> float:
        return self.pairs[0].loose_tpot_ms


def kept(*, gpu_model: str, params_b: float, tpot_ms: float) -> Kept | None:
    """What a time per output token of `tpot_ms` keeps of the table's writing rate on this
    GPU model for a model of `params_b` billion parameters; None where nothing is published
    for the GPU's family."""
    if gpus.measured_as(gpu_model) not in HOPPER or tpot_ms <= 0:
        return None
    sizes = sorted({pair.params_b for pair in PAIRS})
    size = min(sizes, key=lambda b: abs(math.log(b) - math.log(max(params_b, 0.1))))
    pairs = tuple(pair for pair in PAIRS if pair.params_b == size)
    tight_share = sum(pair.kept for pair in pairs) / len(pairs)
    tight, loose = pairs[0].tight_tpot_ms, pairs[0].loose_tpot_ms
    if tpot_ms >= loose:
        share = 1.0
    elif tpot_ms >= tight:
        t = math.log(tpot_ms / tight) / math.log(loose / tight)
        share = tight_share + t * (1 - tight_share)
    else:
        share = tight_share * tpot_ms / tight
    return Kept(share=share, tpot_ms=tpot_ms, pairs=pairs, beyond=tpot_ms < tight)
