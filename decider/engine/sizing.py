"""Size from the work: the GPUs a training plan and an inference service need.

A CTO knows the models and the traffic, not the GPU count. This module turns them into the
questionnaire's demand answers (`gpus` at the peak, `base_gpus`, `peak_share_pct`), with each
step of the arithmetic written out and every conversion figure dated and sourced, so that
the page can show the working and the user can override the result.

Training: a run of a model with N parameters on D tokens costs 6·N·D FLOPs (forward 2·N,
backward 4·N per token); for a mixture of experts N is the parameters active per token, while
the training state is held for all of them. The cluster is the smallest whole number of nodes
that does one run in the target number of days at the GPU model's dense BF16 peak times the
achieved share of it (MFU: a dense model's, or a mixture of experts' lower one), faster in
FP8 where the GPU has it, and less the time lost to failures, restarts and checkpoints
(goodput); and that holds the training state (16 bytes a parameter).

Inference: the GPU-seconds an input (prompt) token and an output (answer) token cost come
from a published throughput table (engine/throughput.py) for the model size, GPU model and
precision, at the shape of the requests; the tokens a second at the average times them give
the GPUs at the average, and the peak-to-average factor those at the peak. A GPU model the
table lacks, or a serving MFU typed in, falls back to the FLOPs: 2·N a token at that share of
the BF16 peak. A replica holds the weights (2 bytes a parameter in BF16, 1 in FP8) with room
for the KV cache; a latency target per output token adds GPUs to each replica (tensor
parallel, within one node), as decoding one token reads every weight once, and it bounds the
batch: a decoding step may take no longer than the target, so the share of the step left after
reading the weights is the share of the table's decoding rate the service keeps.

Plain Python: no Django, no database. `decider.models` passes the GPU model and its node size.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from decider.engine import gpus, latency, throughput
from decider.engine.gpus import Chip, Chips

SECONDS_PER_DAY = 86_400
DAYS_PER_YEAR = 365


@dataclass(frozen=True)
class Conversion:
    """A figure the sizing uses, with where it comes from and when it was checked."""

    name: str
    value: float
    unit: str
    source: str
    as_of: str


def _c(name: str, value: float, unit: str, source: str, as_of: str) -> Conversion:
    return Conversion(name, value, unit, source, as_of)


TRAIN_FLOPS = _c(
    "train_flops_per_param_token",
    6.0,
    "FLOPs per parameter per token",
    "Kaplan et al. 2020, Scaling Laws for Neural Language Models (arXiv 2001.08361), §2.1: "
    "C ≈ 6N per training token (forward 2N, backward 4N)",
    "2020-01-23",
)
INFER_FLOPS = _c(
    "infer_flops_per_param_token",
    2.0,
    "FLOPs per parameter per token",
    "Kaplan et al. 2020 (arXiv 2001.08361), §2.1: a forward pass costs about 2N per token",
    "2020-01-23",
)
TRAIN_BYTES = _c(
    "train_bytes_per_param",
    16.0,
    "bytes per parameter",
    "Rajbhandari et al. 2020, ZeRO (arXiv 1910.02054), §3.1: mixed-precision Adam keeps "
    "2 + 2 + 12 = 16 bytes per parameter (weights, gradients, optimizer states); "
    "activations come on top",
    "2020-05-13",
)
INFER_BYTES = _c(
    "infer_bytes_per_param",
    2.0,
    "bytes per parameter",
    "BF16/FP16 weights: 2 bytes per parameter (8-bit quantisation halves it)",
    "2025-06-01",
)
INFER_BYTES_FP8 = _c(
    "infer_bytes_per_param_fp8",
    1.0,
    "bytes per parameter",
    "FP8 weights: 1 byte per parameter, as the published FP8 serving figures run them "
    "(NVIDIA TensorRT-LLM performance overview, models quantised with ModelOpt)",
    "2025-02-15",
)
INFER_INPUT_SHARE = _c(
    "infer_input_share",
    0.5,
    "share of the tokens served that are input",
    "Assumed when only the total is given: the middle row of the throughput table "
    "(1,000 tokens in, 1,000 out); give input and output apart for a truer count",
    "2025-02-15",
)
MEMORY_USABLE = _c(
    "memory_usable_share",
    0.8,
    "share of GPU memory",
    "Estimate: a fifth of memory left for activations, the KV cache and the framework "
    "(vLLM's default gpu_memory_utilization is 0.9, with activations outside it)",
    "2025-06-01",
)
TRAIN_MFU = _c(
    "train_mfu",
    0.40,
    "share of dense BF16 peak",
    "Dubey et al. 2024, The Llama 3 Herd of Models (arXiv 2407.21783), Table 4: 38–43 % BF16 "
    "model FLOPs utilization on 8,192–16,384 H100s; LLaMA (arXiv 2302.13971) ran at about "
    "48 % on A100s",
    "2024-07-31",
)
INFER_MFU = _c(
    "infer_mfu",
    0.25,
    "share of dense BF16 peak",
    "Estimate for batched serving at load: Pope et al. 2022, Efficiently Scaling Transformer "
    "Inference (arXiv 2211.05102), reach 76 % in large-batch prefill and far less in decoding, "
    "which reads every weight per token",
    "2022-11-09",
)
DECODE_EFFICIENCY = _c(
    "decode_bandwidth_share",
    0.7,
    "share of memory bandwidth",
    "Estimate: decoding one token reads every weight once; serving engines reach 60–80 % of "
    "the HBM bandwidth in that loop",
    "2025-06-01",
)

A100_TRAIN_MFU = _c(
    "train_mfu_a100",
    gpus.A100_TRAIN_MFU,
    "share of dense BF16 peak",
    "Touvron et al. 2023, LLaMA (arXiv 2302.13971), §2.4: the 65B model ran at about 380 "
    "tokens/s per A100-80GB (6 × 65.2B × 380 = 149 TFLOP/s of 312): used on A100 and A800 when "
    "no MFU is given",
    "2023-02-27",
)
MOE_TRAIN_MFU = _c(
    "train_mfu_moe",
    0.25,
    "share of dense BF16 peak",
    "NVIDIA NeMo AutoModel performance summary (docs.nvidia.com/nemo/automodel, DGX-H100, "
    "BF16 pre-training): DeepSeek-V3 671B at 216–250 model TFLOP/s per GPU, Qwen3 MoE 30B 277, "
    "GPT-OSS 120B 231, against 389 for dense Llama 3 70B: routing and all-to-all traffic cost "
    "a mixture of experts about a third of a dense model's rate",
    "2026-04-17",
)
FP8_SPEEDUP = _c(
    "train_fp8_speedup",
    1.3,
    "× the BF16 rate",
    "Estimate: FP8 tensor cores double the dense peak of Hopper, Ada and Blackwell GPUs, but "
    "end to end a run gains less (NVIDIA, Faster Training Throughput in FP8 Precision with "
    "NVIDIA NeMo, 2025: up to 2× on large matrix multiplies, less with scaling overheads and "
    "the layers left in BF16); DeepSeek-V3 trained in FP8 (arXiv 2412.19437)",
    "2025-12-01",
)
GOODPUT = _c(
    "train_goodput",
    0.9,
    "share of the run's time doing useful work",
    "Dubey et al. 2024, The Llama 3 Herd of Models (arXiv 2407.21783), §3.3.4: 466 job "
    "interruptions in a 54-day snapshot of pre-training on 16,384 H100s, and more than 90 % "
    "effective training time",
    "2024-07-31",
)

CONVERSIONS: tuple[Conversion, ...] = (
    TRAIN_FLOPS,
    INFER_FLOPS,
    TRAIN_BYTES,
    INFER_BYTES,
    INFER_BYTES_FP8,
    INFER_INPUT_SHARE,
    MEMORY_USABLE,
    TRAIN_MFU,
    A100_TRAIN_MFU,
    MOE_TRAIN_MFU,
    FP8_SPEEDUP,
    GOODPUT,
    INFER_MFU,
    DECODE_EFFICIENCY,
)
PRECISIONS = ("bf16", "fp8")
CHIPS: Mapping[str, Chip] = Chips()  # every offered GPU model's datasheet (engine/gpus.py)


@dataclass(frozen=True)
class Training:
    """A training plan: the model, the tokens of one run, runs a year, days a run may take."""

    params_b: float  # parameters, billions (all of them: the training state holds them)
    tokens_b: float  # tokens per run, billions
    runs_per_year: float
    days_per_run: float
    mfu: float | None = None  # None: the GPU model's, or a mixture of experts' (train_mfu)
    active_params_b: float | None = None  # a mixture of experts: parameters per token
    precision: str = "bf16"  # or "fp8" (PRECISIONS)
    goodput: float = GOODPUT.value

    @property
    def moe(self) -> bool:
        return self.active_params_b is not None and self.active_params_b < self.params_b

    def train_mfu(self, chip: Chip) -> float:
        """The share of the BF16 peak a run achieves: given, or a mixture of experts', or
        a dense run's on this GPU model."""
        if self.mfu is not None:
            return self.mfu
        if self.moe:
            return MOE_TRAIN_MFU.value
        return chip.train_mfu or TRAIN_MFU.value


