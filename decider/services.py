"""The ORM side of evaluation: load the rules and figures, save snapshots.

`evaluation.answers_evaluate` does the work on plain data; these functions
only fetch its inputs and store what it returns with the assessment.

A saved assessment is pinned to the rule-set version and the price figures it
was first scored with. Editing its answers re-scores with those same rules and
figures; only `assessment_score(..., refresh=True)` (the "re-score" the user
accepts on purpose) moves it to the current ones.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from decider import costs, scoring
from decider.evaluation import (
    Evaluation,
    answers_evaluate,
    assumptions_as_dict,
    assumptions_from_dict,
    cost_answers,
)
from decider.models import Assessment, Assumption, RuleSet


class NoRuleSet(RuntimeError):
    """No published rule set: run `manage.py load_defaults`."""


def current_ruleset() -> RuleSet:
    ruleset = RuleSet.current()
    if ruleset is None:
        raise NoRuleSet("No published rule set; run `python manage.py load_defaults`.")
    return ruleset


def evaluate_now(answers: dict[str, Any], *, currency: str = "USD") -> tuple[RuleSet, Evaluation]:
    """Score answers with the current rule set and the current figures."""
    ruleset = current_ruleset()
    evaluation = answers_evaluate(
        answers=answers,
        rulebook=ruleset.rulebook(),
        assumptions=Assumption.for_gpu_model(answers["gpu_model"]),
        currency=currency,
    )
    return ruleset, evaluation


def pinned_figures(assessment: Assessment) -> dict[str, costs.Assumption] | None:
    """The price figures (before the user's own overrides) the assessment was scored with.

    Names the snapshot lacks (a figure added since) take the current value.
    """
    snapshot = assessment.result or {}
    gpu_model = assessment.answers.get("gpu_model")
    if "figures" not in snapshot or snapshot.get("gpu_model") != gpu_model:
        return None  # never scored, or the GPU model changed: its figures do not apply
    return {**Assumption.for_gpu_model(gpu_model), **assumptions_from_dict(snapshot["figures"])}


def assessment_evaluate(
    assessment: Assessment, *, refresh: bool = False
) -> tuple[RuleSet, Evaluation, dict]:
    """Evaluate without saving: with the pinned rules and figures, or the current ones."""
    answers = assessment.answers
    ruleset = assessment.ruleset if (assessment.ruleset and not refresh) else current_ruleset()
    figures = None if refresh else pinned_figures(assessment)
    if figures is None:
        figures = Assumption.for_gpu_model(answers["gpu_model"])
    evaluation = answers_evaluate(answers=answers, rulebook=ruleset.rulebook(), assumptions=figures)
    return ruleset, evaluation, figures


def assessment_score(assessment: Assessment, *, refresh: bool = False) -> None:
    """Score and keep the result, with the figures and rules used, as a snapshot."""
    ruleset, evaluation, figures = assessment_evaluate(assessment, refresh=refresh)
    assessment.ruleset = ruleset
    scoring_data = scoring.result_as_dict(evaluation.result)
    del scoring_data["recommendation"]  # kept in its own column
    assessment.result = {
        "scoring": scoring_data,
        "assumptions": assumptions_as_dict(evaluation.assumptions),
        "figures": assumptions_as_dict(figures),
        "gpu_model": assessment.answers["gpu_model"],
    }
    assessment.recommendation = evaluation.result.recommendation or ""
    # Answers the app derived, so a draft rule set can re-score without the cost model.
    assessment.derived = evaluation.derived
    assessment.scored_revision = assessment.revision
    assessment.scored_at = timezone.now()
    assessment.save(update_fields=[*Assessment.SCORED_FIELDS, "updated_at"])


def newer_basis(assessment: Assessment) -> dict[str, Any] | None:
    """What is newer than the assessment's pinned rules and figures, or None."""
    current = RuleSet.current()
    newer_rules = (
        current is not None
        and assessment.ruleset is not None
        and current.version > assessment.ruleset.version
    )
    figures = pinned_figures(assessment)
    newer_figures = figures is not None and assumptions_as_dict(figures) != assumptions_as_dict(
        Assumption.for_gpu_model(assessment.answers["gpu_model"])
    )
    if not (newer_rules or newer_figures):
        return None
    return {
        "ruleset": current if newer_rules else None,
        "figures": newer_figures,
    }


def assessment_costs(assessment: Assessment, *, currency: str) -> dict[str, Any]:
    """The cost figures of a scored assessment, from the assumptions it was scored with."""
    assumptions = assumptions_from_dict(assessment.result["assumptions"])
    return costs.costs_compute(
        answers=cost_answers(assessment.answers), assumptions=assumptions, currency=currency
    )


def assessment_document(assessment: Assessment, *, language: str, currency: str) -> dict[str, Any]:
    """The assessment as JSON: its answers and the result in the shape of `decide --format json`."""
    document = scoring.result_localized(assessment.scoring_result(), language)
    document["costs"] = assessment_costs(assessment, currency=currency)
    return {
        "name": assessment.name,
        "answers": assessment.answers,
        "result": document,
        "revision": assessment.revision,
        "scored_at": assessment.scored_at.isoformat() if assessment.scored_at else None,
    }


def assessment_copy(assessment: Assessment, *, name: str) -> tuple[Assessment, str, str]:
    """A new assessment with the same answers, result and pinned basis, and its own links."""
    scored = {field: getattr(assessment, field) for field in Assessment.SCORED_FIELDS}
    return Assessment.create_with_links(
        name=name, answers=assessment.answers, revision=assessment.revision, **scored
    )
