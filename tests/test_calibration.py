"""Published cases, reproduced (issue 29): each with its source, the work a user would type
for it, the published figure and the tolerance it must land within.

docs/CALIBRATION.md shows them side by side (`make calibration` writes it from CASES; a test
below fails when it is out of date).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from decider.engine import latency
from decider.engine.costs import CostAnswers, costs_compute
from decider.engine.evaluation import answers_costs
from decider.engine.sizing import CHIPS, Inference, Training, infer_size, train_size
from decider.engine.tiers import SEMIANALYSIS, SEMIANALYSIS_AS_OF, TIERS
from tests.factories import make_answers, shipped_figures

DOC = Path(__file__).resolve().parent.parent / "docs" / "CALIBRATION.md"


@dataclass(frozen=True)
class Case:
    name: str
    source: str  # title, date, address
    gpu_model: str
    work: dict[str, Any]  # work.training as the API and decide read it
    published: float  # GPU-hours of one run
    tolerance: float  # a share either way
    note: str = ""

    def ours(self) -> float:
        training = Training(**self.work)
        return train_size(training, CHIPS[self.gpu_model], per_node=8)["gpu_hours_per_run"]


_LLAMA2 = (
    "Touvron et al., Llama 2: Open Foundation and Fine-Tuned Chat Models, 2023-07-18, "
    "https://arxiv.org/abs/2307.09288 (Table 2: GPU-hours on A100-80GB; 2.0T tokens)"
)
CASES = (
    Case(
        "Llama 2 7B pre-training",
        _LLAMA2,
        "a100",
        {"params_b": 7, "tokens_b": 2000, "runs_per_year": 1, "days_per_run": 30},
        184_320,
        0.15,
    ),
    Case(
        "Llama 2 70B pre-training",
        _LLAMA2,
        "a100",
        {"params_b": 70, "tokens_b": 2000, "runs_per_year": 1, "days_per_run": 30},
        1_720_320,
        0.15,
    ),
    Case(
        "Llama 3.1 405B pre-training",
        "Meta, Llama 3.1 model card, 2024-07-23, "
        "https://github.com/meta-llama/llama-models/blob/main/models/llama3_1/MODEL_CARD.md "
        "(30.84M H100-80GB GPU-hours for 405B); Dubey et al., The Llama 3 Herd of Models, "
        "https://arxiv.org/abs/2407.21783 (§3.2.1: 15.6T tokens)",
        "h100",
        {"params_b": 405, "tokens_b": 15_600, "runs_per_year": 1, "days_per_run": 54},
        30_840_000,
        0.15,
    ),
    Case(
        "DeepSeek-V3 pre-training (mixture of experts, FP8)",
        "DeepSeek-AI, DeepSeek-V3 Technical Report, 2024-12-27, https://arxiv.org/abs/2412.19437 "
        "(Table 1: 2,664K H800 GPU-hours of pre-training on 14.8T tokens; 671B parameters, 37B "
        "active per token; FP8 mixed precision)",
        "h800",
        {
            "params_b": 671,
            "active_params_b": 37,
            "precision": "fp8",
            "tokens_b": 14_800,
            "runs_per_year": 1,
            "days_per_run": 57,
        },
        2_664_000,
        0.25,
        "Entered as a dense 671B model it comes out about 13× the published figure.",
    ),
)


@dataclass(frozen=True)
class ServingCase:
    """A published serving rate: output tokens a second of `gpus` GPUs at one request shape.
    Ours: the GPUs Decider sizes for that load, kept up all day (peak = average)."""

    name: str
    source: str
    gpu_model: str
    params_b: float
    request: tuple[int, int]  # input, output tokens of a request
    published_rate: float  # output tokens/s of the whole system
    gpus: int  # the published system's GPUs
    tolerance: float = 0.30

    @property
    def published(self) -> float:
        return self.gpus

    def ours(self) -> float:
        isl, osl = self.request
        per_day_m = self.published_rate * 86_400 / 1e6  # output tokens, millions a day
        work = Inference(
            params_b=self.params_b,
            input_tokens_per_day_m=per_day_m * isl / osl,
            output_tokens_per_day_m=per_day_m,
            request_tokens=isl + osl,
            peak_to_average=1,
        )
        chip = CHIPS[self.gpu_model]
        return infer_size(work, chip, per_node=8, gpu_model=self.gpu_model)["average_gpus"]


_TRTLLM_1 = (
    "NVIDIA, TensorRT-LLM performance overview, release 1.0 measurements (PyTorch backend, "
    "FP8 models from NVIDIA's Model Optimizer collection), 2025, "
    "https://nvidia.github.io/TensorRT-LLM/performance/perf-overview.html "
    "(docs/source/performance/perf-overview.md): total output throughput at maximum load. "
    "Decider's table is the same page's release-0.17 measurements; these came a year of "
    "software later, and the H100's 405B row was not in the 0.17 table at all"
)
SERVING = (
    ServingCase(
        "Llama 3.1 8B, 1,000 in / 1,000 out", _TRTLLM_1, "h100", 8, (1000, 1000), 15_220, 1
    ),
    ServingCase("Llama 3.3 70B, 500 in / 2,000 out", _TRTLLM_1, "h100", 70, (500, 2000), 5_222, 2),
    ServingCase("Llama 3.3 70B, 5,000 in / 500 out", _TRTLLM_1, "h100", 70, (5000, 500), 898, 2),
    ServingCase(
        "Llama 3.1 405B, 1,000 in / 1,000 out", _TRTLLM_1, "h100", 405, (1000, 1000), 2_919, 8
    ),
)


# --- costs ---------------------------------------------------------------------------
#
# A cost case is a published decision or price: the answers and figures that describe it,
# what was published, and what Decider makes of it. Its direction (which option is cheaper)
# must come out as published; where the source gives an amount, within its tolerance.


@dataclass(frozen=True)
class CostCase:
    name: str
    source: str
    published: str  # as the source puts it
    figures: dict[str, float]  # shipped H100 figures, these changed
    answers: dict[str, Any]  # CostAnswers
    cheaper: str  # the option the source says is cheaper: "onprem" or "cloud"
    saving: float | None = None  # published saving of `cheaper` over the horizon, USD
    tolerance: float = 0.30
    note: str = ""

    def costs(self) -> dict[str, Any]:
        answers = CostAnswers(**self.answers)
        return costs_compute(answers=answers, figures=shipped_figures("h100", **self.figures))

    def ours(self) -> dict[str, float]:
        """Decider's totals of owning and renting (the cheaper cloud way), its saving, the
        month owning pays back and the owned cost per used GPU-hour at full use."""
        costs = self.costs()
        totals = costs["totals"]
        cloud = min(totals["cloud_on_demand"], totals["cloud_reserved"])
        return {
            "onprem": totals["onprem"],
            "cloud": cloud,
            "saving": abs(cloud - totals["onprem"]),
            "break_even_month": costs["break_even_month"],
            "owned_per_hour": costs["per_hour"]["onprem"][-1],
        }


# 37signals' compute, in Decider's units: one "GPU" is one of the servers bought, at the
# published hardware price, rented at the cloud bill it replaced (one-year commitments).
_37_SERVERS = 20
_37_RATE = 1_900_000 / _37_SERVERS / 8760  # $3.2M → $1.3M a year: $1.9M of compute
# 1,024 H100s busy around the clock for five years, in rented space, as a neocloud owns them.
_FLEET = {
    "gpus": 1024,
    "base_gpus": 1024,
    "utilization": 1.0,
    "horizon_months": 60,
    "dataset_tb": 0.0,
    "has_datacenter": False,
}
_GPU_BUBBLE = (
    "Eugene Cheah, $2 H100s: How the GPU Bubble Burst, Latent Space, October 2024, "
    "https://www.latent.space/p/gpu-bubble (an H100 rented out below about $1.65 an hour "
    "over five years does not pay back its purchase); the H100 one-year rental index at "
    "$1.70 in October 2025 and $2.35 in March 2026: SemiAnalysis, The Great GPU Shortage, "
    "2026-04-02, https://newsletter.semianalysis.com/p/the-great-gpu-shortage-rental-capacity"
)
COSTS = (
    CostCase(
        "Cloud exit: 37signals leaves AWS",
        "David Heinemeier Hansson, Our cloud-exit savings will now top ten million over five "
        "years, October 2024, https://world.hey.com/dhh/our-cloud-exit-savings-will-now-top-ten-"
        "million-over-five-years-c7d9b5bd (cloud bill $3.2M → $1.3M a year; about $700,000 of "
        "Dell hardware in racks and power they already had, recouped within 2023)",
        "on-prem, saving about $10M over five years; the hardware paid back within months",
        {
            "gpus_per_node": 1,
            "smallest_server_gpus": 1,
            "server_price": 700_000 / _37_SERVERS,
            "network_per_node": 0,
            "setup_cost": 0,
            "node_kw": 0.8,
            "gpu_hour_reserved_1y": _37_RATE,
            "gpu_hour_reserved_3y": _37_RATE,
            "gpu_hour_on_demand": _37_RATE / 0.79,
        },
        {
            **_FLEET,
            "gpus": _37_SERVERS,
            "base_gpus": _37_SERVERS,
            "has_datacenter": True,
            "team_fte": 10,
        },
        "onprem",
        saving=10_000_000,
        note="Decider also pays three months of cloud while the servers arrive (as 37signals "
        "did while its commitments ran out) and a yearly maintenance of 10 % of the hardware. "
        "The team that ran the cloud runs the servers: the answers give it and do not count "
        "its pay, as the published saving (the cloud bill's fall) does not.",
    ),
    CostCase(
        "Renting at the market's October 2025 low",
        _GPU_BUBBLE,
        "an H100 rented at $1.70 an hour is about what owning one costs: renting wins",
        {"gpu_hour_reserved_1y": 1.70, "gpu_hour_reserved_3y": 1.70},
        _FLEET,
        "cloud",
    ),
    CostCase(
        "Renting at the market's March 2026 price",
        _GPU_BUBBLE,
        "at $2.35 an hour, an H100 owned and kept busy pays back: owning wins",
        {"gpu_hour_reserved_1y": 2.35, "gpu_hour_reserved_3y": 2.35},
        _FLEET,
        "onprem",
    ),
)
# The owned cost per used H100-hour at full use the issue asks for ($1.20–1.75); the
# published point is the GPU-bubble article's $1.65.
OWNED_GOAL = (1.20, 1.75)


@pytest.mark.parametrize("case", COSTS, ids=[case.name for case in COSTS])
def test_a_published_cost_case_comes_out_the_same_way(case):
    ours = case.ours()
    other = "cloud" if case.cheaper == "onprem" else "onprem"
    assert ours[case.cheaper] < ours[other]
    if case.saving is not None:
        assert ours["saving"] == pytest.approx(case.saving, rel=case.tolerance)


def test_the_cloud_exit_pays_back_within_the_year_it_was_made():
    assert COSTS[0].ours()["break_even_month"] <= 12


def test_the_rental_price_that_turns_the_answer_lies_between_the_market_low_and_today():
    """Owned at full use costs more than the low's rent and less than today's: the market's
    swing is what turns a fully used fleet's answer, as the article says."""
    owned = COSTS[1].ours()["owned_per_hour"]
    assert 1.70 < owned < 2.35