@dataclass(frozen=True, kw_only=True)
class Inference:
    """A service: the model, tokens a day (input and output apart, or their total), the peak
    over the average, and the time per output token it must keep (None: no target)."""

    params_b: float
    peak_to_average: float
    tokens_per_day_m: float | None = None  # millions a day, input and output together
    input_tokens_per_day_m: float | None = None  # prompts read
    output_tokens_per_day_m: float | None = None  # answers written
    latency_ms: float | None = None
    mfu: float | None = None  # typed in: size by the FLOPs at this share, not the table
    request_tokens: float = throughput.DEFAULT_REQUEST_TOKENS  # input and output of a request
    precision: str | None = None  # None: FP8 where the GPU has it, else BF16

    def tokens_apart(self) -> tuple[float, float]:
        """(input, output) millions of tokens a day: as given, or the total split."""
        if self.input_tokens_per_day_m is not None and self.output_tokens_per_day_m is not None:
            return self.input_tokens_per_day_m, self.output_tokens_per_day_m
        total = self.tokens_per_day_m or 0.0
        return total * INFER_INPUT_SHARE.value, total * (1 - INFER_INPUT_SHARE.value)

    def serving_precision(self, chip: Chip) -> str:
        if self.precision is None:
            return "fp8" if chip.fp8 else "bf16"
        return self.precision if chip.fp8 else "bf16"


