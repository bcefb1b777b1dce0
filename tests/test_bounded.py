"""Every accepted answer scores in bounded time, and a request past its budget frees the worker.

A depreciation period of 0.00001 years once ran the refresh loop a million times a scoring
(4.9e-324 never ended), and every view of the assessment that held it answered 500 after
gunicorn killed the worker. The bounds now mean something (at least a year, in whole months;
every loop's count bounded by the horizon), the extremes the validator accepts are drawn
below, and a request that still runs long stops at its budget (decider/budget.py).
"""

from __future__ import annotations

import json
import time

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decider import services
from decider.budget import TooSlow, time_budget
from decider.engine import costs, months
from decider.engine.figures import FIGURE_NAMES
from decider.engine.validation import answers_validate
from decider.engine.workloads import MAX_WORKLOADS
from decider.models import Assessment
from tests import test_fuzz as fuzz
from tests.examples import examples
from tests.factories import make_answers, make_assessment, migrate_to
from tests.test_fuzz import _bounds

pytestmark = pytest.mark.django_db

# What one scoring (the result, its plan and its odds) may take at the validator's extremes on
# a loaded 2-core machine: a budget that catches a loop run away, not a speed goal (those
# live in benchmarks/).
SCORING_BUDGET_S = 60


def _post(client, document):
    return client.post(
        reverse("decider-api-assessments"), json.dumps(document), content_type="application/json"
    )


# --- the depreciation period -------------------------------------------------------------


@pytest.mark.parametrize(
    ("years", "words"),
    [
        (0.00001, "must be 0 or at least 1"),
        (4.9e-324, "must be 0 or at least 1"),
        (0.5, "must be 0 or at least 1"),
        (1.01, "whole number of months"),
        (21, "must be at most 20"),
    ],
)
def test_a_depreciation_period_that_is_no_plan_is_refused_naming_it(client, rules, years, words):
    response = _post(client, make_answers("research_lab", costs={"depreciation_years": years}))
    assert response.status_code == 400
    assert words in response.json()["errors"]["costs.depreciation_years"]
    assert Assessment.objects.count() == 0


@pytest.mark.parametrize("years", [0, 1, 2.5, 4.25, 20])
def test_whole_months_from_a_year_to_twenty_are_taken(client, rules, years):
    response = _post(client, make_answers("research_lab", costs={"depreciation_years": years}))
    assert response.status_code == 201


@pytest.mark.parametrize(
    ("typed", "words"), [("0.00001", "0 or at least 1"), ("1.3", "whole number of months")]
)
def test_the_budget_step_refuses_it_next_to_the_field(client, rules, typed, words):
    assessment, edit, _view = make_assessment()
    url = reverse("decider-step", args=[edit, "budget"])
    form = client.get(url).context["form"]
    data = {name: form[name].value() for name in form.fields}
    data = {k: "" if v is None else str(v) for k, v in data.items()}
    page = client.post(url, data | {"cost_depreciation_years": typed, "next": "1"})
    assert page.status_code == 200
    assert words in " ".join(page.context["form"].errors["cost_depreciation_years"])
    assessment.refresh_from_db()
    assert "costs" not in assessment.answers


@pytest.mark.django_db(transaction=True)
def test_a_period_saved_before_the_bound_is_mended_and_opens_again(client):
    """Saved before the bound (it used to answer 500 after 60 s, for good): the nearest
    period inside the bounds, and a result scored again on its next view."""
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from decider.models import token_hash

    call_command("load_defaults", verbosity=0)
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes("decider")[0][1]
    saved = {}
    try:
        apps = migrate_to(executor, "0019_answers_without_blanks")
        Old = apps.get_model("decider", "Assessment")
        for n, years in enumerate([4.9e-324, 0.00001, 4.1, 5, 25]):
            answers = make_answers("research_lab", costs={"depreciation_years": years})
            row = Old.objects.create(
                edit_hash=token_hash(f"edit-link-{n:08}"), answers=answers, revision=3
            )
            saved[row.pk] = years
        migrate_to(executor, "0020_depreciation_in_whole_months")
    finally:
        migrate_to(executor, latest)
    mended = {
        saved[row.pk]: (row.answers["costs"]["depreciation_years"], row.revision)
        for row in Assessment.objects.filter(pk__in=saved)
    }
    assert mended == {
        4.9e-324: (1.0, 4),
        0.00001: (1.0, 4),
        4.1: (4.083333333333333, 4),
        5: (5, 3),
        25: (20.0, 4),
    }
    tiny = Assessment.objects.get(edit_hash=token_hash("edit-link-00000000"))
    assert answers_validate(tiny.answers)[1] == {}
    assert client.get(reverse("decider-result", args=["edit-link-00000000"])).status_code == 200