@pytest.mark.parametrize("case", SERVING, ids=[case.name for case in SERVING])
def test_a_published_serving_rate_is_reproduced_within_its_tolerance(case):
    assert case.ours() == pytest.approx(case.published, rel=case.tolerance)


# --- serving at a latency target ----------------------------------------------------------
#
# MLPerf publishes the same systems under the server and the interactive limits; the share of
# throughput the interactive limits keep is what a latency target costs. Decider's share for
# a service of that model on that GPU, with that time per output token, against each pair.
LATENCY_TOLERANCE = 0.25


def _latency_share(pair: latency.Pair) -> float:
    work = Inference(
        params_b=pair.params_b,
        tokens_per_day_m=10_000,
        peak_to_average=1,
        latency_ms=pair.tight_tpot_ms,
    )
    return infer_size(work, CHIPS[pair.gpu], per_node=8, gpu_model=pair.gpu)["latency_share"]


@pytest.mark.parametrize("pair", latency.PAIRS, ids=[p.system for p in latency.PAIRS])
def test_a_latency_target_keeps_the_share_a_published_pair_measured(pair):
    assert _latency_share(pair) == pytest.approx(pair.kept, rel=LATENCY_TOLERANCE)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_published_training_run_is_reproduced_within_its_tolerance(case):
    assert case.ours() == pytest.approx(case.published, rel=case.tolerance)