@dataclass
class Sizing:
    """The demand answers the work implies, with the arithmetic behind them."""

    gpus: int  # at the peak
    base_gpus: int  # at the quietest
    peak_share_pct: float  # time at the peak, for the demand model's average
    average_gpus: float
    lines: list[dict[str, Any]] = field(default_factory=list)  # each step: what and how much
    problems: list[str] = field(default_factory=list)  # targets it cannot reach
    throughput: dict[str, Any] | None = None  # the published rows serving was sized from

    def answers(self) -> dict[str, Any]:
        """The questionnaire's demand answers (the user may change each)."""
        return {
            "gpus": self.gpus,
            "base_gpus": self.base_gpus,
            "peak_share_pct": self.peak_share_pct,
        }


def _nodes(gpus: float, per_node: int) -> int:
    """Whole nodes: a cluster is bought and rented by the node."""
    return max(per_node, math.ceil(gpus / per_node - 1e-9) * per_node)


def _split(gpus: float) -> int:
    """GPUs a replica is split over: a power of two (tensor parallelism divides the
    attention heads, which come in powers of two)."""
    return 1 if gpus <= 1 else 2 ** math.ceil(math.log2(gpus) - 1e-9)


def train_size(work: Training, chip: Chip, *, per_node: int) -> dict[str, Any]:
    """The cluster one run needs in its target days, and how busy the plan keeps it."""
    active = work.active_params_b if work.active_params_b is not None else work.params_b
    flops = TRAIN_FLOPS.value * active * 1e9 * work.tokens_b * 1e9
    mfu = work.train_mfu(chip)
    fp8 = work.precision == "fp8" and chip.fp8
    speedup = FP8_SPEEDUP.value if fp8 else 1.0
    rate = chip.tflops * 1e12 * mfu * speedup  # FLOP/s one GPU achieves while it runs
    gpu_seconds = flops / rate / work.goodput  # and the time lost to failures and restarts
    for_time = gpu_seconds / (work.days_per_run * SECONDS_PER_DAY)
    state_gb = TRAIN_BYTES.value * work.params_b  # GB, as params are in billions
    for_memory = state_gb / (chip.memory_gb * MEMORY_USABLE.value)
    gpus = _nodes(max(for_time, for_memory), per_node)
    days = gpu_seconds / gpus / SECONDS_PER_DAY
    busy = min(1.0, work.runs_per_year * days / DAYS_PER_YEAR)
    return {
        "flops_per_run": flops,
        "active_params_b": active,
        "mfu": mfu,
        "precision": "fp8" if fp8 else "bf16",
        "goodput": work.goodput,
        "problems": ["fp8"] if work.precision == "fp8" and not chip.fp8 else [],
        "gpu_hours_per_run": gpu_seconds / 3600,
        "gpus_for_time": for_time,
        "gpus_for_memory": for_memory,
        "gpus": gpus,
        "days_per_run": days,
        "busy_share": busy,
    }


