"""The weighted rule engine: answers + rule book -> explained recommendation.

Score of outcome o = sum(weight * score(o)) / sum(weight), with scores in
SCORE_MIN..SCORE_MAX, shown on a 0-100 scale (50 = neutral). A contribution's
`points` are on that same scale, so an outcome's points add up to its score
minus 50.

The arithmetic lives in three small functions, `points`, `outcome_scores` and
`outcomes_ranked`, and constraints apply through `exclusions` alone:
`answers_score` here, the weight sensitivity and the batch re-scoring of the
impact preview all go through them, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from decider.engine.outcomes import API, GPU_OUTCOMES, OUTCOMES
from decider.engine.text import Text

SCORE_MIN, SCORE_MAX = -2, 2
SCORE_SPAN = SCORE_MAX - SCORE_MIN
NEUTRAL = 50.0
DECIMALS = 1  # scores are shown, compared and ranked at this precision


@dataclass(frozen=True)
class Band:
    """One answer option (value) or numeric band [lower, upper) of a rule."""

    scores: Mapping[str, int]
    reason: Text
    label: Text
    value: str | None = None
    lower: float | None = None
    upper: float | None = None

    def matches(self, answer: Any) -> bool:
        if self.value is not None:
            return answer_token(answer) == self.value
        if isinstance(answer, bool) or not isinstance(answer, int | float):
            return False
        return (self.lower is None or answer >= self.lower) and (
            self.upper is None or answer < self.upper
        )

    def score_row(self) -> tuple[int, ...]:
        """The band's score for each outcome, in OUTCOMES order."""
        return tuple(self.scores.get(outcome, 0) for outcome in OUTCOMES)


@dataclass(frozen=True)
class Rule:
    key: str
    question: str
    label: Text
    weight: float
    bands: tuple[Band, ...]
    # An answer that may carry a dearer option against a decisive cost gap (engine/verdict.py).
    overrides_cost: bool = False

    def band_for(self, answer: Any) -> Band | None:
        return next((band for band in self.bands if band.matches(answer)), None)


@dataclass(frozen=True)
class HardConstraint:
    """A hard rule: when the answer to `question` is `value`, `outcome` is excluded (or warned)."""

    key: str
    question: str
    value: str
    outcome: str
    reason: Text
    excludes: bool = True  # False: the outcome stays, with a warning

    def applies_to(self, answer: Any) -> bool:
        return answer_token(answer) == self.value


# The shipped bands of a decisive cost lead; each rule set sets its own (admin, file).
DECISIVE_GAP_PCT = 25.0
DECISIVE_PROBABILITY_PCT = 90.0


@dataclass(frozen=True)
class RuleBook:
    version: int
    rules: tuple[Rule, ...]
    constraints: tuple[HardConstraint, ...] = ()
    # When a cost lead is decisive (engine/verdict.py): the cheapest allowed option ahead of
    # the runner-up by this share of its present value, in this share of the odds' draws.
    decisive_gap_pct: float = DECISIVE_GAP_PCT
    decisive_probability_pct: float = DECISIVE_PROBABILITY_PCT


@dataclass(frozen=True)
class Contribution:
    criterion: str
    label: Text
    outcome: str
    points: float
    reason: Text
    answer: Text


@dataclass(frozen=True)
class Result:
    recommendation: str | None
    scores: dict[str, float]
    excluded: dict[str, Text]
    warnings: dict[str, list[Text]]
    margin: float | None
    contributions: tuple[Contribution, ...]
    ruleset_version: int

    def drivers(self, outcome: str, *, limit: int = 3) -> dict[str, list[Contribution]]:
        """The answers that pushed `outcome` hardest up and down."""
        mine = [c for c in self.contributions if c.outcome == outcome]
        return {
            "for": [c for c in mine if c.points > 0][:limit],
            "against": sorted((c for c in mine if c.points < 0), key=lambda c: c.points)[:limit],
        }


def answer_token(answer: Any) -> str:
    """How an answer is written in rule options: booleans as 'true'/'false'."""
    if isinstance(answer, bool):
        return "true" if answer else "false"
    return str(answer)