def test_a_mixture_of_experts_entered_as_dense_is_far_off_and_its_active_parameters_fix_it():
    deepseek = CASES[-1]
    dense = {k: v for k, v in deepseek.work.items() if k != "active_params_b"}
    as_dense = Case(**{**deepseek.__dict__, "work": dense}).ours()
    assert as_dense > 8 * deepseek.published
    # Memory still holds all 671B: 16 bytes a parameter over 64 usable GB.
    run = train_size(Training(**deepseek.work), CHIPS["h800"], per_node=8)
    assert run["gpus_for_memory"] == pytest.approx(671 * 16 / 64)


def test_fp8_is_faster_only_where_the_gpu_has_it():
    work = {"params_b": 70, "tokens_b": 2000, "runs_per_year": 1, "days_per_run": 30}
    bf16 = train_size(Training(**work), CHIPS["h100"], per_node=8)
    fp8 = train_size(Training(**work, precision="fp8"), CHIPS["h100"], per_node=8)
    assert fp8["gpu_hours_per_run"] == pytest.approx(bf16["gpu_hours_per_run"] / 1.3)
    a100 = train_size(Training(**work, precision="fp8"), CHIPS["a100"], per_node=8)
    assert a100["precision"] == "bf16" and a100["problems"] == ["fp8"]