@pytest.mark.parametrize("years", [4.9e-324, 1e-5, 0.5, 1.0, 5.0])
def test_a_horizon_holds_at_most_one_refresh_a_year(years):
    params = {"depreciation_years": years}
    found = costs._refresh_months(params, 0, 120)
    assert len(found) <= 10 and found == sorted(found)
    assert len(months.refresh_months(params, -30, 120)) <= 12


def test_a_life_of_0_means_never_replaced():
    assert costs._refresh_months({"depreciation_years": 0}, 0, 120) == []


# --- the validator's extremes ------------------------------------------------------------


def _workloads(count: int) -> list[dict]:
    return [
        {"name": f"team {n}", "gpus": 100_000 // MAX_WORKLOADS, "utilization_pct": 100.0 - n,
         "demand_shape": "peaky", "growth_pct": 1000.0 if n % 2 else -50.0}
        for n in range(count)
    ]  # fmt: skip


EXTREMES = {
    **fuzz.EXTREMES,  # the questions' bounds, and those of the growth and the price falls:
    "growth_pct": st.sampled_from([-50.0, 0.0, 1000.0]),
    "cloud_price_fall_pct": st.sampled_from([0.0, 90.0]),
    "hardware_price_fall_pct": st.sampled_from([0.0, 90.0]),
}


@settings(
    max_examples=examples(8),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    figures=st.fixed_dictionaries({name: _bounds(name) for name in FIGURE_NAMES}),
    extremes=st.fixed_dictionaries(EXTREMES),
    persona=st.sampled_from(["research_lab", "startup", "inference"]),
    workloads=st.sampled_from([0, MAX_WORKLOADS]),
)
def test_every_accepted_extreme_scores_within_a_budget(
    rules, figures, extremes, persona, workloads
):
    document = make_answers(persona, costs=figures, **extremes)
    if workloads:
        for key in ("gpus", "utilization_pct", "demand_shape"):
            del document[key]
        document["workloads"] = _workloads(workloads)
    answers, errors = answers_validate(document)
    assert errors == {}
    try:
        with time_budget(SCORING_BUDGET_S):
            assessment, _edit, _view, _costs = services.assessment_create(answers=answers, name="")
            plan = services.assessment_plan(assessment, currency="USD")
            odds = services.assessment_odds(assessment, currency="USD")
    except TooSlow:
        pytest.fail(f"scoring took over {SCORING_BUDGET_S} s: {document}")
    assert assessment.recommendation and plan and odds


# --- the budget per request --------------------------------------------------------------


def _slow(*_args, **_kwargs):
    time.sleep(30)


def test_a_page_past_its_budget_answers_503_and_says_why(client, rules, settings, monkeypatch):
    _assessment, edit, _view = make_assessment()
    monkeypatch.setattr("decider.report.result_context", _slow)
    settings.DECIDER_REQUEST_BUDGET_S = 0.3
    started = time.monotonic()
    response = client.get(reverse("decider-result", args=[edit]))
    assert time.monotonic() - started < 5
    assert response.status_code == 503
    page = response.content.decode()
    assert "took longer than 0.3 seconds to compute and was stopped" in page
    assert "Nothing you saved is lost" in page
    # The worker goes on: the next request is served.
    monkeypatch.undo()
    settings.DECIDER_REQUEST_BUDGET_S = 20
    assert client.get(reverse("decider-result", args=[edit])).status_code == 200


def test_the_api_past_its_budget_answers_json(client, rules, settings, monkeypatch):
    monkeypatch.setattr("decider.services.assessment_scored_draft", _slow)
    settings.DECIDER_REQUEST_BUDGET_S = 0.3
    response = _post(client, make_answers())
    assert response.status_code == 503
    assert "took longer than" in response.json()["error"]
    assert Assessment.objects.count() == 0


def test_a_budget_inside_another_keeps_the_outer_one():
    with pytest.raises(TooSlow), time_budget(0.2), time_budget(5):
        time.sleep(2)