def infer_size(work: Inference, chip: Chip, *, per_node: int, gpu_model: str) -> dict[str, Any]:
    """The GPUs at the average and at the peak, in whole replicas."""
    precision = work.serving_precision(chip)
    problems = ["fp8"] if work.precision == "fp8" and precision != "fp8" else []
    per_param = INFER_BYTES_FP8.value if precision == "fp8" else INFER_BYTES.value
    weights_gb = per_param * work.params_b
    bandwidth = chip.bandwidth_tbs * 1e12 * DECODE_EFFICIENCY.value  # bytes/s per GPU
    replica, unmet = _replica(work, chip, weights_gb, bandwidth, per_node)
    problems.extend(unmet)
    input_m, output_m = work.tokens_apart()
    input_s = input_m * 1e6 / SECONDS_PER_DAY
    output_s = output_m * 1e6 / SECONDS_PER_DAY
    table = None
    kept = 1.0  # the share of the table's decoding rate a latency target leaves
    if work.mfu is None:
        best = _best_split(
            work,
            gpu_model=gpu_model,
            precision=precision,
            replica=replica,
            per_node=per_node,
            weights_gb=weights_gb,
            bandwidth=bandwidth,
            tokens_m=(input_m, output_m),
            tokens_s=(input_s, output_s),
        )
        if best is not None:
            average, replica, table, kept = best
            if kept < 0.1 and "latency" not in problems:
                problems.append("latency")
    flops_s = None
    if table is None:
        flops_s = INFER_FLOPS.value * work.params_b * 1e9 * (input_s + output_s)
        average = flops_s / (chip.tflops * 1e12 * (work.mfu or INFER_MFU.value))
    peak_gpus, base_gpus = _in_replicas(average, replica, work.peak_to_average)
    return {
        "tokens_per_second": input_s + output_s,
        "input_tokens_per_second": input_s,
        "output_tokens_per_second": output_s,
        "flops_per_second": flops_s,
        "precision": precision,
        **_table_rates(
            table, kept, work.latency_ms, _published_kept(work, gpu_model) if table else None
        ),
        "gpus_per_replica": replica,
        "average_gpus": average,
        "gpus": peak_gpus,
        "base_gpus": base_gpus,
        "problems": problems,
    }


