"""Answers documents checked whole: every question by the questionnaire's own rules
(engine/questionnaire.py), and the optional blocks each by the module that reads it (the
odds' ranges, the years of demand, the GPUs owned, the providers, the service served, the
workloads). The questionnaire is vocabulary and imports none of those; this is where the
answers meet them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from decider.engine import gpus
from decider.engine import workloads as pool
from decider.engine.figures import key_text, overrides_validate
from decider.engine.fleet import owned_given
from decider.engine.i18n import gettext
from decider.engine.odds import ranges_given
from decider.engine.providers import choice_given
from decider.engine.questionnaire import (
    GPU_MODELS,
    LEVELS_REPLACE,
    OPTIONAL_KEYS,
    QUESTIONS,
    WORKLOAD_DEMAND_KEYS,
    answers_problems,
    demand_of,
    has_levels,
    is_required,
    without_blanks,
)
from decider.engine.sizing import answers_sized, workload_parse
from decider.engine.stages import years_given


def workloads_hold(answers: Mapping[str, Any]) -> bool:
    """Whether the answers' demand is their workloads' pooled one (True without workloads,
    or while the pool has not yet given the demand)."""

    if not answers.get("workloads") or "gpus" not in answers:
        return True
    return pool.hold(answers, pool.workloads_of(answers["workloads"], demand_of))


def answers_settled(answers: Mapping[str, Any]) -> dict[str, Any]:
    """Answers as every path stores them and every reader takes them: a question left blank
    is absent, and workloads whose pooled demand the answers no longer give are set aside
    (the demand was changed since on its step, by sizing or in a what-if: they describe
    another one, and would be accepted and ignored)."""
    settled = without_blanks(answers)
    if not workloads_hold(settled):
        del settled["workloads"]
    return settled


def answers_validate(
    raw: Any, *, providers: Collection[str] = ()
) -> tuple[dict[str, Any], dict[str, str]]:
    """Check a whole answers document. Returns (answers, errors by key). `providers`: the
    keys of the providers listed, which `providers` may name (engine/providers.py)."""
    if not isinstance(raw, Mapping):
        return {}, {"_": gettext("the answers must be a JSON object with one key per answer")}
    raw = without_blanks(raw)  # a question left blank is one not answered
    answers: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key, question in QUESTIONS.items():
        if key not in raw:
            if is_required(key, raw):
                errors[key] = gettext("missing (allowed: %(allowed)s)") % {
                    "allowed": question.allowed()
                }
        elif problem := question.problem(raw[key]):
            errors[key] = problem
        else:
            value = raw[key]
            answers[key] = float(value) if question.kind == "float" else value
    for key, problem in answers_problems(answers).items():
        errors.setdefault(key, problem)
    for key in raw:
        if key not in QUESTIONS and key not in OPTIONAL_KEYS:
            errors[key_text(key)] = gettext("unknown key")
    _optional_validate(raw, answers, errors, providers=providers)
    return answers, errors


def _optional_validate(
    raw: Mapping[str, Any],
    answers: dict[str, Any],
    errors: dict[str, str],
    *,
    providers: Collection[str],
) -> None:
    """The optional keys of an answers document (OPTIONAL_KEYS) checked into `answers`, or
    their problems into `errors`."""
    if "costs" in raw:
        costs, cost_errors = overrides_validate(raw["costs"])
        errors.update(cost_errors)
        if costs:
            answers["costs"] = costs
    if "uncertainty" in raw:
        ranges, wrong = ranges_given(raw["uncertainty"])
        if wrong:
            errors[wrong[0]] = wrong[1]
        elif ranges:
            answers["uncertainty"] = ranges
    if "growth_years" in raw:
        years, wrong = years_given(raw["growth_years"])
        if wrong:
            errors[wrong[0]] = wrong[1]
        else:
            answers["growth_years"] = [{"base_gpus": b, "peak_gpus": p} for b, p in years]
    if "owned" in raw:
        entries, as_of, wrong = owned_given(
            raw["owned"], as_of=raw.get("owned_as_of"), gpu_models=dict(GPU_MODELS)
        )
        if wrong:
            errors[wrong[0]] = wrong[1]
        elif entries:
            answers["owned"] = entries
            answers["owned_as_of"] = as_of
    elif "owned_as_of" in raw:
        errors["owned_as_of"] = gettext("give it with “owned”, or leave it out")
    if "workloads" in raw:
        _workloads_validate(raw, answers, errors)
    if "served" in raw:
        _served_validate(raw["served"], answers, errors)
    if "providers" in raw:
        choice, problem = choice_given(raw["providers"], known=providers)
        if problem:
            errors["providers"] = problem
        else:
            answers["providers"] = choice


def _served_validate(served: Any, answers: dict[str, Any], errors: dict[str, str]) -> None:
    """What a service serves (a `work.inference` block, kept for its per-token price)."""

    _training, service, problems = workload_parse({"inference": served})
    if problems:
        errors.update({k.replace("work.inference", "served"): v for k, v in problems.items()})
    elif service is not None:
        # A null input is one left out: kept as absent, so that what reads the block again
        # (the per-token price) meets numbers only.
        answers["served"] = {key: value for key, value in served.items() if value is not None}


def _workloads_validate(
    raw: Mapping[str, Any], answers: dict[str, Any], errors: dict[str, str]
) -> None:
    """Several workloads (engine/workloads.py) checked into `answers`; their pooled demand
    stands in for the answers' own unless those are given (as saved, for a what-if)."""

    items, problems = pool.items_given(
        raw["workloads"],
        defaults=answers,
        check=lambda item: _workload_checked(item, gpu_model=answers.get("gpu_model")),
    )
    if problems:
        errors.update(problems)
        return
    answers["workloads"] = items
    listed = pool.workloads_of(items, demand_of)
    given = [key for key in WORKLOAD_DEMAND_KEYS if key in raw]
    if given and not pool.hold(raw, listed):
        # The company's own demand beside workloads that pool to another: one would be
        # ignored. Only the pool's own levels (as saved) may stand beside them.
        pooled_gpus = pool.pooled_answers(listed)["gpus"]
        for key in given:
            errors[key] = gettext(
                "drop it, or drop “workloads”: the workloads' pooled demand (%(gpus)s GPUs at "
                "the peak) stands in for the company's own"
            ) % {"gpus": pooled_gpus}
        return
    if not given:
        # The pool's kind and residency are its workloads' (each as strict as the company).
        answers.update(pool.pooled_answers(listed))
        grown = pool.growth_years(
            listed,
            company_pct=float(answers.get("growth_pct") or 0.0),
            years=int(answers.get("horizon_years") or 1),
        )
        if "growth_years" in raw:
            # A pool's base and peak per year cannot be shared out among its workloads.
            errors["growth_years"] = gettext(
                "with workloads, give each its growth_pct (or growth_pct for all) instead"
            )
        elif grown is not None:
            answers["growth_years"] = grown


def _workload_checked(
    item: Mapping[str, Any], *, gpu_model: str | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """One workload's answers (its kind, residency and demand, or the work to size it from)
    checked as the questionnaire checks the answers' own."""

    item, _sized, problems = answers_sized({**item, "gpu_model": gpu_model or gpus.DEFAULT})
    if problems:
        return {}, {f"work.{key}": problem for key, problem in problems.items()}
    checked: dict[str, Any] = {}
    for key in ("workload", "residency", "latency_critical", *WORKLOAD_DEMAND_KEYS, "growth_pct"):
        question = QUESTIONS[key]
        if key not in item:
            needed = key in ("workload", "residency", "gpus") or (
                key in LEVELS_REPLACE and not has_levels(item)
            )
            if needed:
                problems[key] = gettext("missing (allowed: %(allowed)s)") % {
                    "allowed": question.allowed()
                }
        elif problem := question.problem(item[key]):
            problems[key] = problem
        else:
            checked[key] = float(item[key]) if question.kind == "float" else item[key]
    if not problems:
        found = answers_problems(checked)
        problems = {key: found[key] for key in WORKLOAD_DEMAND_KEYS if key in found}
    return checked, problems
