"""The weighted rule engine: answers + rule book -> explained recommendation.

Plain Python: no request, form or ORM. `RuleSet.rulebook()` turns the database
rows into these dataclasses; the engine never sees a model.

Score of outcome o = sum(weight * score(o)) / sum(weight), with scores in
SCORE_MIN..SCORE_MAX, shown on a 0-100 scale (50 = neutral). A contribution's
`points` are on that same scale, so an outcome's points add up to its score
minus 50.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

OUTCOMES = ("onprem", "cloud", "hybrid")
SCORE_MIN, SCORE_MAX = -2, 2
_SPAN = SCORE_MAX - SCORE_MIN
NEUTRAL = 50.0


@dataclass(frozen=True)
class Text:
    """A string in both interface languages."""

    en: str
    zh: str

    def get(self, language: str) -> str:
        return self.zh if language.startswith("zh") else self.en

    def as_dict(self) -> dict[str, str]:
        return {"en": self.en, "zh": self.zh}


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


@dataclass(frozen=True)
class Rule:
    key: str
    question: str
    label: Text
    weight: float
    bands: tuple[Band, ...]

    def band_for(self, answer: Any) -> Band | None:
        return next((band for band in self.bands if band.matches(answer)), None)


@dataclass(frozen=True)
class Constraint:
    """A hard rule: when question == value, `removes` is excluded (or warned)."""

    key: str
    question: str
    value: str
    outcome: str
    reason: Text
    excludes: bool = True  # False: the outcome stays, with a warning


@dataclass(frozen=True)
class RuleBook:
    version: int
    rules: tuple[Rule, ...]
    constraints: tuple[Constraint, ...] = ()


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
    unanswered: tuple[str, ...] = field(default=())

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


def answers_score(*, answers: Mapping[str, Any], rulebook: RuleBook) -> Result:
    hits: list[tuple[Rule, Band]] = []
    unanswered: list[str] = []
    for rule in rulebook.rules:
        if rule.question not in answers:
            unanswered.append(rule.key)
            continue
        band = rule.band_for(answers[rule.question])
        if band is None:
            unanswered.append(rule.key)
            continue
        hits.append((rule, band))

    total_weight = sum(rule.weight for rule, _band in hits)
    contributions: list[Contribution] = []
    scores = {outcome: NEUTRAL for outcome in OUTCOMES}
    if total_weight > 0:
        for rule, band in hits:
            for outcome in OUTCOMES:
                points = rule.weight * band.scores.get(outcome, 0) / total_weight * 100 / _SPAN
                if points:
                    scores[outcome] += points
                    contributions.append(
                        Contribution(rule.key, rule.label, outcome, points, band.reason, band.label)
                    )
    contributions.sort(key=lambda c: (-abs(c.points), OUTCOMES.index(c.outcome), c.criterion))
    scores = {outcome: round(score, 1) for outcome, score in scores.items()}

    excluded: dict[str, Text] = {}
    warnings: dict[str, list[Text]] = {}
    for constraint in rulebook.constraints:
        if answer_token(answers.get(constraint.question)) != constraint.value:
            continue
        if constraint.excludes:
            excluded.setdefault(constraint.outcome, constraint.reason)
        else:
            warnings.setdefault(constraint.outcome, []).append(constraint.reason)

    allowed = sorted(
        (o for o in OUTCOMES if o not in excluded),
        key=lambda o: (-scores[o], OUTCOMES.index(o)),
    )
    recommendation = allowed[0] if allowed else None
    margin = round(scores[allowed[0]] - scores[allowed[1]], 1) if len(allowed) > 1 else None
    return Result(
        recommendation=recommendation,
        scores=scores,
        excluded=excluded,
        warnings=warnings,
        margin=margin,
        contributions=tuple(contributions),
        ruleset_version=rulebook.version,
        unanswered=tuple(unanswered),
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
    def text(d: Mapping[str, str]) -> Text:
        return Text(en=d["en"], zh=d["zh"])

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
