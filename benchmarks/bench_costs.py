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
WARMUP = 5
MODEL_TARGET_MS = 10.0
FIGURES_TARGET_MS = 50.0
SECTION = "## Cost model"


def load_figures(gpu_model: str = GPU_MODEL) -> dict[str, Figure]:
    rows = json.loads(FIXTURE.read_text(encoding="utf-8"))["assumptions"]
    return figures_select(rows=rows, gpu_model=gpu_model)


def answers_for(months: int) -> CostAnswers:
    return CostAnswers(
        gpus=64,
        utilization=0.6,
        horizon_months=months,
        dataset_tb=50.0,
        has_datacenter=False,
        demand_shape="moderate",
    )


def median_ms(fn: Callable[[], object], runs: int = RUNS, warmup: int = WARMUP) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def measure() -> tuple[float, list[tuple[int, float, float]]]:
    figures = load_figures()
    baseline_costs = costs_compute(answers=answers_for(36), figures=figures)
    baseline = median_ms(lambda: json.dumps(baseline_costs))
    rows = []
    for months in HORIZONS:
        answers = answers_for(months)

        def model(answers: CostAnswers = answers) -> dict:
            return costs_compute(answers=answers, figures=figures)

        def with_figures(answers: CostAnswers = answers) -> str:
            charts = charts_for(costs_compute(answers=answers, figures=figures))
            return json.dumps([chart.figure for chart in charts])

        rows.append((months, median_ms(model), median_ms(with_figures)))
    return baseline, rows


def table(baseline: float, rows: list[tuple[int, float, float]]) -> str:
    lines = [
        "| Horizon (months) | costs_compute (ms) | × baseline | "
        "+ charts_for + json.dumps (ms) | × baseline |",
        "|---:|---:|---:|---:|---:|",
    ]
    for months, model, figures in rows:
        lines.append(
            f"| {months} | {model:.2f} | {model / baseline:.0f} | "
            f"{figures:.2f} | {figures / baseline:.0f} |"
        )
    lines.append(f"| baseline: json.dumps of the 36-month costs | {baseline:.3f} | 1 | | |")
    return "\n".join(lines)


def section(baseline: float, rows: list[tuple[int, float, float]]) -> str:
    worst_model = max(model for _, model, _ in rows)
    worst_figures = max(figures for _, _, figures in rows)
    model_ok = worst_model < MODEL_TARGET_MS
    figures_ok = worst_figures < FIGURES_TARGET_MS
    return "\n".join(
        [
            SECTION,
            "",
            "`.venv/bin/python benchmarks/bench_costs.py --write`: median of "
            f"{RUNS} runs after {WARMUP} warm-up runs (`time.perf_counter`), "
            f"{GPU_MODEL} fixture assumptions, 64 GPUs, 60 % utilization, 50 TB, "
            "no datacenter, moderate demand, USD.",
            "",
            table(baseline, rows),
            "",
            *machine_lines(),
            f"- Target: costs_compute < {MODEL_TARGET_MS:.0f} ms — "
            f"{'met' if model_ok else 'not met'} (worst {worst_model:.2f} ms)",
            f"- Target: with figures < {FIGURES_TARGET_MS:.0f} ms — "
            f"{'met' if figures_ok else 'not met'} (worst {worst_figures:.2f} ms)",
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    baseline, rows = measure()
    text = section(baseline, rows)
    report(SECTION, text, write=args.write)


if __name__ == "__main__":
    main()
