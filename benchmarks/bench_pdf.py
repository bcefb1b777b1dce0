"""Time the PDF report: rendering in Chromium, and the cached download.

Run as `.venv/bin/python benchmarks/bench_pdf.py [--write]` (needs /usr/bin/chromium,
which `make test` installs); `--write` replaces the "## PDF report" section of
docs/BENCHMARKS.md. Baseline, measured in the same run: rendering the report's
HTML with Django's test client, which every download pays for anyway.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB = Path(tempfile.mkdtemp()) / "bench_pdf.sqlite3"
os.environ["DATABASE_URL"] = f"sqlite:///{DB}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "decider.settings")
os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"  # Django's test client

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402

from benchmarks.common import machine_lines, report  # noqa: E402
from decider import pdf  # noqa: E402
from decider.models import Assessment, ReportPdf  # noqa: E402
from decider.personas import PRESETS  # noqa: E402
from decider.services import assessment_score  # noqa: E402

SECTION = "## PDF report"
RUNS = 5
CACHED_TARGET_RATIO = 2.0  # a cached download costs at most twice the HTML page


def median_ms(fn: Callable[[], object], runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure() -> dict[str, float]:
    call_command("migrate", verbosity=0)
    call_command("load_defaults", verbosity=0)
    assessment, _edit, view = Assessment.create_with_links(
        name="Benchmark", answers=dict(PRESETS["growth"]["answers"])
    )
    assessment_score(assessment)
    client = Client()
    report_url = reverse("decider-view-report", args=[view])
    pdf_url = reverse("decider-view-pdf", args=[view])
    page = client.get(report_url)
    assert page.status_code == 200, page.status_code
    html = page.content.decode()

    start = time.perf_counter()
    client.get(pdf_url)
    first = (time.perf_counter() - start) * 1000

    def fresh() -> None:
        ReportPdf.objects.all().delete()
        assert client.get(pdf_url).status_code == 200

    return {
        "html": median_ms(lambda: client.get(report_url)),
        "first": first,
        "chromium": median_ms(lambda: pdf.html_to_pdf(html)),
        "fresh": median_ms(fresh),
        "cached": median_ms(lambda: client.get(pdf_url), runs=20),
    }


def section(t: dict[str, float]) -> str:
    ratio = t["cached"] / t["html"]
    rows = [
        ("Report page as HTML (baseline)", t["html"]),
        ("First PDF download after start (Chromium cold)", t["first"]),
        ("`pdf.html_to_pdf` alone (Chromium start, page, charts, print)", t["chromium"]),
        ("PDF download, not cached (HTML + Chromium + save)", t["fresh"]),
        ("PDF download, cached (same assessment version)", t["cached"]),
    ]
    lines = [
        SECTION,
        "",
        f"`.venv/bin/python benchmarks/bench_pdf.py --write`: median of {RUNS} runs "
        "(cached: 20), growth profile, A4, English, through Django's test client.",
        "",
        "| Step | ms | × baseline |",
        "|---|---:|---:|",
        *(f"| {name} | {ms:.0f} | {ms / t['html']:.1f} |" for name, ms in rows),
        "",
        *machine_lines(),
        f"- Target: a cached download costs at most {CACHED_TARGET_RATIO:.0f}× the HTML page — "
        f"{'met' if ratio <= CACHED_TARGET_RATIO else 'not met'} ({ratio:.2f}×)",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    text = section(measure())
    report(SECTION, text, write=args.write)


if __name__ == "__main__":
    main()
