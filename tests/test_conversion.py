"""Money at the edge (issue 50): a result's sections are computed once, in USD, and a page
in yuan converts them where it shows them (decider/conversion.py), never computing them a
second time. The conversion is held against the sections computed in yuan outright: every
leaf the same, the money to within the rounding of a cent."""

from __future__ import annotations

from typing import Any

import pytest

from decider.engine.evaluation import answers_odds, answers_plan, bursts_owned, per_token_parts
from decider.engine.figures import figures_values
from decider.engine.markets import currency_rate
from decider.models import Assessment
from decider.services import (
    _costs_shown,
    assessment_costs,
    assessment_excluded,
    assessment_odds,
    assessment_plan,
    odds_seed_of,
    scored_figures,
)
from tests.factories import make_answers
from tests.test_one_price import CASES, scored
from tests.test_workloads import THREE, company

pytestmark = pytest.mark.django_db

MORE = {
    "mainland_lab": make_answers("research_lab", market="cn"),
    "workloads": company(THREE),
    "providers_chosen": {**make_answers("startup"), "providers": {}},
}


def outright(assessment: Assessment, currency: str) -> dict[str, dict[str, Any]]:
    """The three sections computed in `currency` from the start: what a page in that
    currency computed before."""
    costs = _costs_shown(assessment, currency)
    given = {
        "answers": assessment.answers,
        "figures": scored_figures(assessment),
        "excluded": assessment_excluded(assessment),
        "currency": currency,
        "seed": odds_seed_of(assessment),
        "fixed": per_token_parts(costs, assessment_excluded(assessment)),
    }
    plan = answers_plan(
        **given, outcome=assessment.recommendation or None, bursts_owned=bursts_owned(costs)
    )
    return {"costs": costs, "odds": answers_odds(**given), "plan": plan}


def differences(shown: Any, found: Any, path: str = "") -> list[str]:
    """Where two sections differ: a key, a length, a text, or an amount by more than the
    rounding of a cent converted (or a millionth of it)."""
    if isinstance(shown, dict) and isinstance(found, dict):
        if set(shown) != set(found):
            return [f"{path}: keys {sorted(set(shown) ^ set(found))}"]
        return [d for key in shown for d in differences(shown[key], found[key], f"{path}.{key}")]
    if isinstance(shown, list) and isinstance(found, list):
        if len(shown) != len(found):
            return [f"{path}: {len(shown)} items against {len(found)}"]
        return [
            d
            for i, pair in enumerate(zip(shown, found, strict=True))
            for d in differences(*pair, f"{path}[{i}]")
        ]
    numbers = (int, float)
    if isinstance(shown, numbers) and isinstance(found, numbers) and not isinstance(shown, bool):
        if abs(shown - found) <= max(0.05, 1e-6 * abs(found)):
            return []
    elif shown == found:
        return []
    return [f"{path}: {shown!r} against {found!r}"]


@pytest.mark.parametrize("case", [*CASES, *MORE])
def test_a_page_in_yuan_reads_the_usd_computation_converted(rules, case):
    assessment, _edit, _checked = scored({**CASES, **MORE}[case])
    rate = currency_rate(
        figures_values(scored_figures(assessment)), prices_in="USD", shown_in="CNY"
    )
    found = outright(assessment, "CNY")
    shown = {
        "costs": assessment_costs(assessment, currency="CNY"),
        "odds": assessment_odds(assessment, currency="CNY"),
        "plan": assessment_plan(assessment, currency="CNY"),
    }
    for section in ("costs", "odds", "plan"):
        assert differences(shown[section], found[section], section) == []
        assert shown[section]["currency"] == "CNY"
    # Converted, not the same numbers relabelled: the yuan figure is the dollar one × rate.
    usd = assessment_costs(assessment, currency="USD")["present_value"]
    for option, value in usd.items():
        assert shown["costs"]["present_value"][option] == round(value * rate, 2)


def test_a_page_in_yuan_computes_nothing_the_usd_one_did(client, rules, engine_calls):
    """One computation per result: the first view in yuan after one in dollars prices no
    plan again (each section computed once, in USD)."""
    assessment, _edit, _checked = scored(CASES["research_lab"])
    assessment_costs(assessment, currency="USD")
    assessment_odds(assessment, currency="USD")
    assessment_plan(assessment, currency="USD")
    counted = engine_calls("answers_costs", "answers_odds", "answers_plan")
    for currency in ("CNY", "USD", "CNY"):
        assessment_costs(assessment, currency=currency)
        assessment_odds(assessment, currency=currency)
        assessment_plan(assessment, currency=currency)
    assert counted == []