def _replica(
    work: Inference, chip: Chip, weights_gb: float, bandwidth: float, per_node: int
) -> tuple[int, list[str]]:
    """(the GPUs a replica is split over, the targets it cannot meet): enough to hold the
    weights with room for the KV cache and, under a latency target, to read them within it
    (within one node); `bandwidth`: the bytes a second one GPU reads while decoding."""
    problems = []
    replica = _split(weights_gb / (chip.memory_gb * MEMORY_USABLE.value))
    if work.latency_ms is not None:
        # Decoding a token reads every weight once; tensor parallelism splits the reading.
        needed = weights_gb * 1e9 / (bandwidth * work.latency_ms / 1000)
        if needed > per_node:
            problems.append("latency")
        replica = max(replica, min(per_node, _split(needed)))
    if replica > per_node:
        problems.append("memory")
    return replica, problems


def _best_split(
    work: Inference,
    *,
    gpu_model: str,
    precision: str,
    replica: int,
    per_node: int,
    weights_gb: float,
    bandwidth: float,
    tokens_m: tuple[float, float],
    tokens_s: tuple[float, float],
) -> tuple[float, int, throughput.Served, float] | None:
    """Sized from the published table: (the GPUs at the average, the GPUs a replica is split
    over, the table's rates, the share of its decoding rate a latency target leaves) of the
    split that needs the fewest GPUs for the load; None when the table has no row.
    `tokens_m`: (input, output) millions a day; `tokens_s`: the same a second."""
    input_m, output_m = tokens_m
    input_s, output_s = tokens_s
    share = input_m / (input_m + output_m) if input_m + output_m else 0.0
    best = None
    published = _published_kept(work, gpu_model)
    # Under a latency target a wider split reads the weights faster and keeps a bigger
    # batch: the split that needs the fewest GPUs for the load wins.
    splits = [replica]
    while work.latency_ms is not None and splits[-1] * 2 <= per_node:
        splits.append(splits[-1] * 2)
    for split in splits:
        served = throughput.served(
            gpu_model=gpu_model,
            precision=precision,
            params_b=work.params_b,
            replica=split,
            input_share=share,
            request_tokens=work.request_tokens,
        )
        if served is None:
            break
        keeps = 1.0
        if published is not None:
            keeps = published.share
        elif work.latency_ms is not None:
            step = weights_gb * 1e9 / (split * bandwidth)  # seconds to read the weights
            keeps = max(0.0, 1 - step / (work.latency_ms / 1000))
        need = input_s * served.seconds_in + output_s * served.seconds_out / max(keeps, 0.1)
        if best is None or need < best[0] - 1e-12:
            best = (need, split, served, keeps)
    return best


def _published_kept(work: Inference, gpu_model: str) -> latency.Kept | None:
    """The share of the table's writing rate the time per output token keeps, read from
    published pairs of latency limits (engine/latency.py); None without a target, or where
    nothing is published for the GPU's family (the bandwidth estimate then)."""
    if work.latency_ms is None:
        return None
    return latency.kept(gpu_model=gpu_model, params_b=work.params_b, tpot_ms=work.latency_ms)


def _in_replicas(average: float, replica: int, peak_to_average: float) -> tuple[int, int]:
    """(the GPUs at the peak, at the quietest hours) in whole replicas of `replica` GPUs.
    Assumed: the quietest hours run as far below the average as the peak runs above it."""
    peak = average * peak_to_average
    trough = average / peak_to_average

    def replicas(gpus: float) -> int:
        return max(1, math.ceil(gpus / replica - 1e-9)) * replica

    return replicas(peak), replicas(trough)