# --- the kernel ---------------------------------------------------------------


def points(weight: float, score: Any, total_weight: Any) -> Any:
    """What one criterion adds to one outcome's 0-100 score.

    Floats here; numpy arrays of scores and weight totals in the batch path, so both run
    the same operations in the same order.
    """
    return weight * score / total_weight * 100 / SCORE_SPAN


def outcome_scores(weights: Sequence[float], rows: Sequence[Sequence[int]]) -> list[float]:
    """Unrounded 0-100 scores in OUTCOMES order, for the criteria hit: weights and score rows."""
    total = sum(weights)
    values = [NEUTRAL] * len(OUTCOMES)
    if total > 0:
        for weight, row in zip(weights, rows, strict=True):
            for o, score in enumerate(row):
                if score:
                    values[o] += points(weight, score, total)
    return values


def outcomes_ranked(rounded: Sequence[float], allowed: Sequence[int]) -> list[int]:
    """Allowed outcomes (indices), best first: higher rounded score, then the order of
    `allowed` (`tie_order`: the cheaper first when the cost model ranked them)."""
    return sorted(allowed, key=lambda o: -rounded[o])  # sorted() is stable


# A derived answer: the outcomes the cost model compared, cheapest first. Two outcomes
# equal on points go in this order; without it, in OUTCOMES order.
COST_ORDER = "cost_order"


def tie_order(answers: Mapping[str, Any]) -> list[int]:
    """Every outcome (index) in the order that breaks a tie on points."""
    order = [o for o in answers.get(COST_ORDER) or () if o in OUTCOMES]
    return sorted(
        range(len(OUTCOMES)),
        key=lambda o: order.index(OUTCOMES[o]) if OUTCOMES[o] in order else len(order),
    )


# A derived answer: outcomes the cost model shows to be no real choice, with the reason
# in both languages ({outcome: {"en": ..., "zh": ...}}), e.g. a hybrid that owns every GPU.
COST_EXCLUDES = "cost_excludes"


# A derived answer: True when the answers size one service from what it serves, so that a
# hosted model paid per token (outcomes.API) is weighed beside the GPUs. Without it that
# outcome is out of play: excluded, and left out of the result altogether.
PER_TOKEN = "per_token"
OUT_OF_PLAY = Text("Not a service sized from what it serves.", "不是按服务量估算的推理服务。")


def in_play(answers: Mapping[str, Any]) -> tuple[str, ...]:
    """The outcomes these answers weigh: the per-token one only for a sized service."""
    return OUTCOMES if answers.get(PER_TOKEN) else GPU_OUTCOMES


def exclusions(
    answers: Mapping[str, Any], constraints: Sequence[HardConstraint]
) -> tuple[dict[str, Text], dict[str, list[Text]]]:
    """(outcomes removed with the first reason, warnings per outcome) for these answers; an
    outcome out of play is removed too (answers_score then leaves it out of the result)."""
    excluded: dict[str, Text] = {}
    warnings: dict[str, list[Text]] = {}
    if not answers.get(PER_TOKEN):
        excluded[API] = OUT_OF_PLAY
    for outcome, reason in (answers.get(COST_EXCLUDES) or {}).items():
        excluded[outcome] = Text.from_dict(reason)
    for constraint in constraints:
        if not constraint.applies_to(answers.get(constraint.question)):
            continue
        if constraint.excludes:
            excluded.setdefault(constraint.outcome, constraint.reason)
        else:
            warnings.setdefault(constraint.outcome, []).append(constraint.reason)
    return excluded, warnings


def allowed_outcomes(answers: Mapping[str, Any], rulebook: RuleBook) -> tuple[int, ...]:
    """The outcomes (indices) not excluded, in tie order."""
    excluded, _warnings = exclusions(answers, rulebook.constraints)
    return tuple(o for o in tie_order(answers) if OUTCOMES[o] not in excluded)


