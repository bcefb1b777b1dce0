"""Time importing the engine in a fresh interpreter, against importing the standard library's json.

Run as `.venv/bin/python benchmarks/bench_import.py [--write]`; `--write` replaces the
"## Engine import" section of docs/BENCHMARKS.md. Each run starts a new Python and
times the import inside it (`time.perf_counter` around the import statement), the
engine and the baseline alternating so both see the same machine state.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import machine_lines, report  # noqa: E402

SECTION = "## Engine import"
RUNS = 15
TARGET_S = 0.3
ENGINE = "decider.engine.evaluation, decider.engine.stages, decider.engine.odds"
TIMED = (
    "import sys, time; t = time.perf_counter(); import {modules}; "
    "print(time.perf_counter() - t, len(sys.modules), "
    "sorted({{m.split('.')[0] for m in sys.modules}} & {{'django', 'celery', 'pandas'}}))"
)


def import_once(modules: str) -> tuple[float, int, str]:
    out = subprocess.run(
        [sys.executable, "-c", TIMED.format(modules=modules)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split(maxsplit=2)
    return float(out[0]), int(out[1]), out[2].strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    engine, baseline = [], []
    for _ in range(RUNS):
        engine.append(import_once(ENGINE))
        baseline.append(import_once("json"))
    seconds = [run[0] for run in engine]
    base = [run[0] for run in baseline]
    median, base_median = statistics.median(seconds), statistics.median(base)
    verdict = "met" if median < TARGET_S else "not met"
    lines = [
        SECTION,
        "",
        f"`.venv/bin/python benchmarks/bench_import.py --write` (part of `make bench`): {RUNS} fresh "
        f"interpreters each for `import {ENGINE}` and for `import json`, alternating.",
        "",
        "| import | median (s) | range (s) | modules loaded | × baseline |",
        "|---|---:|---:|---:|---:|",
        f"| the engine | {median:.3f} | {min(seconds):.3f}–{max(seconds):.3f} | "
        f"{engine[0][1]} | {median / base_median:.0f} |",
        f"| baseline: json | {base_median:.4f} | {min(base):.4f}–{max(base):.4f} | "
        f"{baseline[0][1]} | 1 |",
        "",
        f"- Loaded with the engine, of django, celery and pandas: {engine[0][2]} "
        "(pandas loads with the first cost table, not with the import)",
        *machine_lines(),
        f"- Target: the engine imports in under {TARGET_S} s without Celery — {verdict} "
        f"({median:.3f} s)",
    ]
    report(SECTION, "\n".join(lines), write=args.write)


if __name__ == "__main__":
    main()
