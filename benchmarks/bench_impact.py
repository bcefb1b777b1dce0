"""Time the impact preview over 100,000 saved assessments, and the weight sensitivity.

Run as `.venv/bin/python benchmarks/bench_impact.py [--write] [--postgres] [--fresh]`.
The assessments go into a throwaway SQLite file in /tmp (kept for the next run;
`--fresh` rebuilds it). `--postgres` uses DATABASE_URL instead, which must name a
throwaway database: the benchmark migrates it and fills it. `--write` replaces the
"## Impact preview" section of docs/BENCHMARKS.md with the table and the machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SQLITE = Path("/tmp/decider-bench-impact.sqlite3")
SECTION = "## Impact preview"
ASSESSMENTS = 100_000
DISTINCT = 400
BATCH = 2000
SAMPLE = 5000
RUNS = 3
TARGET_S = 5.0
SENSITIVITY_RUNS = 200
SENSITIVITY_TARGET_MS = 5.0
DRAFT_CHANGE = {"utilization": 6.0, "stage": 2.0}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--postgres", action="store_true", help="run against DATABASE_URL")
    parser.add_argument("--fresh", action="store_true", help="rebuild the SQLite file")
    return parser.parse_args()


ARGS = parse_args()
if ARGS.postgres:
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("--postgres needs DATABASE_URL=postgres://... naming a throwaway database")
else:
    if ARGS.fresh:
        SQLITE.unlink(missing_ok=True)
    os.environ["DATABASE_URL"] = f"sqlite:///{SQLITE}"
# Off, or the connection keeps every (multi-megabyte) bulk INSERT in connection.queries.
os.environ["DJANGO_DEBUG"] = "false"
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from benchmarks.common import machine_lines, report  # noqa: E402
from decider import services  # noqa: E402
from decider.engine import batch, scoring  # noqa: E402
from decider.engine.sensitivity import weight_sensitivity  # noqa: E402
from decider.models import Assessment, RuleSet, token_hash  # noqa: E402
from decider.personas import PRESETS  # noqa: E402
from decider.rulesets import ruleset_export, ruleset_import, ruleset_rulebook  # noqa: E402
from decider.services import assessment_score  # noqa: E402


def varied(rng: random.Random) -> dict:
    """A persona's answers with the questions people most often change moved."""
    answers = dict(PRESETS[rng.choice(list(PRESETS))]["answers"])
    answers["utilization_pct"] = float(rng.choice([15, 25, 40, 55, 65, 75, 85, 95]))
    answers["gpus"] = rng.choice([8, 16, 32, 64, 128, 256, 512])
    answers["horizon_years"] = rng.randint(1, 6)
    answers["dataset_tb"] = float(rng.choice([2, 20, 100, 200, 800]))
    answers["gpu_model"] = rng.choice(["h100", "h100", "a100", "h200", "l40s"])
    for key, values in {
        "demand_shape": ["steady", "moderate", "peaky"],
        "residency": ["none", "none", "partial", "all"],
        "sensitivity": ["low", "medium", "high"],
        "has_datacenter": [True, False],
        "ops_hardware": [True, False],
        "direction_settled": [True, False],
        "capex_available": [True, False],
    }.items():
        if rng.random() < 0.3:
            answers[key] = rng.choice(values)
    return answers


