"""Test data built in code: answers, assessments, cost inputs, the shipped rules and figures.

One place for what several test files share; plain `make_*` helpers with
keyword overrides. The shipped rule book and figures are read from
fixtures/ without a database, once per test session.
"""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

from decider.engine.costs import CostAnswers
from decider.engine.figures import FIGURE_NAMES, Figure, figures_select
from decider.engine.outcomes import COST_VERDICTS
from decider.engine.ruledocs import rulebook_from_document
from decider.engine.scoring import Band, Rule, RuleBook
from decider.engine.text import Text
from decider.personas import PRESETS

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
VERDICTS = list(COST_VERDICTS)

# Every step posted as a browser without JavaScript posts it (the startup persona).
STEP_POSTS = {
    "workload": {
        "stage": "startup",
        "workload": "finetuning",
        "direction_settled": "false",
        "demand_shape": "peaky",
        "capacity_lead_time": "minutes",
        "latency_critical": "false",
        "multi_region": "false",
        "custom_topology": "false",
    },
    "utilization": {
        "utilization_pct": "25",
        "gpus": "8",
        "gpu_model": "h100",
        "horizon_years": "2",
    },
    "ops": {
        "ops_hardware": "false",
        "ops_filesystem": "false",
        "ops_drivers": "false",
        "ops_fte": "0.5",
        "has_datacenter": "false",
    },
    "data": {
        "residency": "none",
        "sensitivity": "low",
        "jurisdiction_concern": "false",
        "dataset_tb": "5",
    },
    "budget": {"capex_available": "false"},
}


# --- answers and assessments -------------------------------------------------------


def make_answers(persona: str = "growth", **changes: Any) -> dict[str, Any]:
    """A persona preset's answers, with some changed."""
    answers = copy.deepcopy(PRESETS[persona]["answers"])
    answers.update(changes)
    return answers


# A startup that grows from 16 to 256 GPUs over three years and then holds: a base and a
# peak per year (the answers' `growth_years`).
GROWTH_YEARS = ((12, 16), (30, 40), (80, 100), (200, 256), (200, 256))


def make_growing_answers(*, costs: dict[str, float] | None = None, **changes: Any) -> dict:
    """The startup persona growing as GROWTH_YEARS over five years, with data-centre space
    of its own, no ops engineer yet and capital to spend; `costs`: its own cost figures."""
    answers = make_answers(
        "startup",
        horizon_years=5,
        gpus=16,
        has_datacenter=True,
        ops_fte=0.0,
        capex_available=True,
    )
    answers["growth_years"] = [{"base_gpus": b, "peak_gpus": p} for b, p in GROWTH_YEARS]
    answers.update(changes)
    if costs:
        answers["costs"] = costs
    return answers


def make_assessment(**kwargs: Any):
    """(assessment, edit token, view token); finished growth answers unless told otherwise."""
    from decider.models import Assessment

    kwargs.setdefault("answers", make_answers())
    return Assessment.create_with_links(**kwargs)


def varied_answers(rng: random.Random) -> dict[str, Any]:
    """A persona with some answers changed, some dropped, and a cost verdict."""
    answers = make_answers(rng.choice(list(PRESETS)))
    answers["cost_verdict"] = rng.choice(VERDICTS)
    for rule in shipped_rulebook().rules:
        if rng.random() > 0.3:
            continue
        band = rng.choice(rule.bands)
        if band.value is not None:
            answers[rule.question] = {"true": True, "false": False}.get(band.value, band.value)
        else:
            # Band edges included: they are where off-by-one mistakes live.
            edges = [x for x in (band.lower, band.upper) if x is not None]
            answers[rule.question] = rng.choice(
                [*edges, (band.lower or 0) + rng.random() * 50, rng.randint(0, 600)]
            )
    for key in rng.sample(sorted(answers), k=rng.choice([0, 0, 1, 3])):
        del answers[key]
    return answers


def migrate_to(executor, target: str):
    """Migrate the decider app to `target` (a migration's name); its apps at that state."""
    executor.loader.build_graph()
    executor.migrate([("decider", target)])
    return executor.loader.project_state(("decider", target)).apps


# --- the cost model's inputs -------------------------------------------------------


def make_cost_answers(**kwargs: Any) -> CostAnswers:
    kwargs.setdefault("gpus", 12)
    kwargs.setdefault("utilization", 0.5)
    kwargs.setdefault("horizon_months", 36)
    kwargs.setdefault("dataset_tb", 50.0)
    kwargs.setdefault("has_datacenter", False)
    kwargs.setdefault("demand_shape", "moderate")
    return CostAnswers(**kwargs)


def make_figures(**values: float) -> dict[str, Figure]:
    """Every cost line off except servers and cloud on-demand GPU-hours."""
    base = dict.fromkeys(FIGURE_NAMES, 0.0)
    base.update(gpus_per_node=8, server_price=300_000, gpu_hour_on_demand=3.0, usd_cny=7.0)
    base.update(smallest_server_gpus=8)  # whole servers, whatever the fleet
    base.update(perf_train_vs_h100=1.0, perf_infer_vs_h100=1.0)  # an H100
    base.update(values)
    return {
        name: Figure(name=name, value=value, source="test", as_of="2025-06-01")
        for name, value in base.items()
    }


def shipped_figure_rows(market: str = "global") -> list[dict[str, Any]]:
    """fixtures/assumptions.json: one market's price set."""
    rows = json.loads((FIXTURES / "assumptions.json").read_text(encoding="utf-8"))["assumptions"]
    return [row for row in rows if row.get("market", "global") == market]


def shipped_figures(
    gpu_model: str = "h100", market: str = "global", **values: float
) -> dict[str, Figure]:
    """fixtures/assumptions.json for one market and GPU model, with some values changed."""
    figures = figures_select(rows=shipped_figure_rows(market), gpu_model=gpu_model)
    for name, value in values.items():
        old = figures[name]
        figures[name] = Figure(name=name, value=value, source=old.source, as_of=old.as_of)
    return figures


def shipped_providers(market: str = "global") -> list[Any]:
    """fixtures/providers.json: one market's listed providers with their prices, as the
    engine reads them (what every assessment is priced at by default, issue 53)."""
    from decider.engine.providers import providers_from_dict

    data = json.loads((FIXTURES / "providers.json").read_text(encoding="utf-8"))
    return providers_from_dict(
        {
            **provider,
            "prices": [
                {**price, "as_of": str(price["as_of"])}
                for price in data["prices"]
                if price["provider"] == provider["key"]
            ],
        }
        for provider in data["providers"]
        if provider["market"] == market
    )


# --- rules ----------------------------------------------------------------------


@cache
def shipped_rulebook() -> RuleBook:
    """fixtures/ruleset.json as the engine sees it, without a database."""
    document = json.loads((FIXTURES / "ruleset.json").read_text(encoding="utf-8"))
    return rulebook_from_document(document)


def make_band(onprem: int = 0, cloud: int = 0, hybrid: int = 0, **where: Any) -> Band:
    return Band(
        scores={"onprem": onprem, "cloud": cloud, "hybrid": hybrid},
        reason=Text(f"reason {where}", f"理由 {where}"),
        label=Text(str(where), str(where)),
        **where,
    )


def make_rule(key: str = "q", weight: float = 1.0, bands: Any = ()) -> Rule:
    return Rule(key=key, question=key, label=Text(key, key), weight=weight, bands=tuple(bands))
