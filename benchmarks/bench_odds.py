"""Time the odds (engine/odds.py) and the plan in stages (engine/stages.py) against the plain
cost model they draw on.

Run as `.venv/bin/python benchmarks/bench_odds.py [--write]`; `--write` replaces the
"## Odds" section of docs/BENCHMARKS.md. Each run of the odds (10,000 draws, the default
ranges) is followed by one of `costs_compute` on the same answers, so the ratio compares the
two on the same machine state.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Importing the cost-model benchmark sets Django up as it runs it (no database, no i18n).
from benchmarks.bench_costs import alternating_ms, answers_for, load_figures  # noqa: E402
from benchmarks.common import machine_lines, report  # noqa: E402
from decider.engine.costs import costs_compute  # noqa: E402
from decider.engine.odds import DRAWS, odds_compute  # noqa: E402
from decider.engine.stages import Future, plan_compute  # noqa: E402

SIZES = (8, 1_000, 100_000)
HORIZONS = (12, 36, 120)
RUNS = 15
TARGET_MS = 200.0
# Issue 31's goals at 10,000 draws: what a new assessment's scoring may cost.
ODDS_GOAL_MS, PLAN_GOAL_MS, WHOLE_GOAL_MS = 15.0, 10.0, 30.0
SECTION = "## Odds"
GROWING = Future(growth_pct=30)


Row = tuple[int, int, float, float, float, float]  # gpus, months, odds, model, plan, model
WHOLE_TARGET_MS = 100.0


def _rulebook():
    import json

    from decider.engine.ruledocs import rulebook_from_document

    document = json.loads((ROOT / "fixtures" / "ruleset.json").read_text(encoding="utf-8"))
    return rulebook_from_document(document)


def whole_cases() -> list[tuple[str, dict]]:
    """The source's personas, and two answers of issue 28: a lab renting in China, and a
    startup growing from 16 to 256 GPUs."""
    import copy

    from decider.personas import PRESETS

    cases = [(name, copy.deepcopy(preset["answers"])) for name, preset in PRESETS.items()]
    lab = copy.deepcopy(PRESETS["research_lab"]["answers"])
    lab.update(market="cn", residency="none", sensitivity="medium", jurisdiction_concern=False)
    grows = copy.deepcopy(PRESETS["startup"]["answers"])
    grows.update(gpus=16, horizon_years=5, utilization_pct=80.0, demand_shape="steady")
    grows["growth_years"] = [
        {"base_gpus": b, "peak_gpus": p}
        for b, p in ((12, 16), (30, 40), (80, 100), (200, 256), (200, 256))
    ]
    return [
        *cases,
        ("China lab, renting", lab),
        ("startup 16 → 256", grows),
        *served_cases(),
    ]


def served_cases() -> list[tuple[str, dict]]:
    """Services sized from what they serve, so the per-token option is weighed (issue 36):
    its price over the horizon, the GPUs at nine other volumes and the break-even, the base
    owned with the bursts per token."""
    from decider.engine.sizing import answers_sized
    from tests.test_tokens import _service_answers

    return [
        (name, answers_sized(_service_answers(*service, latency_critical=False, **more))[0])
        for name, service, more in (
            ("8B, 50 M tokens a day", (8, 50, 2.0), {}),
            ("70B, 3 B tokens a day, peaky", (70, 3000, 3.0), {}),
            ("70B, 10 B a day, +30 %/year", (70, 10_000, 1.0), {"growth_pct": 30}),
        )
    ]


def measure_whole() -> list[tuple[str, float, float]]:
    """One assessment's whole computation, as `decide`, the API create and a new result's
    first view compute it: scoring (the cost model, and the odds when the lead may be
    decisive), the odds and the plan."""
    from decider.engine import stages
    from decider.engine.evaluation import answers_evaluate, answers_odds, answers_plan, cost_answers
    from decider.engine.figures import figures_select
    from decider.engine.markets import market_of
    from tests.factories import shipped_figure_rows, shipped_providers

    rulebook = _rulebook()
    rows = []
    for name, answers in whole_cases():
        figures = figures_select(
            rows=shipped_figure_rows(market_of(answers).key), gpu_model=answers["gpu_model"]
        )

        # Priced at the cheapest listed provider, as every assessment is (issue 53).
        listed = shipped_providers(market_of(answers).key)

        def whole(answers=answers, figures=figures, listed=listed) -> None:
            stages.forget_searches()  # a new assessment: nothing searched yet
            found = answers_evaluate(
                answers=answers, rulebook=rulebook, figures=figures, listed=listed
            )
            excluded = found.result.excluded
            if found.odds is None:  # drawn while scoring, and kept for the page
                answers_odds(answers=answers, figures=found.figures, excluded=excluded, seed=0)
            answers_plan(answers=answers, figures=found.figures, excluded=excluded)

        plain = cost_answers(answers)
        whole_ms, model_ms = alternating_ms(
            whole,
            lambda a=plain, f=figures: costs_compute(answers=a, figures=f),
            runs=RUNS,
            warmup=2,
        )
        rows.append((name, whole_ms, model_ms))
    return rows


def _new_plan(answers, figures) -> None:
    """The plan of a new assessment: its search is not remembered from the last run."""
    from decider.engine import stages

    stages.forget_searches()
    plan_compute(answers=answers, figures=figures, future=GROWING, seed=1)


def measure() -> list[Row]:
    figures = load_figures()
    rows = []
    for gpus in SIZES:
        for months in HORIZONS:
            answers = answers_for(months, gpus)
            odds_ms, model_ms = alternating_ms(
                lambda a=answers: odds_compute(answers=a, figures=figures, seed=1),
                lambda a=answers: costs_compute(answers=a, figures=figures),
                runs=RUNS,
                warmup=2,
            )
            plan_ms, plan_model_ms = alternating_ms(
                lambda a=answers: _new_plan(a, figures),
                lambda a=answers: costs_compute(answers=a, figures=figures),
                runs=RUNS,
                warmup=2,
            )
            rows.append((gpus, months, odds_ms, model_ms, plan_ms, plan_model_ms))
    return rows


def section(rows: list[Row], whole: list[tuple[str, float, float]]) -> str:
    worst = max(rows, key=lambda row: row[2])
    slowest_plan = max(rows, key=lambda row: row[4])
    lines = [
        SECTION,
        "",
        "`.venv/bin/python benchmarks/bench_odds.py --write` (part of `make bench`): median of "
        f"{RUNS} runs of `odds_compute` ({DRAWS:,} draws, the default ranges, the P10–P90 bands "
        "and the drivers), each followed by one run of the plain cost model (`costs_compute`) "
        "on the same answers; h100 fixture figures, 60 % utilization, 50 TB, USD.",
        "",
        "The plan in stages (`plan_compute`: the dynamic programme, buy now or wait, this "
        "generation or the next, and how sure the plan is over the same draws) is timed the "
        "same way, for demand growing 30 % a year, each run a new assessment (no search "
        "remembered).",
        "",
        "| GPUs | months | odds (ms) | cost model (ms) | odds × cost model | plan (ms) "
        "| plan × cost model |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for gpus, months, odds_ms, model_ms, plan_ms, plan_model_ms in rows:
        lines.append(
            f"| {gpus:,} | {months} | {odds_ms:.1f} | {model_ms:.2f} | {odds_ms / model_ms:.1f} "
            f"| {plan_ms:.1f} | {plan_ms / plan_model_ms:.1f} |"
        )
    lines += [
        "",
        *machine_lines(),
        f"- Target: odds ≤ {TARGET_MS:.0f} ms per assessment — "
        f"{'met' if worst[2] <= TARGET_MS else 'not met'} (worst {worst[2]:.1f} ms, "
        f"{worst[0]:,} GPUs over {worst[1]} months, {worst[2] / worst[3]:.1f}× the cost model)",
        f"- Ratios to the cost model: {statistics.median(r[2] / r[3] for r in rows):.1f}× "
        f"median ({min(r[2] / r[3] for r in rows):.1f}–{max(r[2] / r[3] for r in rows):.1f}×).",
        f"- The plan: {statistics.median(r[4] / r[5] for r in rows):.1f}× the cost model "
        f"median, at most {slowest_plan[4]:.1f} ms ({slowest_plan[0]:,} GPUs over "
        f"{slowest_plan[1]} months).",
        _goal("odds", ODDS_GOAL_MS, worst[2]),
        _goal("plan", PLAN_GOAL_MS, slowest_plan[4]),
        "",
        "### One assessment's whole computation (issue 28)",
        "",
        "Scoring (the cost model, and the odds when the cheapest leads by 25 % or more), the "
        "odds and the plan, as `decide`, the API create and a new result's first view compute "
        "them (the odds once: drawn while scoring when the lead may be decisive, and kept for "
        "the page; with growth the cost section over the growth, its search shared with the "
        "plan the verdict reads, and the plan again for the page), each run a new assessment "
        "(no search remembered), against the cost model alone in the same run; median of "
        f"{RUNS}. The machine is noisy and its CPU changes from run to run: compare the "
        "ratios, not the milliseconds.",
        "",
        "| answers | whole (ms) | cost model (ms) | whole × cost model |",
        "|---|---:|---:|---:|",
        *(
            f"| {name} | {whole_ms:.1f} | {model_ms:.2f} | {whole_ms / model_ms:.1f} |"
            for name, whole_ms, model_ms in whole
        ),
        "",
        f"- Target: ≤ {WHOLE_TARGET_MS:.0f} ms — "
        f"{'met' if max(w for _n, w, _m in whole) <= WHOLE_TARGET_MS else 'not met'} "
        f"(worst {max(w for _n, w, _m in whole):.1f} ms, "
        f"{max(w / m for _n, w, m in whole):.1f}× the cost model at most).",
        _goal("whole computation", WHOLE_GOAL_MS, max(w for _n, w, _m in whole)),
        _served_line(whole),
        "",
    ]
    return "\n".join(lines)


def _served_line(whole: list[tuple[str, float, float]]) -> str:
    """The services sized from what they serve against the other answers, as ratios."""
    served = {name for name, _answers in served_cases()}
    mine = [w / m for name, w, m in whole if name in served]
    others = [w / m for name, w, m in whole if name not in served]
    return (
        f"- Services sized from what they serve (issue 36: the per-token option priced at nine "
        f"volumes and weighed, the base owned with the bursts per token): "
        f"{min(mine):.1f}–{max(mine):.1f}× the cost model, against "
        f"{min(others):.1f}–{max(others):.1f}× for the other answers. With growth, each "
        f"volume is priced over the growing future in full."
    )


def _goal(what: str, goal_ms: float, worst_ms: float) -> str:
    met = "met" if worst_ms <= goal_ms else "not met"
    return f"- Goal of issue 31: {what} ≤ {goal_ms:.0f} ms — {met} (worst {worst_ms:.1f} ms)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    report(SECTION, section(measure(), measure_whole()), write=args.write)


if __name__ == "__main__":
    main()