def populate() -> None:
    """100,000 assessments; their results come from scoring DISTINCT answer sets for real."""
    call_command("migrate", verbosity=0, interactive=False)
    call_command("load_defaults", verbosity=0)
    existing = Assessment.objects.filter(scored_revision__isnull=False).count()
    if existing >= ASSESSMENTS:
        print(f"reusing {existing} scored assessments")
        return
    rng = random.Random(2026)
    templates = []
    for _ in range(DISTINCT):
        assessment, _edit, _view = Assessment.create_with_links(answers=varied(rng))
        assessment_score(assessment)
        templates.append(assessment)
    Assessment.objects.all().delete()
    start = time.perf_counter()
    for first in range(0, ASSESSMENTS, BATCH):
        Assessment.objects.bulk_create(
            Assessment(
                edit_hash=token_hash(f"bench-edit-{i}"),
                view_hash=None,
                name=f"bench {i}",
                answers=scored.answers,
                result=scored.result,
                ruleset_id=scored.ruleset_id,
                recommendation=scored.recommendation,
                derived=scored.derived,
                revision=1,
                scored_revision=1,
            )
            for i in range(first, min(first + BATCH, ASSESSMENTS))
            for scored in [rng.choice(templates)]
        )
    # A few never scored: the preview skips them.
    Assessment.objects.bulk_create(
        Assessment(edit_hash=hashlib.sha256(f"unscored-{i}".encode()).hexdigest(), answers={})
        for i in range(100)
    )
    print(f"created {ASSESSMENTS} assessments in {time.perf_counter() - start:.0f} s")


def draft_ruleset() -> RuleSet:
    RuleSet.objects.filter(is_published=False, assessments__isnull=True).delete()
    document = ruleset_export(RuleSet.current())
    for criterion in document["criteria"]:
        criterion["weight"] = DRAFT_CHANGE.get(criterion["key"], criterion["weight"])
    return ruleset_import(document, publish=False)


def timed(fn: Callable[[], object], runs: int = RUNS) -> tuple[float, object]:
    samples, value = [], None
    for _ in range(runs):
        start = time.perf_counter()
        value = fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), value


def narrow_fetch() -> int:
    """id, answers and ruleset: roughly what a small saved-recommendation column would cost."""
    rows = Assessment.objects.filter(result__isnull=False).order_by("id")
    return sum(
        1
        for _ in rows.values_list("id", "answers", "ruleset_id").iterator(
            chunk_size=services.IMPACT_CHUNK
        )
    )


def full_result_fetch_sample() -> int:
    """The obvious query (whole result snapshots), on SAMPLE rows."""
    rows = (
        Assessment.objects.filter(result__isnull=False)
        .order_by("id")
        .values_list("id", "answers", "result")[:SAMPLE]
    )
    return sum(1 for _ in rows.iterator(chunk_size=services.IMPACT_CHUNK))


def sensitivity_ms(book: scoring.RuleBook) -> dict[str, float]:
    # A saved derived verdict per persona, as the recommendation page has it.
    verdicts = {
        "research_lab": "onprem_clear",
        "startup": "cloud_clear",
        "growth": "hybrid_slight",
        "inference": "onprem_slight",
    }
    found = {}
    for persona, preset in PRESETS.items():
        answers = {**preset["answers"], "cost_verdict": verdicts[persona]}
        for _ in range(10):
            weight_sensitivity(answers=answers, rulebook=book)
        samples = []
        for _ in range(SENSITIVITY_RUNS):
            start = time.perf_counter()
            weight_sensitivity(answers=answers, rulebook=book)
            samples.append(time.perf_counter() - start)
        found[persona] = statistics.median(samples) * 1000
    return found


def measure() -> dict:
    populate()
    draft = draft_ruleset()
    book = ruleset_rulebook(draft)
    total = Assessment.objects.filter(result__isnull=False).count()
    snapshot = Assessment.objects.filter(result__isnull=False).values_list("result", flat=True)[0]

    end_to_end, result = timed(lambda: services.ruleset_impact(draft))
    fetch, (rows, _stale) = timed(services.impact_rows)
    compute, _ = timed(lambda: batch.impact_compute(rows=rows, rulebook=book))
    narrow, _ = timed(narrow_fetch)
    full_fetch, _ = timed(full_result_fetch_sample, runs=1)
    sample = [answers for _, answers, _ in rows[:SAMPLE]]
    loop, _ = timed(
        lambda: [scoring.answers_score(answers=a, rulebook=book).recommendation for a in sample],
        runs=1,
    )
    scale = total / SAMPLE
    return {
        "total": total,
        "snapshot_kb": len(json.dumps(snapshot)) / 1000,
        "impact": result,
        "end_to_end": end_to_end,
        "fetch": fetch,
        "compute": compute,
        "full_fetch": full_fetch * scale,
        "narrow": narrow,
        "loop": loop * scale,
        "sensitivity": sensitivity_ms(ruleset_rulebook(RuleSet.current())),
        "database": f"{connection.vendor} {connection.Database.sqlite_version}"
        if connection.vendor == "sqlite"
        else f"{connection.vendor} {connection.pg_version // 10000}",
    }


