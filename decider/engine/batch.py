"""Batch re-scoring for the impact preview: what a draft rule book would do to many answer sets.

It re-scores many answer sets at once with numpy and gives the same
recommendation as `scoring.answers_score` row by row: the same kernel
(`scoring.points`) on arrays, so the same float operations in the same order,
Python's own `round` for the rounded scores, `HardConstraint.applies_to` for
exclusions, and the same tie-break (higher score, then `scoring.tie_order`).
`decider.services.ruleset_impact` feeds it the saved assessments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from decider.engine import scoring, verdict
from decider.engine.outcomes import API, OUTCOMES

EXAMPLES = 5
_MISSING = object()
_NO_BAND = -1


@dataclass(frozen=True)
class Transition:
    from_outcome: str | None
    to_outcome: str | None
    count: int
    example_ids: tuple[int, ...]


@dataclass(frozen=True)
class Impact:
    """Recommendations that a rule book would change, against the saved results.

    `total` counts the compared assessments (changed + unchanged); `skipped`
    were never scored, so there is nothing to compare. `stale` were scored
    before results kept their derived answers: they are compared without a
    cost verdict, so part of their change may come from that and not the draft.
    """

    total: int
    changed: int
    unchanged: int
    transitions: tuple[Transition, ...]
    skipped: int = 0
    stale: int = 0


def _band_index(rule: scoring.Rule, answer: Any) -> int:
    if answer is _MISSING:
        return _NO_BAND
    return next((i for i, band in enumerate(rule.bands) if band.matches(answer)), _NO_BAND)


def _memoized(fn: Callable[[Any], Any], column: Sequence[Any], dtype: Any) -> np.ndarray:
    """fn(answer) for every answer, computed once per distinct answer.

    Keyed on the type as well: True, 1 and 1.0 are equal in a dict but not to a rule.
    """
    memo: dict[tuple[type, Any], Any] = {}

    def cached(answer: Any) -> Any:
        key = (answer.__class__, answer)
        try:
            return memo[key]
        except KeyError:
            memo[key] = found = fn(answer)
            return found
        except TypeError:  # an unhashable answer (a list): rare, not worth caching
            return fn(answer)

    return np.fromiter(map(cached, column), dtype=dtype, count=len(column))


def _round(values: np.ndarray) -> np.ndarray:
    """Python's round(v, DECIMALS) (correctly rounded), not numpy's approximation."""
    distinct, inverse = np.unique(values, return_inverse=True)
    rounded = np.array([round(v, scoring.DECIMALS) for v in distinct.tolist()], dtype=np.float64)
    return rounded[inverse].reshape(values.shape)


def recommendations_batch(
    *, answers_rows: Sequence[Mapping[str, Any]], rulebook: scoring.RuleBook
) -> list[str | None]:
    """`answers_score(...).recommendation` for every row, computed column by column."""
    n = len(answers_rows)
    if n == 0:
        return []
    columns: dict[str, list[Any]] = {}

    def column(question: str) -> list[Any]:
        if question not in columns:
            columns[question] = [row.get(question, _MISSING) for row in answers_rows]
        return columns[question]

    # Per rule: which band each row falls in, and that band's scores (a zero row for none).
    picked: list[tuple[float, np.ndarray]] = []
    total = np.zeros(n)
    for rule in rulebook.rules:
        bands = _memoized(partial(_band_index, rule), column(rule.question), np.intp)
        table = np.zeros((len(rule.bands) + 1, len(OUTCOMES)), dtype=np.float64)
        for i, band in enumerate(rule.bands):
            table[i] = band.score_row()
        hit = bands != _NO_BAND
        # Same order as sum(rule.weight for hits): adding 0.0 for a miss changes nothing.
        total += np.where(hit, float(rule.weight), 0.0)
        picked.append((rule.weight, table[bands]))  # index -1 is the zero row

    scores = np.full((n, len(OUTCOMES)), scoring.NEUTRAL)
    scored = total > 0
    divisor = np.where(scored, total, 1.0)[:, None]
    for weight, band_scores in picked:
        scores += scoring.points(weight, band_scores, divisor)
    scores = np.where(scored[:, None], scores, scoring.NEUTRAL)
    scores = _round(scores)

    excluded = _excluded(answers_rows, rulebook)
    # Higher rounded score first, then `scoring.tie_order` (lexsort: the last key leads).
    ties = np.array([_tie_ranks(row) for row in answers_rows], dtype=np.intp).reshape(n, -1)
    best = np.lexsort((ties, -np.where(excluded, -np.inf, scores)), axis=1)[:, 0]
    nothing_left = np.asarray(excluded.all(axis=1))
    return [
        None if none else OUTCOMES[index]
        for index, none in zip(best.tolist(), nothing_left.tolist(), strict=True)
    ]


def _excluded(answers_rows: Sequence[Mapping[str, Any]], rulebook: scoring.RuleBook) -> np.ndarray:
    """Per row and outcome, whether `scoring.exclusions` removes it (rows × OUTCOMES)."""
    n = len(answers_rows)
    excluded = np.zeros((n, len(OUTCOMES)), dtype=bool)
    for constraint in rulebook.constraints:
        if not constraint.excludes or constraint.outcome not in OUTCOMES:
            continue
        values = [row.get(constraint.question) for row in answers_rows]
        hits = _memoized(constraint.applies_to, values, bool)
        excluded[:, OUTCOMES.index(constraint.outcome)] |= hits
    # The per-token outcome, out of play without a sized service (`scoring.exclusions`).
    api = OUTCOMES.index(API)
    excluded[:, api] |= np.fromiter(
        (not row.get(scoring.PER_TOKEN) for row in answers_rows), bool, count=n
    )
    # Outcomes the cost model ruled out (`scoring.exclusions` reads the same answer).
    ruled_out = [row.get(scoring.COST_EXCLUDES) or {} for row in answers_rows]
    if any(ruled_out):
        for o, outcome in enumerate(OUTCOMES):
            excluded[:, o] |= np.fromiter((outcome in r for r in ruled_out), bool, count=n)

    return excluded


def _tie_ranks(answers: Mapping[str, Any]) -> list[int]:
    """Each outcome's place in the tie order of these answers."""
    ranks = [0] * len(OUTCOMES)
    for place, o in enumerate(scoring.tie_order(answers)):
        ranks[o] = place
    return ranks