def _table_rates(
    table: throughput.Served | None,
    kept: float,
    latency_ms: float | None,
    published: latency.Kept | None,
) -> dict[str, Any]:
    """The table's prefill and decode rates (tokens a GPU-second), the share of the decoding
    rate a latency target leaves, and the table's rows; None each when sized by the FLOPs."""
    return {
        "prefill_rate": 1 / table.seconds_in if table and table.seconds_in else None,
        "decode_rate": 1 / table.seconds_out if table else None,
        "latency_share": kept if table and latency_ms is not None else None,
        "throughput": _throughput_shown(table, published),
    }


def _latency_shown(found: latency.Kept | None) -> dict[str, Any] | None:
    """Which published pairs of latency limits the latency share was read from."""
    if not found:
        return None
    return {
        "share": found.share,
        "tpot_ms": found.tpot_ms,
        "tight_tpot_ms": found.tight_tpot_ms,
        "tight_ttft_ms": found.pairs[0].tight_ttft_ms,
        "loose_tpot_ms": found.loose_tpot_ms,
        "loose_ttft_ms": found.pairs[0].loose_ttft_ms,
        "beyond_published": found.beyond,
        "pairs": [
            {
                "benchmark": pair.benchmark,
                "system": pair.system,
                "interactive_tokens_per_second": pair.tight,
                "server_tokens_per_second": pair.loose,
                "kept": round(pair.kept, 3),
                "source": pair.source,
            }
            for pair in found.pairs
        ],
        "as_of": latency.AS_OF,
    }


def _throughput_shown(
    table: throughput.Served | None, published: latency.Kept | None
) -> dict[str, Any] | None:
    """Which rows of the published table the service was sized from."""
    if table is None:
        return None
    return {
        "rows": list(table.rows),
        "gpu_model": table.gpu,
        "precision": table.precision,
        "input_tokens_per_gpu_second": 1 / table.seconds_in if table.seconds_in else None,
        "output_tokens_per_gpu_second": 1 / table.seconds_out,
        "fit_within": round(table.worst, 3),
        "source": throughput.SOURCE,
        "as_of": throughput.AS_OF,
        "latency": _latency_shown(published),  # None: no target, or the bandwidth estimate
    }


# The arithmetic as shown, in order: line key → what train_size or infer_size returns.
TRAIN_LINES = {
    "train_flops": "flops_per_run",
    "train_mfu": "mfu",
    "train_goodput": "goodput",
    "train_gpu_hours": "gpu_hours_per_run",
    "train_gpus_for_time": "gpus_for_time",
    "train_gpus_for_memory": "gpus_for_memory",
    "train_gpus": "gpus",
    "train_days": "days_per_run",
    "train_busy_share": "busy_share",
}
INFER_LINES = {
    "infer_tokens_per_second": "tokens_per_second",
    "infer_input_tokens_per_second": "input_tokens_per_second",
    "infer_output_tokens_per_second": "output_tokens_per_second",
    "infer_prefill_rate": "prefill_rate",
    "infer_decode_rate": "decode_rate",
    "infer_latency_share": "latency_share",
    "infer_gpus_per_replica": "gpus_per_replica",
    "infer_average_gpus": "average_gpus",
    "infer_gpus": "gpus",
    "infer_base_gpus": "base_gpus",
}


def _lines(shown: dict[str, str], computed: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"key": key, "value": computed[name]}
        for key, name in shown.items()
        if computed[name] is not None  # a line of the other method, or of no latency target
    ]


