"""Time the cost model and its charts.

Run as `.venv/bin/python benchmarks/bench_costs.py [--write]`; `--write` replaces the
"## Cost model" section of docs/BENCHMARKS.md with the table and the machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import django  # noqa: E402
from django.conf import settings  # noqa: E402

settings.configure(USE_I18N=False)
django.setup()

from benchmarks.common import machine_lines, report  # noqa: E402
from decider.charts import charts_for  # noqa: E402
from decider.engine.costs import CostAnswers, costs_compute  # noqa: E402
from decider.engine.figures import Figure, figures_select  # noqa: E402

FIXTURE = ROOT / "fixtures" / "assumptions.json"
GPU_MODEL = "h100"
HORIZONS = (12, 36, 120)
RUNS = 60
SIZES = (8, 1_000, 10_000, 100_000)  # GPUs, each at every horizon
SIZE_RUNS = 30
WARMUP = 5
MODEL_TARGET_MS = 10.0
FIGURES_TARGET_MS = 50.0
SECTION = "## Cost model"


def load_figures(gpu_model: str = GPU_MODEL) -> dict[str, Figure]:
    rows = json.loads(FIXTURE.read_text(encoding="utf-8"))["assumptions"]
    return figures_select(rows=rows, gpu_model=gpu_model)


def answers_for(months: int, gpus: int = 64) -> CostAnswers:
    return CostAnswers(
        gpus=gpus,
        utilization=0.6,
        horizon_months=months,
        dataset_tb=50.0,
        has_datacenter=False,
        demand_shape="moderate",
    )


def _once_ms(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def alternating_ms(
    fn: Callable[[], object],
    baseline: Callable[[], object],
    runs: int = RUNS,
    warmup: int = WARMUP,
) -> tuple[float, float]:
    """Medians of `fn` and `baseline`, run in alternation so both see the same machine."""
    for _ in range(warmup):
        fn()
        baseline()
    pairs = [(_once_ms(fn), _once_ms(baseline)) for _ in range(runs)]
    return (
        statistics.median(p[0] for p in pairs),
        statistics.median(p[1] for p in pairs),
    )


class SizeRow(NamedTuple):
    gpus: int
    months: int
    model: float
    model_base: float


class Row(NamedTuple):
    label: int
    model: float
    model_base: float
    figures: float | None = None
    figures_base: float | None = None


def measure() -> tuple[list[Row], list[SizeRow]]:
    figures = load_figures()
    baseline_costs = costs_compute(answers=answers_for(36), figures=figures)

    def baseline() -> str:
        return json.dumps(baseline_costs)

    by_horizon = []
    for months in HORIZONS:
        answers = answers_for(months)

        def model(answers: CostAnswers = answers) -> dict:
            return costs_compute(answers=answers, figures=figures)

        def with_figures(answers: CostAnswers = answers) -> str:
            charts = charts_for(costs_compute(answers=answers, figures=figures))
            return json.dumps([chart.figure for chart in charts])

        by_horizon.append(
            Row(months, *alternating_ms(model, baseline), *alternating_ms(with_figures, baseline))
        )
    by_size = []
    for gpus in SIZES:
        for months in HORIZONS:
            answers = answers_for(months, gpus)
            model_ms, base_ms = alternating_ms(
                lambda a=answers: costs_compute(answers=a, figures=figures),
                baseline,
                runs=SIZE_RUNS,
                warmup=2,
            )
            by_size.append(SizeRow(gpus, months, model_ms, base_ms))
    return by_horizon, by_size


def _ratio(value: float | None, base: float | None) -> str:
    return f"{value / base:.0f}" if value is not None and base else ""


def table(by_horizon: list[Row], by_size: list[SizeRow]) -> str:
    baselines = [r.model_base for r in [*by_horizon, *by_size]]
    lines = [
        "| Horizon (months) | costs_compute (ms) | × baseline | "
        "+ charts_for + json.dumps (ms) | × baseline |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in by_horizon:
        lines.append(
            f"| {row.label} | {row.model:.2f} | {_ratio(row.model, row.model_base)} | "
            f"{row.figures:.2f} | {_ratio(row.figures, row.figures_base)} |"
        )
    lines.append(
        "| baseline: json.dumps of the 36-month costs, median "
        f"{statistics.median(baselines):.3f} ms (range {min(baselines):.3f}–{max(baselines):.3f}) "
        "| | 1 | | 1 |"
    )
    lines += [
        "",
        "By cluster size and horizon (the hybrid search prices the owned bases beside the "
        "cost curve's turns and an even sample of 25, not every whole-node count):",
        "",
        "| GPUs | " + " | ".join(f"{m} months (ms) | ×" for m in HORIZONS) + " |",
        "|---:|" + "---:|---:|" * len(HORIZONS),
    ]
    for gpus in SIZES:
        cells = [r for r in by_size if r.gpus == gpus]
        lines.append(
            f"| {gpus:,} | "
            + " | ".join(f"{r.model:.2f} | {_ratio(r.model, r.model_base)}" for r in cells)
            + " |"
        )
    return "\n".join(lines)


def section(by_horizon: list[Row], by_size: list[SizeRow]) -> str:
    worst_model = max(row.model for row in by_horizon)
    worst_figures = max(row.figures or 0.0 for row in by_horizon)
    at_36 = next(row for row in by_horizon if row.label == 36)
    worst_size = max(by_size, key=lambda row: row.model)
    model_ok = at_36.model <= MODEL_TARGET_MS
    figures_ok = worst_figures < FIGURES_TARGET_MS
    return "\n".join(
        [
            SECTION,
            "",
            "`.venv/bin/python benchmarks/bench_costs.py --write` (part of `make bench`): median of "
            f"{RUNS} runs after {WARMUP} warm-up runs (`time.perf_counter`), each run of the "
            "subject followed by one of the baseline, so the ratio compares the two on the same "
            f"machine state; {GPU_MODEL} fixture assumptions, 64 GPUs, 60 % utilization, 50 TB, "
            "no datacenter, moderate demand, USD. The model prices five options, searches the "
            "cloud commitment and the hybrid's owned base, the break-even and the sensitivity.",
            "",
            table(by_horizon, by_size),
            "",
            *machine_lines(),
            f"- Target: costs_compute ≤ {MODEL_TARGET_MS:.0f} ms at 36 months — "
            f"{'met' if model_ok else 'not met'} ({at_36.model:.2f} ms, "
            f"{_ratio(at_36.model, at_36.model_base)}× baseline; worst horizon {worst_model:.2f} ms)",
            f"- Target: costs_compute ≤ {MODEL_TARGET_MS:.0f} ms at any size and horizon — "
            f"{'met' if worst_size.model <= MODEL_TARGET_MS else 'not met'} (worst "
            f"{worst_size.model:.2f} ms, {worst_size.gpus:,} GPUs over {worst_size.months} months)",
            f"- Target: with figures < {FIGURES_TARGET_MS:.0f} ms — "
            f"{'met' if figures_ok else 'not met'} (worst {worst_figures:.2f} ms)",
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    by_horizon, by_size = measure()
    text = section(by_horizon, by_size)
    report(SECTION, text, write=args.write)


if __name__ == "__main__":
    main()
