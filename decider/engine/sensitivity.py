"""Weight sensitivity: how far one criterion's weight must move to change the recommendation.

Plain data in and out, cheap enough for every page view. With every other
weight fixed, an outcome's score is a ratio of linear functions of the one
weight x:

    S_o(x) = 50 + 25 * (A_o + x * s_o) / (W + x)

(A_o, W: the other criteria's weighted scores and weights; s_o: this
criterion's score). S_o is monotone in x, so the rounded score (one decimal,
as `scoring.answers_score` compares them) only steps where S_o meets a
rounding boundary k + 0.05, and each of those points has a closed form. The
recommendation can only change at such a point, and only while a challenger
is within one rounding step of the winner, so few points need checking. The
point found is then checked with the engine's own arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from decider.engine import scoring
from decider.engine.outcomes import OUTCOMES
from decider.engine.text import Text

_N = len(OUTCOMES)
_SCALE = 100 / scoring.SCORE_SPAN  # a score of 1 is worth this many points on 0-100
_STEP = 0.1  # rounded scores are compared to one decimal (scoring.DECIMALS)
_SLACK = 1e-9
_NUDGE = 1e-9  # relative: "just past" and "just before" a change point
_BISECTIONS = 60


@dataclass(frozen=True)
class Sensitivity:
    """down_factor/up_factor: the weight multiplier at which the recommendation
    changes to down_to/up_to, or None when it stays within the factors asked for."""

    criterion: str
    label: Text
    weight: float
    down_factor: float | None
    down_to: str | None
    up_factor: float | None
    up_to: str | None


def _recommend(
    weights: Sequence[float], rows: Sequence[tuple[int, ...]], allowed: Sequence[int]
) -> int | None:
    """answers_score's recommendation, by the engine's own kernel."""
    return _best(scoring.outcome_scores(weights, rows).__getitem__, allowed)


def _name(outcome: int | None) -> str | None:
    return None if outcome is None else OUTCOMES[outcome]


def _best(score: Callable[[int], float], allowed: Sequence[int]) -> int | None:
    """The allowed outcome answers_score picks, for unrounded scores `score(o)`."""
    rounded = [round(score(o), scoring.DECIMALS) for o in range(_N)]
    ranked = scoring.outcomes_ranked(rounded, allowed)
    return ranked[0] if ranked else None


class _Criterion:
    """One criterion's weight as the variable x, the others fixed."""

    def __init__(self, others: float, base: list[float], own: tuple[int, ...]):
        self.others, self.base, self.own = others, base, own

    def score(self, o: int, x: float) -> float:
        return scoring.NEUTRAL + _SCALE * (self.base[o] + x * self.own[o]) / (self.others + x)

    def gap(self, b: int, a: int, x: float) -> float:
        return self.score(b, x) - self.score(a, x)

    def gap_at(self, b: int, a: int, gap: float) -> float:
        """The x where S_b - S_a == gap (the difference is monotone in x too)."""
        d_base = self.base[b] - self.base[a]
        d_own = self.own[b] - self.own[a]
        return (gap * self.others - _SCALE * d_base) / (_SCALE * d_own - gap)

    def score_at(self, o: int, value: float) -> float | None:
        """The x where S_o == value."""
        denominator = _SCALE * self.own[o] - (value - scoring.NEUTRAL)
        if denominator == 0:
            return None
        return ((value - scoring.NEUTRAL) * self.others - _SCALE * self.base[o]) / denominator

    def recommend(self, x: float, allowed: Sequence[int]) -> int | None:
        return _best(lambda o: self.score(o, x), allowed)


def _window(
    model: _Criterion, winner: int, allowed: Sequence[int], start: float, end: float
) -> tuple[float, float] | None:
    """The stretch of [start, end] where some challenger is within a rounding step or ahead."""
    ahead = 1 if end > start else -1
    enter, leave = None, end
    for b in allowed:
        if b == winner:
            continue
        near, far = model.gap(b, winner, start), model.gap(b, winner, end)
        if max(near, far) < -_STEP - _SLACK:
            continue  # monotone: never within reach
        x_in = start if near >= -_STEP - _SLACK else model.gap_at(b, winner, -_STEP - _SLACK)
        x_sure = model.gap_at(b, winner, _STEP + _SLACK) if far > _STEP + _SLACK else end
        if near > _STEP + _SLACK:
            x_sure = start
        if enter is None or ahead * (x_in - enter) < 0:
            enter = x_in
        if ahead * (x_sure - leave) < 0:
            leave = x_sure
    if enter is None:
        return None
    clamp = (min(start, end), max(start, end))
    return (min(max(enter, clamp[0]), clamp[1]), min(max(leave, clamp[0]), clamp[1]))