def size(
    *,
    gpu_model: str,
    per_node: int = 8,
    training: Training | None = None,
    inference: Inference | None = None,
) -> Sizing:
    """The demand of a training plan, an inference service, or both on one fleet.

    Both: the peak is the service's peak with a training run going (the worst hour), the
    base is the service's quietest hour, and the time at the peak makes the average right.
    """
    if training is None and inference is None:
        raise ValueError("size what: a training plan, an inference service, or both")
    chip = CHIPS[gpu_model]
    lines: list[dict[str, Any]] = []
    problems: list[str] = []
    peak = base = 0
    average = 0.0
    throughput_used = None
    if training is not None:
        t = train_size(training, chip, per_node=per_node)
        lines += _lines(TRAIN_LINES, t)
        problems += t["problems"]
        peak += t["gpus"]
        average += t["gpus"] * t["busy_share"]
    if inference is not None:
        i = infer_size(inference, chip, per_node=per_node, gpu_model=gpu_model)
        throughput_used = i["throughput"]
        lines += _lines(INFER_LINES, i)
        peak += i["gpus"]
        base += i["base_gpus"]
        average += max(i["average_gpus"], i["base_gpus"])
        problems += i["problems"]
    average = min(max(average, base), peak)
    share = 0.0 if peak == base else (average - base) / (peak - base)
    return Sizing(
        gpus=peak,
        base_gpus=base,
        peak_share_pct=round(share * 100, 1),
        average_gpus=average,
        lines=lines,
        problems=problems,
        throughput=throughput_used,
    )


# --- the workload as sent (decide's answers file: "work") -----------------------

# Each input: (lowest, highest) accepted; mfu may be left out (the default above).
TRAINING_INPUTS = {
    "params_b": (0.001, 100_000.0),
    "tokens_b": (0.001, 1_000_000.0),
    "runs_per_year": (0.01, 1_000.0),
    "days_per_run": (0.01, 3_650.0),
    "mfu": (0.01, 1.0),
    "active_params_b": (0.001, 100_000.0),
    "goodput": (0.3, 1.0),
}
INFERENCE_INPUTS = {
    "params_b": (0.001, 100_000.0),
    "tokens_per_day_m": (0.000001, 1_000_000_000.0),
    "input_tokens_per_day_m": (0.0, 1_000_000_000.0),
    "output_tokens_per_day_m": (0.000001, 1_000_000_000.0),
    "request_tokens": (2.0, 1_000_000.0),
    "peak_to_average": (1.0, 100.0),
    "latency_ms": (0.1, 100_000.0),
    "mfu": (0.01, 1.0),
}
OPTIONAL_INPUTS = frozenset(
    {
        "mfu",
        "latency_ms",
        "active_params_b",
        "goodput",
        "tokens_per_day_m",
        "input_tokens_per_day_m",
        "output_tokens_per_day_m",
        "request_tokens",
    }
)
# Inputs that are words, not numbers: (part, input) → the words allowed (the first: default).
CHOICE_INPUTS = {("training", "precision"): PRECISIONS, ("inference", "precision"): PRECISIONS}
APART = ("input_tokens_per_day_m", "output_tokens_per_day_m")


def tokens_problems(values: dict[str, Any]) -> dict[str, str]:
    """The tokens a day of a service: the total, or input and output apart (both), by input."""
    given = [name for name in APART if name in values]
    total = values.get("tokens_per_day_m")
    if len(given) == 1:
        missing = next(name for name in APART if name not in values)
        return {missing: f"give {missing} too, or tokens_per_day_m alone"}
    if not given and total is None:
        return {"tokens_per_day_m": "give tokens_per_day_m, or " + " and ".join(APART)}
    if given and total is not None:
        apart = values[APART[0]] + values[APART[1]]
        if abs(total - apart) > 0.01 * apart:
            return {"tokens_per_day_m": f"must equal input + output ({apart:g}), or be left out"}
    return {}