def section(m: dict) -> str:
    base = m["fetch"]
    found: batch.Impact = m["impact"]
    top = ", ".join(f"{t.from_outcome} → {t.to_outcome}: {t.count}" for t in found.transitions[:3])
    worst_sensitivity = max(m["sensitivity"].values())
    flags = " --postgres" if ARGS.postgres else ""
    lines = [
        SECTION,
        "",
        f"`.venv/bin/python benchmarks/bench_impact.py{flags} --write`: {m['total']:,} saved "
        f"assessments ({DISTINCT} distinct answer sets from the personas, each scored through "
        f"`assessment_score`; result snapshots of about {m['snapshot_kb']:.0f} kB each), a draft with "
        + ", ".join(f"{k} weight → {v:g}" for k, v in DRAFT_CHANGE.items())
        + f". Median of {RUNS} runs (`time.perf_counter`); database {m['database']}.",
        "",
        "| Step | Time (s) | × baseline |",
        "|---|---:|---:|",
        f"| `ruleset_impact(draft)`, end to end with the database fetch | {m['end_to_end']:.2f} "
        f"| {m['end_to_end'] / base:.2f} |",
        f"| `impact_compute` alone (numpy batch scoring + transitions) | {m['compute']:.2f} "
        f"| {m['compute'] / base:.2f} |",
        f"| baseline: `saved_rows()`, the database fetch alone | {base:.2f} | 1 |",
        f"| the obvious fetch, whole `result` snapshots ({SAMPLE:,} rows, extrapolated) "
        f"| {m['full_fetch']:.1f} | {m['full_fetch'] / base:.1f} |",
        f"| fetch of id, answers and ruleset only, for comparison "
        f"| {m['narrow']:.2f} | {m['narrow'] / base:.2f} |",
        f"| `answers_score` one by one ({SAMPLE:,} rows, extrapolated) | {m['loop']:.2f} "
        f"| {m['loop'] / base:.2f} |",
        "",
        f"Impact found: {found.changed:,} of {found.total:,} recommendations change "
        f"({top}); {found.skipped} never scored, skipped.",
        "",
        f"Weight sensitivity (`weight_sensitivity`, all hit criteria of the shipped rule set, "
        f"median of {SENSITIVITY_RUNS} runs): "
        + ", ".join(f"{p} {ms:.2f} ms" for p, ms in m["sensitivity"].items())
        + ".",
        "",
        "The preview reads the small columns `assessment_score` fills beside each snapshot "
        "(recommendation, derived answers, scored revision), never the snapshots themselves: "
        "each keeps every contribution's reasons in both languages, and reading them is what "
        "the 'whole result snapshots' row costs.",
        "",
        *machine_lines(),
        f"- Load average at the end (shared machine): {os.getloadavg()[0]:.1f}",
        f"- Target: impact preview of 100,000 < {TARGET_S:.0f} s — "
        f"{'met' if m['end_to_end'] < TARGET_S else 'not met'} ({m['end_to_end']:.2f} s)",
        f"- Target: sensitivity < {SENSITIVITY_TARGET_MS:.0f} ms — "
        f"{'met' if worst_sensitivity < SENSITIVITY_TARGET_MS else 'not met'} "
        f"(worst {worst_sensitivity:.2f} ms)",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    text = section(measure())
    report(SECTION, text, write=ARGS.write)


if __name__ == "__main__":
    main()