def rules_hit(answers: Mapping[str, Any], rulebook: RuleBook) -> list[tuple[Rule, Band]]:
    """Each rule whose question is answered, with the band the answer falls in."""
    hits = []
    for rule in rulebook.rules:
        if rule.question in answers and (band := rule.band_for(answers[rule.question])):
            hits.append((rule, band))
    return hits


# --- the result -----------------------------------------------------------------


def answers_score(*, answers: Mapping[str, Any], rulebook: RuleBook) -> Result:
    hits = rules_hit(answers, rulebook)
    weights = [rule.weight for rule, _band in hits]
    values = outcome_scores(weights, [band.score_row() for _rule, band in hits])
    scores = {outcome: round(values[o], DECIMALS) for o, outcome in enumerate(OUTCOMES)}

    total = sum(weights)
    contributions = [
        Contribution(rule.key, rule.label, outcome, value, band.reason, band.label)
        for rule, band in (hits if total > 0 else [])
        for outcome, score in zip(OUTCOMES, band.score_row(), strict=True)
        if (value := points(rule.weight, score, total))
    ]
    contributions.sort(key=lambda c: (-abs(c.points), OUTCOMES.index(c.outcome), c.criterion))

    excluded, warnings = exclusions(answers, rulebook.constraints)
    allowed = [o for o in tie_order(answers) if OUTCOMES[o] not in excluded]
    ranked = outcomes_ranked(list(scores.values()), allowed)
    play = in_play(answers)
    return Result(
        recommendation=OUTCOMES[ranked[0]] if ranked else None,
        scores={o: value for o, value in scores.items() if o in play},
        excluded={o: reason for o, reason in excluded.items() if o in play},
        warnings={o: found for o, found in warnings.items() if o in play},
        margin=(
            round(scores[OUTCOMES[ranked[0]]] - scores[OUTCOMES[ranked[1]]], DECIMALS)
            if len(ranked) > 1
            else None
        ),
        contributions=tuple(c for c in contributions if c.outcome in play),
        ruleset_version=rulebook.version,
    )


def result_as_dict(result: Result) -> dict[str, Any]:
    """The result as JSON-ready data, both languages kept (saved with an assessment)."""
    return {
        "recommendation": result.recommendation,
        "scores": result.scores,
        "excluded": {o: t.as_dict() for o, t in result.excluded.items()},
        "warnings": {o: [t.as_dict() for t in ts] for o, ts in result.warnings.items()},
        "margin": result.margin,
        "contributions": [
            {
                "criterion": c.criterion,
                "label": c.label.as_dict(),
                "outcome": c.outcome,
                "points": round(c.points, 2),
                "reason": c.reason.as_dict(),
                "answer": c.answer.as_dict(),
            }
            for c in result.contributions
        ],
        "ruleset_version": result.ruleset_version,
    }


def result_from_dict(data: Mapping[str, Any]) -> Result:
    text = Text.from_dict
    return Result(
        recommendation=data["recommendation"],
        scores=dict(data["scores"]),
        excluded={o: text(t) for o, t in data["excluded"].items()},
        warnings={o: [text(t) for t in ts] for o, ts in data.get("warnings", {}).items()},
        margin=data["margin"],
        contributions=tuple(
            Contribution(
                c["criterion"],
                text(c["label"]),
                c["outcome"],
                c["points"],
                text(c["reason"]),
                text(c["answer"]),
            )
            for c in data["contributions"]
        ),
        ruleset_version=data["ruleset_version"],
    )


def result_localized(result: Result, language: str) -> dict[str, Any]:
    """The shape of `decide --format json`: reasons in one language."""
    return {
        "recommendation": result.recommendation,
        "scores": result.scores,
        "excluded": {o: t.get(language) for o, t in result.excluded.items()},
        "warnings": {o: [t.get(language) for t in ts] for o, ts in result.warnings.items()},
        "margin": result.margin,
        "contributions": [
            {
                "criterion": c.criterion,
                "outcome": c.outcome,
                "points": round(c.points, 2),
                "reason": c.reason.get(language),
            }
            for c in result.contributions
        ],
        "ruleset_version": result.ruleset_version,
    }
