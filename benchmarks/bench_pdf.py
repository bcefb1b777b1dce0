"""Time the PDF report: a new PDF on the warm Chromium, a cached download, a burst.

Run as `.venv/bin/python benchmarks/bench_pdf.py [--write]` (needs /usr/bin/chromium,
which `make bench` installs); `--write` replaces the "## PDF report" section of
docs/BENCHMARKS.md. Baseline, measured in the same run: the report page as HTML through
Django's test client, which every new PDF pays for anyway. Downloads are made as a
script makes them (no `Accept: text/html`), so each waits for its PDF.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB = Path(tempfile.mkdtemp()) / "bench_pdf.sqlite3"
os.environ["DATABASE_URL"] = f"sqlite:///{DB}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
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
BURST = 4  # distinct PDFs asked for at the same moment
NEW_TARGET_MS = 1000.0  # "PDFs a second, not ten": a new PDF on the warm Chromium
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

    def download(url: str = pdf_url, **headers: str) -> None:
        response = Client().get(url, headers=headers)
        assert response["Content-Type"] == "application/pdf", response.status_code

    start = time.perf_counter()
    download()
    first = (time.perf_counter() - start) * 1000

    def fresh() -> None:
        ReportPdf.objects.all().delete()
        download()

    def cold() -> None:  # how every PDF was printed before: a Chromium started for it
        pdf.printer.submit(pdf.printer._browser_close).result()
        pdf.html_to_pdf(html)

    times = {
        "html": median_ms(lambda: client.get(report_url)),
        "first": first,
        "chromium": median_ms(lambda: pdf.html_to_pdf(html)),
        "cold": median_ms(cold),
        "fresh": median_ms(fresh),
        "cached": median_ms(download, runs=20),
    }
    launches = pdf.printer.launches
    # A burst: the same assessment in every language and currency at once, one thread each.
    ReportPdf.objects.all().delete()
    variants = [("en", "USD"), ("en", "CNY"), ("zh-hans", "CNY"), ("zh-hans", "USD")][:BURST]
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=BURST) as pool:
        done = [
            pool.submit(download, f"{pdf_url}?currency={c}", **{"Accept-Language": lang})
            for lang, c in variants
        ]
        for future in done:
            future.result()
    times["burst"] = (time.perf_counter() - start) * 1000
    times["launches"] = pdf.printer.launches - launches
    return times


def section(t: dict[str, float]) -> str:
    ratio = t["cached"] / t["html"]
    rows = [
        ("Report page as HTML, kept (baseline)", t["html"]),
        ("First PDF download after start (Chromium cold)", t["first"]),
        ("`pdf.html_to_pdf` alone, warm Chromium (page, charts, print)", t["chromium"]),
        ("the same with a Chromium started for each PDF (as before issue 11)", t["cold"]),
        ("New PDF download, warm Chromium (HTML + print + save)", t["fresh"]),
        ("Cached PDF download (same assessment version)", t["cached"]),
        (f"Burst: {BURST} new PDFs asked at once, until the last arrives", t["burst"]),
    ]
    lines = [
        SECTION,
        "",
        f"`.venv/bin/python benchmarks/bench_pdf.py --write` (part of `make bench`): median of "
        f"{RUNS} runs (cached: 20), growth profile, A4, English, through Django's test client. "
        "One printer thread keeps one Chromium warm and prints one page at a time: the first "
        "report loaded into a new page, the next ones put into that page, plotly.js still "
        "loaded (decider/pdf.py, `Prepared`). The baseline is the report page as a repeat "
        "view serves it (kept).",
        "",
        "| Step | ms | × baseline |",
        "|---|---:|---:|",
        *(f"| {name} | {ms:.0f} | {ms / t['html']:.1f} |" for name, ms in rows),
        "",
        *machine_lines(),
        f"- Load average at the end (shared machine): {os.getloadavg()[0]:.1f}",
        f"- Chromium starts during the burst: {t['launches']:.0f}",
        f"- Target: a new PDF on the warm Chromium in under {NEW_TARGET_MS / 1000:.0f} s — "
        f"{'met' if t['fresh'] <= NEW_TARGET_MS else 'not met'} ({t['fresh']:.0f} ms, "
        f"{t['fresh'] / t['html']:.0f}× the HTML page)",
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
