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

from decider.engine.sizing import CHIPS, Training, train_size

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


def calibration_page() -> str:
    rows = []
    for case in CASES:
        ours = case.ours()
        rows.append(
            f"| {case.name} | {case.gpu_model.upper()} | {case.published:,.0f} | {ours:,.0f} | "
            f"{ours / case.published - 1:+.0%} | ±{case.tolerance:.0%} |"
        )
    sources = "\n".join(
        f"- **{case.name}**: {case.source}." + (f" {case.note}" if case.note else "")
        for case in CASES
    )
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

## Sources

{sources}
"""
