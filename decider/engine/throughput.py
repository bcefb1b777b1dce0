"""Serving throughput from a published table: the GPU-seconds a token costs, input and output
apart.

A serving engine's throughput depends on the model, the GPU, the precision, the split of the
model over GPUs (tensor parallelism) and the shape of the requests: prompts are read in one
parallel pass (prefill), answers are written a token at a time (decode), and each answer token
reads the request's context again. One share of the FLOP peak for every case was 1.5× off for
a 70B model and 0.5× for an 8B one.

The table is NVIDIA's TensorRT-LLM performance overview (version 0.17): output tokens a second
under maximum load for Llama 3.1 8B, 70B and 405B on H100, H200, L40S and A100 at nine request
shapes. Each series (model, GPU, precision, tensor parallel size) is fitted with three
figures, in GPU-seconds:

    per output token = prefill × (input tokens / output tokens) + decode + context × (input
    + output / 2) / 1000

prefill: reading one prompt token; decode: writing one answer token; context: the extra cost
of each thousand tokens of context a decoding step reads (the KV cache). The fit holds every
row of the table's ordinary request lengths within about 10 %. A model between two sizes of
the table is interpolated, one outside them scaled by its parameters; a GPU model the table
lacks is said to be so, and the sizing falls back to its FLOP estimate.

Plain Python and numpy: no Django.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from decider.engine import gpus

SOURCE = (
    "NVIDIA, TensorRT-LLM performance overview, measurements with version 0.17 "
    "(docs/source/performance/perf-overview.md, https://nvidia.github.io/TensorRT-LLM/"
    "performance/perf-overview.html): total output tokens/s at maximum load, FP8 on "
    "H100/H200/L40S, FP16 on A100"
)
AS_OF = "2025-02-15"
SHAPES: tuple[tuple[int, int], ...] = (  # (input, output) tokens of a request, the table's rows
    (128, 128),
    (128, 2048),
    (128, 4096),
    (500, 2000),
    (1000, 1000),
    (2048, 128),
    (2048, 2048),
    (5000, 500),
    (20000, 2000),
)
FITTED_UP_TO = 5_500  # tokens a request: the 20,000-token row is a long-context case apart
DEFAULT_REQUEST_TOKENS = 2_000  # the table's middle row: 1,000 in and 1,000 out

# (model billions, GPU, precision, tensor parallel size) → output tokens/s of the whole
# replica at each of SHAPES (None: not published, the model did not fit).
TABLE: dict[tuple[float, str, str, int], tuple[float | None, ...]] = {
    (8, "h200", "fp8", 1): (29526, 25399, 17371, 21021, 17538, 3794, 11969, 3988, 1804),
    (8, "h100", "fp8", 1): (28837, 21109, 13594, 16501, 15245, 3557, 9488, 3559, 1401),
    (8, "l40s", "fp8", 1): (9105, 5366, 3026, 4274, 4055, 1067, 2225, 981, 328),
    (8, "a100", "bf16", 1): (6627, 5256, 3454, 4277, 3787, 800, 2424, 825, 330),
    (70, "h200", "fp8", 1): (4021, 4166, 2652, 3018, 2823, 466, 1914, 560, 280),
    (70, "h200", "fp8", 2): (6823, 8290, 6527, 6848, 5165, 809, 4184, 1025, 641),
    (70, "h100", "fp8", 2): (6645, 6170, 3897, 4973, 4391, 773, 2898, 920, 443),
    (70, "h200", "fp8", 4): (11099, 14156, 10574, 12453, 8911, 1358, 7130, 1812, 1200),
    (70, "h100", "fp8", 4): (11128, 11512, 7439, 9837, 7431, 1303, 5480, 1603, 920),
    (70, "l40s", "fp8", 4): (1524, 1943, 1440, 1635, 1209, 178, 970, 250, 162),
    (70, "a100", "bf16", 4): (2733, 2811, 1976, 2276, 1922, 325, 1394, 393, 212),
    (70, "h200", "fp8", 8): (15356, 21196, 16942, 17278, 13181, 1983, 11142, 2718, 1920),
    (70, "h100", "fp8", 8): (14731, 17062, 14171, 14679, 11451, 1923, 8802, 2457, 1513),
    (70, "l40s", "fp8", 8): (1464, 2303, 2018, 1972, 1334, 176, 1200, 260, 210),
    (70, "a100", "bf16", 8): (4718, 5242, 3725, 4445, 3320, 542, 2554, 696, 413),
    (405, "h200", "fp8", 8): (3874, 5938, 5168, 5084, 3400, 463, 2941, 669, 535),
}


@dataclass(frozen=True)
class Fit:
    """GPU-seconds per token of one series, and the rows it rests on."""

    prefill: float  # per input token
    decode: float  # per output token
    context: float  # per output token, per thousand tokens of context
    rows: int
    worst: float  # the largest miss over its rows, a share

    def seconds(self, ratio: float, context_k: float) -> float:
        """GPU-seconds per output token at ratio input/output tokens and context_k thousand
        tokens of context."""
        return self.prefill * ratio + self.decode + self.context * context_k


@cache
def fit(key: tuple[float, str, str, int]) -> Fit:
    """Least squares on relative error over the ordinary request lengths."""
    tp = key[3]
    shapes, rates = [], []
    for (isl, osl), rate in zip(SHAPES, TABLE[key], strict=True):
        if rate is not None and isl + osl <= FITTED_UP_TO:
            shapes.append((isl, osl))
            rates.append(rate / tp)  # per GPU
    x = np.array([[i / o, 1.0, (i + o / 2) / 1000] for i, o in shapes])
    y = 1 / np.array(rates)
    weight = np.array(rates)[:, None]
    coef = np.linalg.lstsq(x * weight, y * weight[:, 0], rcond=None)[0]
    coef = np.maximum(coef, 0.0)
    misses = (1 / (x @ coef)) / np.array(rates) - 1
    return Fit(
        prefill=float(coef[0]),
        decode=float(coef[1]),
        context=float(coef[2]),
        rows=len(rates),
        worst=float(np.abs(misses).max()),
    )


@dataclass(frozen=True)
class Served:
    """What the table says of one service on one GPU model."""

    seconds_in: float  # GPU-seconds per input token
    seconds_out: float  # GPU-seconds per output token, its context included
    rows: tuple[str, ...]  # the series used, in words
    gpu: str  # the table's GPU model
    precision: str
    worst: float  # the largest miss of their fits over the table's rows

    def label(self) -> str:
        return "; ".join(self.rows)


@dataclass(frozen=True)
class _Point:
    """One model size's cost on one GPU, and where it came from."""

    seconds_in: float
    seconds_out: float
    rows: tuple[str, ...]
    worst: float


