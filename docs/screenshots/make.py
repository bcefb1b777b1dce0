"""The README's screenshots, made with Debian's Chromium against a running Decider.

    make run &                        # or any server with the default fixtures loaded
    .venv/bin/python docs/screenshots/make.py [http://127.0.0.1:8000]   # needs poppler-utils

It creates the "steady inference plus bursts" assessment through the API, then saves the
first screen of the result page (1280×800 in English, 390×844 in Chinese) and page 1 of its
A4 report (printed by Chromium, rasterised by
poppler's `pdftoppm`) next to this file.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).parent
ANSWERS = {
    "stage": "growth",
    "workload": "inference",
    "direction_settled": True,
    "capacity_lead_time": "days",
    "latency_critical": True,
    "multi_region": False,
    "custom_topology": False,
    "gpus": 96,
    "base_gpus": 64,
    "peak_share_pct": 20.0,
    "gpu_model": "h100",
    "horizon_years": 5,
    "ops_hardware": True,
    "ops_filesystem": True,
    "ops_drivers": True,
    "ops_fte": 2.0,
    "has_datacenter": True,
    "residency": "none",
    "sensitivity": "medium",
    "jurisdiction_concern": False,
    "dataset_tb": 20.0,
    "capex_available": True,
}


def create(server: str) -> str:
    body = json.dumps({"name": "2027 plan: 64 GPU inference + bursts", "answers": ANSWERS})
    request = urllib.request.Request(
        f"{server}/api/assessments",
        data=body.encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)["view_url"]


def main(server: str) -> None:
    view = create(server.rstrip("/"))
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as tmp:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox"]
        )
        # The first screen of the result page: a laptop in English, a phone in Chinese.
        for name, (width, height), locale in (
            ("result", (1280, 800), "en-US"),
            ("result-phone-zh", (390, 844), "zh-CN"),
        ):
            shown = browser.new_page(viewport={"width": width, "height": height}, locale=locale)
            shown.goto(view)
            shown.wait_for_selector("body[data-charts-ready]")
            shown.screenshot(path=HERE / f"{name}.png")
            shown.close()
        page = browser.new_page(viewport={"width": 1366, "height": 1500}, locale="en-US")
        page.goto(f"{view}report/")
        page.wait_for_selector("body[data-charts-ready]")
        page.emulate_media(media="print")
        pdf = Path(tmp) / "report.pdf"
        page.pdf(path=pdf, format="A4", print_background=True)
        browser.close()
        subprocess.run(
            ["pdftoppm", "-r", "80", "-png", "-f", "1", "-l", "1", "-singlefile", pdf]
            + [HERE / "report-page-1"],
            check=True,
        )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