def _outcome_order(outcome: str | None) -> int:
    return OUTCOMES.index(outcome) if outcome in OUTCOMES else len(OUTCOMES)


def _decisive_under(answers: Mapping[str, Any], rulebook: scoring.RuleBook) -> Mapping[str, Any]:
    if verdict.LEAD not in answers:
        return answers
    kept = {k: v for k, v in answers.items() if k not in (verdict.DECISIVE, verdict.OVERRIDDEN_BY)}
    return {**kept, **verdict.decisive_answers(kept, rulebook)}


def impact_compute(
    *, rows: Iterable[tuple[int, Mapping[str, Any], str | None]], rulebook: scoring.RuleBook
) -> Impact:
    """rows: (assessment id, answers with the derived answers merged in, saved recommendation).

    A result that kept its cost lead (verdict.LEAD) is previewed with the decisive gap the
    rule book's bands and overriding rules give it; one scored before keeps its own."""
    rows = [
        (assessment_id, _decisive_under(answers, rulebook), old)
        for assessment_id, answers, old in rows
    ]
    new = recommendations_batch(answers_rows=[answers for _, answers, _ in rows], rulebook=rulebook)
    counts: dict[tuple[str | None, str | None], int] = {}
    examples: dict[tuple[str | None, str | None], list[int]] = {}
    for (assessment_id, _answers, old), now in zip(rows, new, strict=True):
        if old == now:
            continue
        pair = (old, now)
        counts[pair] = counts.get(pair, 0) + 1
        found = examples.setdefault(pair, [])
        if len(found) < EXAMPLES:
            found.append(assessment_id)
    transitions = tuple(
        Transition(old, now, count, tuple(examples[(old, now)]))
        for (old, now), count in sorted(
            counts.items(),
            key=lambda item: (-item[1], _outcome_order(item[0][0]), _outcome_order(item[0][1])),
        )
    )
    changed = sum(counts.values())
    return Impact(
        total=len(rows), changed=changed, unchanged=len(rows) - changed, transitions=transitions
    )