def workload_parse(raw: Any) -> tuple[Training | None, Inference | None, dict[str, str]]:
    """{"training": {...}, "inference": {...}} (either or both) checked: the work, or a
    message per input in error ("work.training.params_b": ...)."""
    errors: dict[str, str] = {}
    if not isinstance(raw, dict) or not ({"training", "inference"} & set(raw)):
        return None, None, {"work": 'give "training", "inference" or both'}
    for extra in set(raw) - {"training", "inference"}:
        errors[f"work.{extra}"] = "not a part of the workload"
    parsed: dict[str, dict[str, Any]] = {}
    for part, inputs in (("training", TRAINING_INPUTS), ("inference", INFERENCE_INPUTS)):
        if part not in raw:
            continue
        given = raw[part]
        if not isinstance(given, dict):
            errors[f"work.{part}"] = "must be an object of numbers"
            continue
        choices = {name: allowed for (p, name), allowed in CHOICE_INPUTS.items() if p == part}
        for extra in set(given) - set(inputs) - set(choices):
            errors[f"work.{part}.{extra}"] = "not an input of the sizing"
        values: dict[str, Any] = {}
        for name, allowed in choices.items():
            if name not in given:
                continue
            if given[name] in allowed:
                values[name] = given[name]
            else:
                errors[f"work.{part}.{name}"] = "must be one of " + ", ".join(allowed)
        for name, (low, high) in inputs.items():
            # Left out or null: one meaning, not given (the answers' `served` keeps the block
            # without its nulls, questionnaire._served_validate).
            value = given.get(name)
            if value is None and name in OPTIONAL_INPUTS:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                leave = ", or leave it out" if name in OPTIONAL_INPUTS else ""
                errors[f"work.{part}.{name}"] = f"give a number from {low:g} to {high:g}{leave}"
            elif not low <= value <= high:
                errors[f"work.{part}.{name}"] = f"must be from {low:g} to {high:g}"
            else:
                values[name] = float(value)
        if part == "inference" and not any(k.startswith(f"work.{part}.") for k in errors):
            for name, message in tokens_problems(values).items():
                errors[f"work.{part}.{name}"] = message
        active, total = values.get("active_params_b"), values.get("params_b")
        if active is not None and total is not None and active > total:
            errors[f"work.{part}.active_params_b"] = "must not exceed params_b (all parameters)"
        parsed[part] = values
    if errors:
        return None, None, errors
    training = Training(**parsed["training"]) if "training" in parsed else None
    inference = Inference(**parsed["inference"]) if "inference" in parsed else None
    return training, inference, {}


def sizing_document(sized: Sizing, *, gpu_model: str) -> dict[str, Any]:
    """The sizing as JSON: the answers it gives, its arithmetic and its figures."""
    chip = CHIPS[gpu_model]
    return {
        **sized.answers(),
        "average_gpus": sized.average_gpus,
        "gpu_model": gpu_model,
        "lines": sized.lines,
        "problems": sized.problems,
        "throughput": sized.throughput,
        "chip": {
            "tflops_bf16_dense": chip.tflops,
            "memory_gb": chip.memory_gb,
            "bandwidth_tbs": chip.bandwidth_tbs,
            "source": chip.source,
            "as_of": chip.as_of,
        },
        "conversions": [
            {"name": c.name, "value": c.value, "unit": c.unit, "source": c.source, "as_of": c.as_of}
            for c in CONVERSIONS
        ],
    }


def answers_sized(raw: Any) -> tuple[Any, dict[str, Any] | None, dict[str, str]]:
    """Answers as sent, with a "work" block turned into the demand answers it implies:
    (the answers, the sizing document or None, errors by input). Answers given beside the
    block win (they are the user's override); an average utilization given stands for the
    demand levels, so only the GPU count is filled in then. The block itself is not an
    answer: what it gave is.
    """
    if not isinstance(raw, dict) or "work" not in raw:
        return raw, None, {}
    raw = dict(raw)
    work = raw.pop("work")
    training, inference, errors = workload_parse(work)
    if errors:
        return raw, None, errors
    gpu_model = raw.get("gpu_model") or gpus.DEFAULT
    if not isinstance(gpu_model, str) or gpu_model not in CHIPS:
        return raw, None, {}  # the answers' own check names the GPU model in error
    sized = size(gpu_model=gpu_model, training=training, inference=inference)
    given = sized.answers()
    if "utilization_pct" in raw:
        given = {"gpus": given["gpus"]}
    for key, value in given.items():
        raw.setdefault(key, value)
    if inference is not None:  # the service as given: what a per-token API would be sent
        raw.setdefault("served", dict(work["inference"]))
    return raw, sizing_document(sized, gpu_model=gpu_model), {}