def _series_for(gpu: str, precision: str) -> dict[float, list[int]]:
    found: dict[float, list[int]] = {}
    for model_b, g, p, tp in TABLE:
        if g == gpu and p == precision:
            found.setdefault(model_b, []).append(tp)
    return found


def _tp(available: list[int], replica: int) -> int:
    """The table's split nearest the replica's: the smallest that holds it, or the largest."""
    holding = sorted(tp for tp in available if tp >= replica)
    return holding[0] if holding else max(available)


def _row(model_b: float, gpu: str, precision: str, tp: int) -> str:
    return f"Llama 3.1 {model_b:g}B, {gpu.upper()}, {precision.upper()}, TP{tp}"


def _point(
    model_b: float, gpu: str, precision: str, replica: int, context_k: float
) -> _Point | None:
    """A model size of the table on this GPU: measured, or borrowed from a GPU that measured
    it beside a size this one measured (the ratio between the two sizes carried over)."""
    mine = _series_for(gpu, precision)

    def cost(key: tuple[float, str, str, int]) -> tuple[float, float, float]:
        f = fit(key)
        return f.prefill, f.decode + f.context * context_k, f.worst

    if model_b in mine:
        tp = _tp(mine[model_b], replica)
        p, d, worst = cost((model_b, gpu, precision, tp))
        return _Point(p, d, (_row(model_b, gpu, precision, tp),), worst)
    for other in sorted({g for _b, g, p, _t in TABLE if p == precision} - {gpu}):
        theirs = _series_for(other, precision)
        shared = [b for b in mine if b in theirs]
        if model_b not in theirs or not shared:
            continue
        base = min(shared, key=lambda b: abs(b - model_b))
        their_tp = _tp(theirs[model_b], replica)
        my_tp = _tp(mine[base], their_tp)
        p, d, w0 = cost((base, gpu, precision, my_tp))
        p1, d1, w1 = cost((model_b, other, precision, their_tp))
        p0, d0, w2 = cost((base, other, precision, _tp(theirs[base], their_tp)))
        rows = (
            f"{_row(base, gpu, precision, my_tp)} × ({_row(model_b, other, precision, their_tp)}"
            f" / {_row(base, other, precision, their_tp)})",
        )
        return _Point(p * p1 / p0 if p0 else p, d * d1 / d0, rows, max(w0, w1, w2))
    return None


def served(
    *,
    gpu_model: str,
    precision: str,
    params_b: float,
    replica: int,
    input_share: float,
    request_tokens: float,
) -> Served | None:
    """GPU-seconds per input and per output token of a service, or None when the table has no
    row for this GPU model in this precision.

    input_share: input tokens over all tokens of a request; request_tokens: input and output
    of one request. A model between two sizes of the table is interpolated in its parameters;
    one outside them is scaled from the nearest by its parameters.
    """
    gpu = gpus.measured_as(gpu_model)
    if not _series_for(gpu, precision):
        return None
    context_k = request_tokens * (input_share + (1 - input_share) / 2) / 1000
    points = {}
    for model_b in sorted({b for b, _g, p, _t in TABLE if p == precision}):
        point = _point(model_b, gpu, precision, replica, context_k)
        if point is not None:
            points[model_b] = point
    sizes = sorted(points)
    below = [b for b in sizes if b <= params_b]
    above = [b for b in sizes if b >= params_b]
    if below and above:
        b0, b1 = below[-1], above[0]
        lo, hi = points[b0], points[b1]
        t = 0.0 if b1 == b0 else (params_b - b0) / (b1 - b0)
        seconds_in = lo.seconds_in + t * (hi.seconds_in - lo.seconds_in)
        seconds_out = lo.seconds_out + t * (hi.seconds_out - lo.seconds_out)
        used = (lo,) if b1 == b0 else (lo, hi)
    else:
        nearest = below[-1] if below else above[0]
        scale = params_b / nearest  # a token's work follows the parameters
        point = points[nearest]
        seconds_in, seconds_out = point.seconds_in * scale, point.seconds_out * scale
        used = (point,)
    return Served(
        seconds_in=seconds_in,
        seconds_out=seconds_out,
        rows=tuple(row for point in used for row in point.rows),
        gpu=gpu,
        precision=precision,
        worst=max(point.worst for point in used),
    )


def precisions(gpu_model: str) -> tuple[str, ...]:
    """The precisions the table measured on a GPU model (none: it is not in the table)."""
    gpu = gpus.measured_as(gpu_model)
    return tuple(sorted({p for _b, g, p, _tp in TABLE if g == gpu}))