def _steps(model: _Criterion, allowed: Sequence[int], first: float, last: float) -> list[float]:
    """Every x between first and last where some outcome's rounded score steps."""
    found = []
    for o in allowed:
        low, high = sorted((model.score(o, first), model.score(o, last)))
        for k in range(math.ceil(low * 10 - 0.5), math.floor(high * 10 - 0.5) + 1):
            boundary = (k + 0.5) / 10
            if low < boundary < high and (x := model.score_at(o, boundary)) is not None:
                found.append(x)
    return found


def _first_change(
    model: _Criterion,
    exact: Callable[[float], int | None],
    winner: int,
    allowed: Sequence[int],
    start: float,
    end: float,
) -> tuple[float, int | None] | None:
    """The x nearest to start, towards end, past which the recommendation is not `winner`."""
    window = _window(model, winner, allowed, start, end)
    if window is None:
        return None
    ahead = 1 if end > start else -1
    first, last = window
    points = sorted({first, last, *_steps(model, allowed, first, last)}, key=lambda x: ahead * x)
    points = [x for x in points if ahead * (x - first) >= 0 and ahead * (last - x) >= 0]
    still = start  # a point known to keep the winner
    for p, q in zip(points, points[1:], strict=False):
        middle = (p + q) / 2
        if model.recommend(middle, allowed) == winner:
            still = middle
            continue
        nudge = _NUDGE * abs(p or start)
        past, before = exact(p + ahead * nudge), exact(p - ahead * nudge) if p != start else winner
        if past != winner and before == winner:
            return p, past  # what shows just past p, even if a sliver before it differs
        # Too close to call in floats: find the change with the engine's own arithmetic.
        if exact(middle) == winner:
            still = middle
            continue
        if exact(still) != winner:
            still = start
        changed = middle
        for _ in range(_BISECTIONS):
            half = (still + changed) / 2
            if half in (still, changed):
                break
            if exact(half) == winner:
                still = half
            else:
                changed = half
        return changed, exact(changed)
    return None


def weight_sensitivity(
    *,
    answers: Mapping[str, Any],
    rulebook: scoring.RuleBook,
    factors: tuple[float, float] = (0, 3),
) -> list[Sensitivity]:
    """For each criterion the answers hit, the weight factor that changes the recommendation.

    `answers` as they were scored, derived answers (the cost verdict) included.
    A criterion with weight 0 reports None both ways: no factor moves it.
    """
    low, high = factors
    hits = [(rule, band.score_row()) for rule, band in scoring.rules_hit(answers, rulebook)]
    weights = [rule.weight for rule, _ in hits]
    scores = [own for _, own in hits]
    allowed = scoring.allowed_outcomes(answers, rulebook)
    winner = _recommend(weights, scores, allowed)
    sums = [sum(w * own[o] for w, own in zip(weights, scores, strict=True)) for o in range(_N)]

    found = []
    for i, (rule, own) in enumerate(hits):
        w = rule.weight
        changes: list[tuple[float, int | None] | None] = [None, None]
        if w > 0 and winner is not None and len(allowed) > 1:

            def exact(x: float, i: int = i) -> int | None:
                return _recommend([*weights[:i], x, *weights[i + 1 :]], scores, allowed)

            others = sum(weights[:i]) + sum(weights[i + 1 :])
            if others == 0:
                # Alone it sets every score; at weight 0 nothing is scored (all neutral).
                if low == 0 and (at_zero := exact(0)) != winner:
                    changes[0] = (0, at_zero)
            else:
                model = _Criterion(others, [sums[o] - w * own[o] for o in range(_N)], own)
                for side, factor in enumerate((low, high)):
                    if factor * w != w:
                        changes[side] = _first_change(model, exact, winner, allowed, w, factor * w)
        (down, up) = (
            (None, None) if change is None else (change[0] / w, _name(change[1]))
            for change in changes
        )
        found.append(
            Sensitivity(
                criterion=rule.key,
                label=rule.label,
                weight=w,
                down_factor=down[0],
                down_to=down[1],
                up_factor=up[0],
                up_to=up[1],
            )
        )
    return found
