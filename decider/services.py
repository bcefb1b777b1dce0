"""The ORM side of the engine: load rules and figures, score and store, save answers.

`decider.engine` does the work on plain data; these functions fetch its
inputs and store what it returns with the assessment.

A saved assessment is pinned to the rule-set version and the price figures it
was first scored with. Editing its answers re-scores with those same rules and
figures; only `assessment_score(..., refresh=True)` (the "re-score" the user
accepts on purpose) moves it to the current ones.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, replace
from datetime import timedelta
from typing import Any

from django.db.models import F
from django.utils import timezone

from decider import caching, conversion, decision
from decider.engine import gpus, hosted, questionnaire, scoring, tokens, validation, verdict
from decider.engine.batch import Impact, Transition, impact_compute
from decider.engine.decided import Decision, decision_of
from decider.engine.evaluation import (
    Evaluation,
    answers_costs,
    answers_evaluate,
    answers_odds,
    answers_plan,
    bursts_owned,
    per_token_parts,
    provider_priced,
    with_api,
)
from decider.engine.figures import (
    FIGURE_NAMES,
    Figure,
    figures_as_dict,
    figures_from_dict,
    figures_values,
)
from decider.engine.markets import DEFAULT_MARKET, currency_rate, market_of
from decider.engine.merge import answers_merge
from decider.engine.providers import (
    Provider,
    market_index,
    priced_at,
    providers_as_dict,
    providers_from_dict,
)
from decider.models import Assessment, Assumption, ImpactPreview, RuleSet
from decider.models import Provider as ProviderRow
from decider.models import TokenPrice as TokenPriceRow
from decider.rulesets import ruleset_export, ruleset_rulebook

log = logging.getLogger(__name__)

SAVE_ATTEMPTS = 5
IMPACT_CHUNK = 2000


class NoRuleSet(RuntimeError):
    """No published rule set: run `manage.py load_defaults`."""


class SaveContention(RuntimeError):
    """Other saves kept landing first: nothing was written."""


def current_ruleset() -> RuleSet:
    ruleset = RuleSet.current()
    if ruleset is None:
        log.error("no published rule set: new assessments cannot be scored")
        raise NoRuleSet("No published rule set; run `python manage.py load_defaults`.")
    return ruleset


def evaluate_now(
    answers: dict[str, Any], *, currency: str = "USD", odds_seed: int = 0
) -> tuple[RuleSet, Evaluation]:
    """Score answers with the current rule set and the current figures."""
    ruleset = current_ruleset()
    evaluation = answers_evaluate(
        answers=answers,
        rulebook=ruleset_rulebook(ruleset),
        figures=Assumption.for_answers(answers),
        currency=currency,
        odds_seed=odds_seed,
        listed=listed_providers(answers),
        book=token_book(answers),
    )
    return ruleset, evaluation


def token_book(
    answers: Mapping[str, Any], *, pinned: Mapping[str, Any] | None = None
) -> tokens.PriceBook | None:
    """The per-token prices for answers that say what they serve (None for the others: no
    price is read): the one a saved result was scored with (`pinned`: its snapshot, while the
    service's class and market are the same), else the prices the admin lists now."""
    served = answers.get("served")
    if not served:
        return None
    price = (pinned or {}).get("token_price")
    if (
        price
        and price["market"] == market_of(answers).key
        and price["model_class"] == tokens.model_class(float(served["params_b"]))
    ):
        return hosted.pinned_book(price)
    return hosted.book_of(TokenPriceRow.listed())


def provider_keys(raw: Any) -> list[str]:
    """The listed providers' keys, which an answers document's `providers` may name (read
    only when it names some)."""
    return ProviderRow.keys() if isinstance(raw, Mapping) and "providers" in raw else []


def listed_providers(
    answers: Mapping[str, Any], *, pinned: Mapping[str, Any] | None = None
) -> list[Provider]:
    """The providers the cloud may be priced at, when the answers ask for one: as a saved
    result pinned them (`pinned`: its snapshot, when its market is the answers'), else as
    listed now."""
    market = market_of(answers).key
    if pinned and pinned.get("market", DEFAULT_MARKET) == market:
        if "providers" in pinned:
            return providers_from_dict(pinned["providers"])
        if "figures" in pinned and pinned.get("gpu_model") == answers.get("gpu_model"):
            # Scored at the market's figures (before issue 53 priced every result at a
            # listed provider, or where none was listed): it keeps them.
            return []
    return ProviderRow.listed(market)


# --- scored results -------------------------------------------------------------


def pinned_figures(
    assessment: Assessment, *, current: dict[str, Figure] | None = None
) -> dict[str, Figure] | None:
    """The price figures (before the user's own overrides) the assessment was scored with.

    Names the snapshot lacks (a figure added since) take the current value (`current`, when
    the caller has read them already).
    """
    snapshot = assessment.result or {}
    answers = assessment.answers
    market = market_of(answers).key
    if (
        "figures" not in snapshot
        or snapshot.get("gpu_model") != answers.get("gpu_model")
        or snapshot.get("market", DEFAULT_MARKET) != market
    ):
        return None  # never scored, or the GPU model or market changed: its figures do not apply
    if current is None:
        current = Assumption.for_answers(answers)
    return {**current, **figures_from_dict(snapshot["figures"])}


def priced_figures(
    assessment: Assessment, *, current: dict[str, Figure] | None = None
) -> dict[str, Figure] | None:
    """The pinned figures as the saved result priced the cloud: the market's index from the
    providers it pinned, the provider it named laid over them, before the assessment's own
    overrides. What the what-if and the budget step offer to change is this one price,
    never the market's figure beside it (issue 53)."""
    pinned = pinned_figures(assessment, current=current)
    if pinned is None:
        return None
    result = assessment.result or {}
    gpu_model = gpus.gpu(assessment.answers.get("gpu_model")).key
    market = market_of(assessment.answers).key
    listed = [p for p in providers_from_dict(result.get("providers", [])) if p.market == market]
    indexed = market_index(pinned, listed, gpu_model=gpu_model)
    chosen = (result.get("provider") or {}).get("chosen")
    provider = next((p for p in listed if chosen and p.key == chosen["key"]), None)
    if provider is None or not provider.rents(gpu_model):
        return indexed
    return priced_at(indexed, provider, gpu_model=gpu_model)


def step_figures(assessment: Assessment) -> dict[str, Figure]:
    """The figures the budget step shows beside its questions: the saved result's, as the
    cloud was priced; before any, as scoring the answers now would price it (the cheapest
    listed provider they allow), so the step never quotes a price the result will not use."""
    if (priced := priced_figures(assessment)) is not None:
        return priced
    answers = assessment.answers
    figures = Assumption.for_gpu_model(
        answers.get("gpu_model") or gpus.DEFAULT, market_of(answers).key
    )
    try:
        derived = questionnaire.derived_answers(answers)
        rulebook = ruleset_rulebook(current_ruleset())
        excluded, _warnings = scoring.exclusions({**answers, **derived}, rulebook.constraints)
        found, _facts, _costs = provider_priced(
            answers, figures, listed_providers(answers), excluded
        )
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return figures  # answers not far enough along to price: the market's figures
    return dict(found)


def assessment_evaluate(
    assessment: Assessment, *, refresh: bool = False, odds_seed: int = 0
) -> tuple[RuleSet, Evaluation, dict[str, Figure]]:
    """Evaluate without saving: with the pinned rules and figures, or the current ones
    (`odds_seed`: the draws, should a rule read the odds)."""
    answers = assessment.answers
    ruleset = assessment.ruleset if (assessment.ruleset and not refresh) else current_ruleset()
    figures = None if refresh else pinned_figures(assessment)
    if figures is None:
        figures = Assumption.for_answers(answers)
    evaluation = answers_evaluate(
        answers=answers,
        rulebook=ruleset_rulebook(ruleset),
        figures=figures,
        odds_seed=odds_seed,
        listed=listed_providers(answers, pinned=None if refresh else assessment.result),
        book=token_book(answers, pinned=None if refresh else assessment.result),
    )
    return ruleset, evaluation, figures


def assessment_create(*, answers: dict[str, Any], name: str) -> tuple[Assessment, str, str, dict]:
    """A new assessment, scored and saved in one write, and its costs in USD (the cost model
    runs once: the evaluation's costs are the saved result's)."""
    draft, evaluation = assessment_scored_draft(answers=answers, name=name)
    saved = assessment_draft_save(draft, odds_usd=evaluation.odds, costs_usd=evaluation.costs)
    return (*saved, evaluation.costs)


def assessment_scored_draft(*, answers: dict[str, Any], name: str) -> tuple[Assessment, Evaluation]:
    """A new assessment scored but not saved, and its evaluation (costs in USD, and the odds
    when the scoring drew them): whatever is computed from it before the write (the API's
    document) holds no database lock meanwhile."""
    draft = Assessment(answers=answers, name=name)
    seed = new_odds_seed()
    ruleset, evaluation, figures = assessment_evaluate(draft, odds_seed=seed)
    _take_result(draft, ruleset, evaluation, figures, odds_seed=seed)
    _carry_scoring(draft, evaluation)
    return draft, evaluation


def _carry_scoring(assessment: Assessment, evaluation: Evaluation) -> None:
    """What the scoring computed (the cost section, and the odds when it drew them), carried
    by an unsaved draft or trial: its document and its first view read them, as a saved
    result's find them kept (assessment_score)."""
    computed = {("costs", COMPUTED_IN): evaluation.costs}
    if evaluation.odds is not None:
        computed[("odds", COMPUTED_IN)] = evaluation.odds
    setattr(assessment, _SCORING_COMPUTED, computed)


def assessment_draft_save(
    draft: Assessment,
    *,
    odds_usd: dict[str, Any] | None = None,
    costs_usd: dict[str, Any] | None = None,
) -> tuple[Assessment, str, str]:
    """The scored draft saved with its links, in one INSERT; `odds_usd` and `costs_usd`: the
    odds the scoring drew and the costs it computed, kept for the result's first view."""
    scored = {field: getattr(draft, field) for field in Assessment.SCORED_FIELDS}
    saved = Assessment.create_with_links(answers=draft.answers, name=draft.name, **scored)
    # What the draft's document computed (the plan, the odds, in its currency) is the saved
    # result's own: its first view computes none of it again.
    drawn_now = {("odds", COMPUTED_IN): odds_usd, ("costs", COMPUTED_IN): costs_usd}
    _keep_carried(draft, saved[0], {k: v for k, v in drawn_now.items() if v is not None})
    return saved


def _keep_carried(
    draft: Assessment, saved: Assessment, more: Mapping[tuple[str, str], Any] | None = None
) -> None:
    """What an unsaved draft or trial carries (its scoring's costs and odds, what its
    document computed), kept for the saved result's first view."""
    for (name, currency), value in {**_carried(draft), **(more or {})}.items():
        caching.keep(caching.scored_key(saved, name, currency), value)


def assessment_score(assessment: Assessment, *, refresh: bool = False) -> None:
    """Score and keep the result, with the figures and rules used, as a snapshot. A result
    scored again keeps its odds' draws: what changes is what was re-scored. The odds the
    scoring drew are kept for the result's first view (in USD, as the scoring draws them)."""
    seed = odds_seed_of(assessment) if assessment.result else new_odds_seed()
    ruleset, evaluation, figures = assessment_evaluate(assessment, refresh=refresh, odds_seed=seed)
    _take_result(assessment, ruleset, evaluation, figures, odds_seed=seed)
    assessment.save(update_fields=[*Assessment.SCORED_FIELDS, "updated_at"])
    caching.keep(caching.scored_key(assessment, "odds", "USD"), evaluation.odds)
    # The cost section the scoring computed is the result's own (assessment_costs).
    caching.keep(caching.scored_key(assessment, "costs", "USD"), evaluation.costs)


def assessment_what_if(assessment: Assessment, answers: dict[str, Any]) -> Assessment:
    """An unsaved copy scored on other answers, with the original's pinned rules and figures,
    so the difference on the page is the change alone."""
    trial = Assessment(
        name=assessment.name,
        answers=answers,
        revision=assessment.revision,
        ruleset=assessment.ruleset,
        result=assessment.result,
    )
    seed = odds_seed_of(assessment) if assessment.result else new_odds_seed()  # the same draws
    ruleset, evaluation, figures = assessment_evaluate(trial, odds_seed=seed)
    _take_result(trial, ruleset, evaluation, figures, odds_seed=seed)
    # The trial is never saved, so nothing it shows is kept: it carries what its scoring
    # computed, as a saved result's first view finds it kept (assessment_score).
    _carry_scoring(trial, evaluation)
    return trial


def assessment_save_scenario(
    assessment: Assessment, answers: dict[str, Any], *, name: str
) -> tuple[Assessment, str, str]:
    """A saved copy with other answers and its own links, scored like `assessment_what_if`."""
    trial = assessment_what_if(assessment, answers)
    scored = {field: getattr(trial, field) for field in Assessment.SCORED_FIELDS}
    saved = Assessment.create_with_links(
        name=name, answers=answers, revision=assessment.revision, **scored
    )
    _keep_carried(trial, saved[0])  # its first view computes none of it again
    return saved


def new_odds_seed() -> int:
    return secrets.randbelow(2**32)


def odds_seed_of(assessment: Assessment) -> int:
    """The seed a saved result's odds are drawn with; a result saved before the odds has
    none, and its row's number stands in, as fixed."""
    assert assessment.result is not None, "score the assessment first"
    return int(assessment.result.get("odds_seed", assessment.pk or 0))


def _take_result(
    assessment: Assessment,
    ruleset: RuleSet,
    evaluation: Evaluation,
    figures: dict[str, Figure],
    *,
    odds_seed: int,
) -> None:
    scoring_data = scoring.result_as_dict(evaluation.result)
    del scoring_data["recommendation"]  # kept in its own column
    assessment.ruleset = ruleset
    assessment.result = {
        "scoring": scoring_data,
        "assumptions": figures_as_dict(evaluation.figures, market_of(assessment.answers).currency),
        "figures": figures_as_dict(figures, market_of(assessment.answers).currency),
        "gpu_model": assessment.answers["gpu_model"],
        "market": market_of(assessment.answers).key,
        # The odds' draws are fixed per saved result: a shared link shows everyone the same.
        "odds_seed": odds_seed,
    }
    if api := evaluation.costs.get("api"):
        assessment.result["token_price"] = api  # pinned too (issue 36)
    if evaluation.listed:
        # Pinned like the figures: a price changed later does not change this result.
        assessment.result["providers"] = providers_as_dict(evaluation.listed)
    if evaluation.provider is not None:  # whom it priced at, or that none was listed
        assessment.result["provider"] = evaluation.provider
    assessment.recommendation = evaluation.result.recommendation or ""
    # Answers the app derived, so a draft rule set can re-score without the cost model.
    assessment.derived = evaluation.derived
    assessment.scored_revision = assessment.revision
    assessment.scored_at = timezone.now()


def newer_basis(
    assessment: Assessment, *, prices: dict[str, Figure] | None = None
) -> dict[str, Any] | None:
    """What is newer than the assessment's pinned rules and figures, or None (`prices`:
    today's price set for its answers, when the caller has read it)."""
    current = RuleSet.current()
    newer_rules = (
        current is not None
        and assessment.ruleset is not None
        and current.version > assessment.ruleset.version
    )
    # Compared as saved: a figure added to the model since counts as newer too.
    if prices is None:
        prices = Assumption.for_answers(assessment.answers)
    pinned = pinned_figures(assessment, current=prices) is not None
    saved = figures_from_dict((assessment.result or {})["figures"]) if pinned else None
    newer_figures = saved is not None and _prices(saved) != _prices(prices)
    if not (newer_rules or newer_figures):
        return None
    return {"ruleset": current if newer_rules else None, "figures": newer_figures}


def _prices(figures: dict[str, Figure]) -> dict[str, tuple[float, str, str]]:
    """What makes figures newer: a value, a source or a date (a translation does not)."""
    return {name: (float(f.value), f.source, f.as_of) for name, f in figures.items()}


# The currency a result's sections are computed in, once (the scoring's); a page in another
# converts them where it shows them (decider/conversion.py).
COMPUTED_IN = "USD"

# On an unsaved draft or what-if: {(name, currency): value}, what its scoring and its
# document computed; a draft's is kept when it is saved (assessment_draft_save).
_SCORING_COMPUTED = "scoring_computed"


def _carried(assessment: Assessment) -> dict[tuple[str, str], Any]:
    found: dict[tuple[str, str], Any] | None = getattr(assessment, _SCORING_COMPUTED, None)
    if found is None:
        found = {}
        setattr(assessment, _SCORING_COMPUTED, found)
    return found


def _computed(
    assessment: Assessment, name: str, currency: str, compute: Callable[[str], dict[str, Any]]
) -> dict[str, Any]:
    """`compute(COMPUTED_IN)` once per scored result (decider/caching.py), in another
    currency converted where it is shown (decider/conversion.py): every currency reads one
    computation. An unsaved draft or what-if has nothing kept: it carries what it computed
    (and a draft hands it on to be kept when it is saved)."""
    found = _computed_once(assessment, name, lambda: compute(COMPUTED_IN))
    if currency == COMPUTED_IN:
        return found
    rate = currency_rate(
        figures_values(scored_figures(assessment)), prices_in=COMPUTED_IN, shown_in=currency
    )
    return conversion.converted(name, found, rate=rate, currency=currency)


def _computed_once(
    assessment: Assessment, name: str, compute: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    carried = _carried(assessment)
    if (found := carried.get((name, COMPUTED_IN))) is not None:
        return found
    key = caching.scored_key(assessment, name, COMPUTED_IN)
    if key is None:
        carried[(name, COMPUTED_IN)] = value = compute()
        return value
    return caching.scored(key, compute)


def assessment_costs(assessment: Assessment, *, currency: str) -> dict[str, Any]:
    """The cost figures of a scored assessment, from the figures it was scored with
    (computed once per scored result, in USD, and converted: _computed)."""
    assert assessment.result is not None, "score the assessment first"
    return _computed(
        assessment, "costs", currency, lambda computed_in: _costs_shown(assessment, computed_in)
    )


def _costs_shown(assessment: Assessment, currency: str) -> dict[str, Any]:
    figures, excluded = scored_figures(assessment), assessment_excluded(assessment)
    computed = answers_costs(
        answers=assessment.answers,
        figures=figures,
        excluded=excluded,
        currency=currency,
        provider=assessment.result.get("provider") if assessment.result else None,
    )
    return with_api(
        computed,
        answers=assessment.answers,
        figures=figures,
        excluded=excluded,
        currency=currency,
        book=token_book(assessment.answers, pinned=assessment.result),
    )


def assessment_odds(assessment: Assessment, *, currency: str) -> dict[str, Any]:
    """The odds of a scored assessment (engine/odds.py), the per-token outcomes its verdict
    weighs drawn beside the plans (as its scoring drew them)."""

    def compute(**given: Any) -> dict[str, Any]:
        shown = assessment_costs(assessment, currency=given["currency"])
        fixed = per_token_parts(shown, assessment_excluded(assessment))
        return answers_odds(**given, fixed=fixed)

    return _drawn(assessment, "odds", compute, currency=currency)


def assessment_plan(assessment: Assessment, *, currency: str) -> dict[str, Any]:
    """The staged plan of a scored assessment (engine/stages.py), buy-or-wait included; the
    plan recommended follows the saved recommendation."""
    outcome = assessment.recommendation or None

    def compute(**given: Any) -> dict[str, Any]:
        shown = assessment_costs(assessment, currency=given["currency"])
        fixed = per_token_parts(shown, assessment_excluded(assessment))
        owned = bursts_owned(shown)
        return answers_plan(**given, outcome=outcome, fixed=fixed, bursts_owned=owned)

    return _drawn(assessment, "plan", compute, currency=currency)


def _drawn(
    assessment: Assessment, name: str, compute: Callable[..., dict[str, Any]], *, currency: str
) -> dict[str, Any]:
    """`compute` (answers_odds, answers_plan) over the answers and figures the result was
    scored with, drawn with the seed it keeps: once per scored result (_computed)."""
    return _computed(
        assessment,
        name,
        currency,
        lambda computed_in: compute(
            answers=assessment.answers,
            figures=scored_figures(assessment),
            excluded=assessment_excluded(assessment),
            currency=computed_in,
            seed=odds_seed_of(assessment),
        ),
    )


def scored_figures(assessment: Assessment) -> dict[str, Figure]:
    """The figures a saved result was scored with; a figure added since takes today's value."""
    assert assessment.result is not None, "score the assessment first"
    used = figures_from_dict(assessment.result["assumptions"])
    missing = set(FIGURE_NAMES) - set(used)
    if not missing:
        return used
    current = Assumption.for_answers(assessment.answers)
    return {**{name: current[name] for name in missing if name in current}, **used}


def assessment_excluded(assessment: Assessment) -> dict[str, Any]:
    """The outcomes the saved result's rules excluded (the cost model does not compare them)."""
    assert assessment.result is not None, "score the assessment first"
    return dict(assessment.result["scoring"].get("excluded", {}))


def assessment_decision(assessment: Assessment, *, currency: str) -> Decision:
    """The decision of a scored assessment (engine/decided.py): its sections in `currency`
    (each computed once, _computed) and what the readers show of them."""
    result = assessment.scoring_result()
    assert result is not None, "score the assessment first"
    return _decided(
        assessment,
        result,
        costs=assessment_costs(assessment, currency=currency),
        odds=assessment_odds(assessment, currency=currency),
        plan=assessment_plan(assessment, currency=currency),
    )


def _decided(
    assessment: Assessment,
    result: scoring.Result,
    *,
    costs: dict[str, Any],
    odds: dict[str, Any],
    plan: dict[str, Any],
) -> Decision:
    rulebook = None if assessment.ruleset is None else ruleset_rulebook(assessment.ruleset)
    return decision_of(
        result=result,
        answers=assessment.answers,
        derived=assessment.derived or {},
        costs=costs,
        odds=odds,
        plan=plan,
        rulebook=rulebook,
    )


def assessment_document(
    assessment: Assessment,
    *,
    language: str,
    currency: str,
    costs_shown: dict[str, Any] | None = None,
    odds_shown: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The assessment as JSON: its answers and the result in the shape of `decide --format json`.
    `costs_shown`, `odds_shown`: its costs and odds in `currency` when the caller has them."""
    result = assessment.scoring_result()
    assert result is not None, "score the assessment first"
    document = scoring.result_localized(result, language)
    document["costs"] = costs_shown or assessment_costs(assessment, currency=currency)
    document["odds"] = odds_shown or assessment_odds(assessment, currency=currency)
    document["plan"] = assessment_plan(assessment, currency=currency)
    document.update(
        verdict.result_money(
            result,
            document["costs"],
            document["odds"],
            derived=assessment.derived or {},
            language=language,
            plan=document["plan"],
        )
    )
    decided = _decided(
        assessment, result, costs=document["costs"], odds=document["odds"], plan=document["plan"]
    )
    document["decision"] = decision.decision_json(decided)
    if assessment.ruleset is not None:
        document["summary"] |= decision.summary_json(
            decided, language=language, start=(assessment.scored_at or timezone.now()).date()
        )
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


# --- saving a step --------------------------------------------------------------


def assessment_step_save(
    assessment: Assessment,
    *,
    step: questionnaire.Step,
    mine: dict[str, Any],
    base: dict[str, Any] | None,
    revision: int | None,
) -> dict[str, Any]:
    """Record one step's answers; return those that clash with someone else's edit.

    `mine` are the answers submitted, `base` and `revision` what the form was
    drawn with (None from a client that sends no version: last write wins).
    When the assessment changed since, the answers are merged
    (`answers_merge`): an answer both people changed is not written, so
    nothing is lost silently. The write only lands on the version it was
    merged against; if another save got in first, the merge runs again.
    """
    for attempt in range(SAVE_ATTEMPTS):
        conflicts: dict[str, Any] = {}
        changes = mine
        if revision is not None and base is not None and revision != assessment.revision:
            stored = questionnaire.step_answers(step, assessment.answers)
            changes, conflicts = answers_merge(base=base, mine=mine, stored=stored)
        # A cleared answer (None) is removed; so are cost figures and ranges all at their defaults.
        answers = {k: v for k, v in {**assessment.answers, **changes}.items() if v is not None}
        for optional in ("costs", "uncertainty"):  # empty: all back at their defaults
            if not answers.get(optional):
                answers.pop(optional, None)
        # A question left blank is absent; workloads the demand no longer pools are set aside.
        answers = validation.answers_settled(answers)
        if answers == assessment.answers:
            return conflicts
        written = Assessment.objects.filter(pk=assessment.pk, revision=assessment.revision).update(
            answers=answers, revision=F("revision") + 1, updated_at=timezone.now()
        )
        if written:
            assessment.answers, assessment.revision = answers, assessment.revision + 1
            return conflicts
        log.info("assessment %s: save %d lost the race, merging again", assessment.pk, attempt + 1)
        assessment.refresh_from_db()
    log.warning("assessment %s kept changing: %d saves lost", assessment.pk, SAVE_ATTEMPTS)
    raise SaveContention(f"assessment {assessment.pk} kept changing while saving")


# --- the impact preview ---------------------------------------------------------


def impact_rows() -> tuple[list[tuple[int, dict[str, Any], str | None]], int]:
    """impact_compute's rows for every assessment scored on its current answers, and the stale.

    Reads the small scoring columns, never the result snapshots (tens of kB
    each). Stale: saved before results kept their derived answers; they are
    compared without a cost verdict.
    """
    rows = []
    stale = 0
    current = Assessment.objects.filter(scored_revision=F("revision")).order_by("id")
    for assessment_id, answers, old, derived in current.values_list(
        "id", "answers", "recommendation", "derived"
    ).iterator(chunk_size=IMPACT_CHUNK):
        if not derived:
            stale += 1
        rows.append((assessment_id, {**answers, **derived}, old or None))
    return rows, stale


def ruleset_impact(ruleset: RuleSet) -> Impact:
    """Re-score every saved result with `ruleset` (typically a draft) and compare."""
    started = time.perf_counter()
    rows, stale = impact_rows()
    impact = impact_compute(rows=rows, rulebook=ruleset_rulebook(ruleset))
    # Never scored, or answers edited since: the saved recommendation is not
    # what these answers give, so comparing would count the edit as impact.
    # (A plain count: a second filtered scan of the table costs as much as the fetch.)
    skipped = Assessment.objects.count() - len(rows)
    log.info(
        "impact preview of v%s: %d assessments compared, %d changed, %d skipped in %.2f s",
        ruleset.version,
        impact.total,
        impact.changed,
        skipped,
        time.perf_counter() - started,
    )
    return replace(impact, skipped=skipped, stale=stale)


# --- the impact preview, kept: computed once per draft, by a worker ----------------------

# A preview queued this long ago and never finished is taken for lost and queued again.
IMPACT_LOST_AFTER = timedelta(minutes=15)


def ruleset_digest(ruleset: RuleSet) -> str:
    """Names the draft's rules as they are now: any edit gives another digest."""
    exported = json.dumps(ruleset_export(ruleset), sort_keys=True, default=str)
    return hashlib.sha256(exported.encode()).hexdigest()


def impact_preview(
    ruleset: RuleSet, *, enqueue: Callable[[int, str], object], again: bool = False
) -> ImpactPreview:
    """The kept preview of `ruleset` as it is now; `enqueue(ruleset_pk, digest)` (the caller's
    job, tasks.compute_impact.delay) queues it, or computes it inline without a broker, when
    there is none, when the draft changed since, when it was lost, or when asked `again`."""
    from kombu.exceptions import OperationalError

    digest = ruleset_digest(ruleset)
    queued: dict[str, Any] = {"digest": digest, "state": ImpactPreview.QUEUED, "error": ""}
    queued |= {"impact": None, "queued_at": timezone.now(), "finished_at": None}
    preview, created = ImpactPreview.objects.get_or_create(ruleset=ruleset, defaults=queued)
    lost = preview.state == ImpactPreview.QUEUED and (
        timezone.now() - preview.queued_at > IMPACT_LOST_AFTER
    )
    renew = again or lost or preview.digest != digest or preview.state == ImpactPreview.FAILED
    # One of two admins asking at once queues it: the other finds the row changed.
    unchanged = ImpactPreview.objects.filter(
        pk=preview.pk, digest=preview.digest, queued_at=preview.queued_at
    )
    if not created and renew and not unchanged.update(**queued):
        preview.refresh_from_db()
        return preview
    if created or renew:
        try:
            enqueue(ruleset.pk, digest)
        except OperationalError as error:
            log.error("impact preview of v%s not queued: %s", ruleset.version, error)
            ImpactPreview.objects.filter(pk=preview.pk).update(
                state=ImpactPreview.FAILED, error="the job queue cannot be reached"
            )
        preview.refresh_from_db()
    return preview


def impact_preview_compute(ruleset_pk: int, digest: str) -> None:
    """The worker's half: compute the preview asked for, unless the draft moved on since."""
    ruleset = RuleSet.objects.filter(pk=ruleset_pk).first()
    if ruleset is None or ruleset_digest(ruleset) != digest:
        return  # deleted or edited: the preview of the edit was queued with its own digest
    wanted = ImpactPreview.objects.filter(ruleset_id=ruleset_pk, digest=digest)
    try:
        impact = ruleset_impact(ruleset)
    except Exception as error:
        log.exception("impact preview of v%s failed", ruleset.version)
        wanted.update(state=ImpactPreview.FAILED, error=repr(error), finished_at=timezone.now())
        return
    wanted.update(state=ImpactPreview.DONE, impact=asdict(impact), finished_at=timezone.now())


def impact_from_dict(data: dict[str, Any]) -> Impact:
    transitions = tuple(
        Transition(**{**t, "example_ids": tuple(t["example_ids"])}) for t in data["transitions"]
    )
    return Impact(**{**data, "transitions": transitions})


# --- the job queue -------------------------------------------------------------------


def cache_answers() -> bool:
    """True when the default cache answers: Redis pings back, or the cache is in memory."""
    from django.core.cache import caches

    client = getattr(caches["default"], "client", None)  # django-redis's; none in memory
    if client is None:
        return True
    try:
        client.get_client(write=False).ping()
    except Exception as error:  # redis-py's errors, whatever the transport
        log.warning("health check: cache unavailable: %s", type(error).__name__)
        return False
    return True


def queue_answers() -> bool:
    """True when jobs can be queued: the broker answers (or jobs run inline, without one)."""
    from config.celery import app

    if app.conf.task_always_eager:
        return True
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, interval_start=0, timeout=2)
    except Exception as error:  # kombu wraps every transport's errors differently
        log.warning("health check: job queue unavailable: %s", type(error).__name__)
        return False
    return True
