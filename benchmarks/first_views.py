"""What a person pays who has just finished the wizard or called the API: pages of new
assessments, each shown once, against the bare view (benchmarks/bench_pages.py).

wrk sends the same requests over and over, so every page it measures is a kept one after the
first request. Here each request is the first of its kind: the result page and the report of
an assessment never shown, and a what-if with a GPU count never tried. They are sent one after
another by one client (the assessments made beforehand through the API, not measured); the
bare view is sent the same way right before, and the server CPU of each batch (utime+stime of
gunicorn's processes, /proc) divided by its requests gives the ratio, as for the wrk pages.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable
from typing import NamedTuple

from benchmarks.soak import Client

NEW = 30  # new assessments per page and round
PERSONAS = ("research_lab", "startup", "growth", "inference")
BARE_REQUESTS = 600  # the bare view's batch: enough clock ticks to count (1 ms each or so)
GOALS = {
    "result page, first view": 0.1,
    "result page in yuan, after the dollar one": 0.1,
    "report, first view": 0.1,
    "what-if, a new one": 0.05,
}
TICK_S = 1 / os.sysconf("SC_CLK_TCK")
WHAT_IF = "gpus={gpus}&utilization_pct=55&horizon_years=3&gpu_hour_on_demand=2.99"


class Batch(NamedTuple):
    name: str
    cpu_ms: list[float]  # per request, by round
    bare_ms: list[float]  # the bare view's, in the same round

    def ratios(self) -> list[float]:
        return [b / p for p, b in zip(self.cpu_ms, self.bare_ms, strict=True)]


def _timed(stack, client: Client, paths: list[str], expect: int) -> float:
    """Server CPU per request (ms) of GETting `paths` one after another."""
    ticks, _pids = stack.server_ticks()
    for path in paths:
        status, _headers, content = client.get(path)
        if status != expect:
            raise SystemExit(f"{path}: {status}, not {expect}\n{content[:300]!r}")
    stack.quiet()
    return (stack.server_ticks()[0] - ticks) * TICK_S * 1000 / len(paths)


def measure(stack, rounds: int) -> list[Batch]:
    """Each round: new assessments through the API, then for each page the bare view's batch
    and the page's, one request per new assessment."""
    maker = Client(stack.port)
    pages: dict[str, Callable[[str], str]] = {
        "result page, first view": lambda edit: f"/a/{edit}/",
        # The sections are computed once, in USD, and converted (decider/conversion.py).
        "result page in yuan, after the dollar one": lambda edit: f"/a/{edit}/?currency=CNY",
        "report, first view": lambda edit: f"/a/{edit}/report/",
        "what-if, a new one": lambda edit: f"/a/{edit}/what-if/?" + WHAT_IF.format(gpus=72),
    }
    # Shown first, not measured: the page in dollars before the one in yuan.
    before: dict[str, Callable[[str], str]] = {
        "result page in yuan, after the dollar one": lambda edit: f"/a/{edit}/?currency=USD",
    }
    batches = {name: Batch(name, [], []) for name in pages}
    for round_number in range(rounds):
        for name, path_of in pages.items():
            # Every persona in turn: a preset whose odds the create keeps is not the rule.
            made = [
                maker.create(PERSONAS[i % len(PERSONAS)], f"first view {i}")[0] for i in range(NEW)
            ]
            client = Client(stack.port)
            if name in before:
                _timed(stack, client, [before[name](edit) for edit in made], 200)
            bare = _timed(stack, client, ["/bench/bare"] * BARE_REQUESTS, 200)
            page = _timed(stack, client, [path_of(edit) for edit in made], 200)
            batches[name].cpu_ms.append(page)
            batches[name].bare_ms.append(bare)
            print(
                f"{stack.db} round {round_number + 1} {name}: {page:.1f} ms CPU; "
                f"bare {bare:.2f} ms",
                flush=True,
            )
    return list(batches.values())


def table(batches: list[Batch]) -> list[str]:
    if not batches:
        return []
    lines = [
        "",
        f"Pages of new assessments, each shown once ({NEW} per page and round, the personas "
        f"{', '.join(PERSONAS)} in turn, made through the API; one request "
        f"after another; the bare view's {BARE_REQUESTS} requests right before): "
        "benchmarks/first_views.py.",
        "",
        "| page | CPU per request (ms) | bare view (ms) | CPU × bare (range) | goal |",
        "|---|---:|---:|---:|---|",
    ]
    for batch in batches:
        ratios = batch.ratios()
        middle = statistics.median(ratios)
        goal = GOALS[batch.name]
        met = "met" if middle >= goal else "**not met**"
        lines.append(
            f"| {batch.name} | {statistics.median(batch.cpu_ms):.1f} | "
            f"{statistics.median(batch.bare_ms):.2f} | {middle:.3f}× "
            f"({min(ratios):.3f}–{max(ratios):.3f}) | ≥ {goal}×: {met} |"
        )
    return lines