def test_the_calibration_page_is_up_to_date():
    assert DOC.read_text() == calibration_page(), "run: make calibration"


def _tier_rows() -> list[str]:
    """Decider's owned cost per used GPU-hour at full use against the published tiers."""
    rows = []
    for gpu_model in sorted(TIERS):
        answers = make_answers(
            "research_lab",
            gpu_model=gpu_model,
            gpus=1024,
            utilization_pct=100.0,
            horizon_years=5,
            demand_shape="steady",
            has_datacenter=False,
        )
        ours = answers_costs(answers=answers, figures=shipped_figures(gpu_model), excluded=[])[
            "owned_per_used_gpu_hour"
        ]
        low, high, rented = (tier.per_hour for tier in TIERS[gpu_model])
        within = "yes" if low * 0.9 <= ours <= high * 1.1 else "**no**"
        rows.append(
            f"| {gpu_model.upper()} | ${ours:.2f} | ${low:.2f} | ${high:.2f} | ${rented:.2f} "
            f"| {within} |"
        )
    return rows


def calibration_page() -> str:
    rows = []
    for case in CASES:
        ours = case.ours()
        rows.append(
            f"| {case.name} | {case.gpu_model.upper()} | {case.published:,.0f} | {ours:,.0f} | "
            f"{ours / case.published - 1:+.0%} | ±{case.tolerance:.0%} |"
        )
    serving = [
        f"| {case.name} | {case.gpu_model.upper()} | {case.published_rate:,.0f} | "
        f"{case.gpus} | {case.ours():.2f} | {case.ours() / case.gpus - 1:+.0%} | "
        f"±{case.tolerance:.0%} |"
        for case in SERVING
    ]
    held = [
        f"| {pair.benchmark}, {pair.system} | {pair.tight_tpot_ms:g} ms ({pair.loose_tpot_ms:g}) "
        f"| {pair.tight:,.0f} / {pair.loose:,.0f} = {pair.kept:.3f} | {_latency_share(pair):.3f} "
        f"| {_latency_share(pair) / pair.kept - 1:+.0%} | ±{LATENCY_TOLERANCE:.0%} |"
        for pair in latency.PAIRS
    ]
    sources = "\n".join(
        f"- **{case.name}**: {case.source}." + (f" {case.note}" if case.note else "")
        for case in CASES
    )
    sources += f"\n- **Serving rates**: {_TRTLLM_1}."
    sources += "".join(
        f"\n- **Latency pair, {pair.system}**: {pair.source}." for pair in latency.PAIRS
    )
    sources += "".join(
        f"\n- **{case.name}**: {case.source}." + (f" {case.note}" if case.note else "")
        for case in COSTS
        if case.source != _GPU_BUBBLE
    )
    sources += f"\n- **Rental market and owned cost**: {_GPU_BUBBLE}."
    costs = []
    for case in COSTS:
        ours = case.ours()
        cheaper = "on-prem" if ours["onprem"] < ours["cloud"] else "cloud"
        amount = (
            f"saving ${ours['saving'] / 1e6:,.1f}M ({ours['saving'] / case.saving - 1:+.0%}, "
            f"±{case.tolerance:.0%}); pays back in month {ours['break_even_month']}"
            if case.saving
            else f"owned ${ours['owned_per_hour']:.2f} against rented "
            f"${case.figures['gpu_hour_reserved_1y']:.2f} a used GPU-hour"
        )
        costs.append(f"| {case.name} | {case.published} | {cheaper}, {amount} |")
    owned = COSTS[1].ours()["owned_per_hour"]
    rate = shipped_figures("h100")["maintenance_rate"].value
    halved = CostCase(**{**COSTS[1].__dict__, "figures": {"maintenance_rate": rate / 2}})
    lower = owned - halved.ours()["owned_per_hour"]
    low, high = OWNED_GOAL
    return f"""# Calibration: published cases against Decider's figures

Written by `make calibration` from `tests/test_calibration.py`, where each case carries its
source, the work a user would type and its tolerance; the suite fails when a figure leaves
its tolerance or this page is out of date.

## Training runs: GPU-hours of one run

| case | GPU | published | Decider | off by | tolerance |
|---|---|---:|---:|---:|---:|
{chr(10).join(rows)}

Decider's arithmetic (`decider/engine/sizing.py`): 6 × parameters active per token × tokens,
over the GPU's dense BF16 peak × the achieved share of it (0.40 on H100-class GPUs after
Llama 3, 0.476 on A100s after LLaMA, 0.25 for a mixture of experts after NVIDIA's published
DeepSeek-V3 and Qwen3 MoE rates), 1.3× in FP8 where the GPU has it, and divided by a goodput
of 0.9 (Llama 3: more than 90 % effective training time).

## Serving: GPUs for a published rate

| case | GPU | output tokens/s published | on GPUs | Decider's GPUs | off by | tolerance |
|---|---|---:|---:|---:|---:|---:|
{chr(10).join(serving)}

Decider's arithmetic (`decider/engine/throughput.py`): GPU-seconds per prompt token and per
answer token (with its context) fitted to the release-0.17 rows of the same model, GPU and
precision; the 405B row borrows the H200's 405B/70B ratio, as the H100 has no 405B row there.

## Serving at a latency target: the share of throughput it keeps

| published pair | time per output token (server limit) | interactive / server tokens/s | Decider's share | off by | tolerance |
|---|---|---:|---:|---:|---:|
{chr(10).join(held)}

Decider's arithmetic (`decider/engine/latency.py`): the writing rate of the throughput table
(maximum load) times the mean of the published pairs' shares for the model's size class on
Hopper GPUs, interpolated in the logarithm of the time per output token between the
interactive and the server limit (all of it at the server limit or looser). Before, a
bandwidth estimate kept 81 % for the 70B model at 40 ms and 99 % for the 8B at 30 ms. The
absolute rates are not compared here: the sources read give the data sets' mean output
length (294 tokens for OpenOrca) but not their mean input length, which the rate depends on.

## Costs: which way a published decision goes

| case | published | Decider |
|---|---|---|
{chr(10).join(costs)}

Each case's direction is tested; the cloud exit's saving within its tolerance. **Owned cost
per used H100-hour at full use**, five years, 1,024 GPUs in rented space: **${owned:.2f}**
(three months of cloud while the servers arrive included), against the issue's goal of
${low:.2f}–{high:.2f} and the article's $1.65. Not reached: the largest running line,
maintenance at {rate * 100:.0f} % of the hardware a year, is the one figure without a published rate
behind it (no vendor support price list nor replacement cost from published failure rates
could be checked offline); at half that rate the figure would be ${lower:.2f} lower.

## Owning per used GPU-hour against the published tiers

The result prints owning's own cost per used GPU-hour (`costs.owned_per_used_gpu_hour`: on-prem's
plan less its rent while the servers arrive, over the hours of work the servers do, per GPU
of the model) beside these tiers. 1,024 GPUs busy around the clock for five years in rented
space, the shipped figures; issue 51 asks for owning between the hyperscaler and the neocloud
figure, ±10 %.

| GPU | Decider, owned | owned at hyperscaler volume | owned by a neocloud | rented, 3-year commitment | within ±10 % |
|---|---:|---:|---:|---:|---|
{chr(10).join(_tier_rows())}

Source of the tiers: {SEMIANALYSIS} ({SEMIANALYSIS_AS_OF[:7]}). Where Decider lies above the
neocloud figure, maintenance at {rate * 100:.0f} % of the hardware a year is the line that
tips it (above).

## Sources

{sources}
"""
