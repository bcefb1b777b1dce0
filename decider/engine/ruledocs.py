"""Rule-set documents (`decider-ruleset/1`): their mapping to rows and to the engine, and their checks.

A rule set travels as a JSON document (export, import, the shipped fixture).
This module is the one mapping between that document and the flat rows the
database and the admin forms hold (`*_document`, `*_row`), the one way from a
document to the engine's `RuleBook`, and the checks a rule set must pass
before it is imported or published: the admin forms run the same checks on
what an admin typed, so a message means the same thing everywhere.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from decider.engine.i18n import gettext as _
from decider.engine.outcomes import API, OUTCOMES
from decider.engine.questionnaire import RULE_QUESTIONS, Question
from decider.engine.scoring import (
    DECISIVE_GAP_PCT,
    DECISIVE_PROBABILITY_PCT,
    SCORE_MAX,
    SCORE_MIN,
    Band,
    HardConstraint,
    Rule,
    RuleBook,
)
from decider.engine.text import Text, number_text

FORMAT = "decider-ruleset/1"
SCORE_FIELDS = {outcome: f"score_{outcome}" for outcome in OUTCOMES}
# Scores a document may leave out, read as 0: the per-token outcome came after the format.
OPTIONAL_SCORES = (API,)
# The texts of each kind of row, kept in both languages as <stem>_en and <stem>_zh.
_TEXTS = {"criterion": ("label",), "option": ("label", "reason"), "constraint": ("reason",)}

Row = Mapping[str, Any]


# --- rows <-> documents ------------------------------------------------------------


def _texts_document(row: Row, kind: str) -> dict[str, dict[str, Any]]:
    return {
        stem: {"en": row.get(f"{stem}_en"), "zh": row.get(f"{stem}_zh")} for stem in _TEXTS[kind]
    }


def _texts_row(document: Row, kind: str) -> dict[str, Any]:
    return {
        f"{stem}_{language}": document[stem][language]
        for stem in _TEXTS[kind]
        for language in ("en", "zh")
    }


def option_document(row: Row) -> dict[str, Any]:
    """An answer option as a document: a value, or a band [lower, upper)."""
    data: dict[str, Any] = {"value": row["value"]} if row.get("value") else {}
    if not data or row.get("lower") is not None or row.get("upper") is not None:
        data |= {"lower": row.get("lower"), "upper": row.get("upper")}
    data["label"] = _texts_document(row, "option")["label"]
    data["scores"] = {outcome: row.get(field) for outcome, field in SCORE_FIELDS.items()}
    data["reason"] = _texts_document(row, "option")["reason"]
    return data


def option_row(document: Row) -> dict[str, Any]:
    return {
        "value": document.get("value") or "",
        "lower": document.get("lower"),
        "upper": document.get("upper"),
        **{field: _score(document["scores"], outcome) for outcome, field in SCORE_FIELDS.items()},
        **_texts_row(document, "option"),
    }


def _score(scores: Mapping[str, Any], outcome: str) -> Any:
    return scores.get(outcome, 0) if outcome in OPTIONAL_SCORES else scores[outcome]


def criterion_document(row: Row, options: Iterable[Row]) -> dict[str, Any]:
    return {
        "key": row.get("key"),
        "question": row.get("question"),
        "weight": row.get("weight"),
        "overrides_cost": bool(row.get("overrides_cost", False)),
        **_texts_document(row, "criterion"),
        "options": [option_document(option) for option in options],
    }


def criterion_row(document: Row) -> dict[str, Any]:
    return {
        "key": document["key"],
        "question": document["question"],
        "weight": document["weight"],
        "overrides_cost": bool(document.get("overrides_cost", False)),
        **_texts_row(document, "criterion"),
    }


def constraint_document(row: Row) -> dict[str, Any]:
    return {
        "key": row.get("key"),
        "question": row.get("question"),
        "value": row.get("value"),
        "outcome": row.get("outcome"),
        "excludes": row.get("excludes", True),
        **_texts_document(row, "constraint"),
    }


def constraint_row(document: Row) -> dict[str, Any]:
    return {
        "key": document["key"],
        "question": document["question"],
        "value": document["value"],
        "outcome": document["outcome"],
        "excludes": document.get("excludes", True),
        **_texts_row(document, "constraint"),
    }


# --- documents -> the engine ---------------------------------------------------------


def rulebook_from_document(document: Row) -> RuleBook:
    """The engine's rule book for a (checked) rule set document."""
    rules = tuple(
        Rule(
            key=c["key"],
            question=c["question"],
            label=Text.from_dict(c["label"]),
            weight=c["weight"],
            overrides_cost=bool(c.get("overrides_cost", False)),
            bands=tuple(
                Band(
                    scores=o["scores"],
                    reason=Text.from_dict(o["reason"]),
                    label=Text.from_dict(o["label"]),
                    value=o.get("value") or None,
                    lower=o.get("lower"),
                    upper=o.get("upper"),
                )
                for o in c["options"]
            ),
        )
        for c in document["criteria"]
    )
    constraints = tuple(
        HardConstraint(
            key=c["key"],
            question=c["question"],
            value=c["value"],
            outcome=c["outcome"],
            reason=Text.from_dict(c["reason"]),
            excludes=c.get("excludes", True),
        )
        for c in document.get("constraints", [])
    )
    decisive = decisive_of(document)
    return RuleBook(
        version=document["version"],
        rules=rules,
        constraints=constraints,
        decisive_gap_pct=decisive["gap_pct"],
        decisive_probability_pct=decisive["probability_pct"],
    )


# When a cost lead is decisive: the document's "decisive" {gap_pct, probability_pct}, the
# shipped bands where it has none (documents exported before it existed).
DECISIVE_BOUNDS = {"gap_pct": (1.0, 100.0), "probability_pct": (50.0, 100.0)}


def decisive_of(document: Row) -> dict[str, float]:
    given = document.get("decisive") or {}
    return {
        "gap_pct": float(given.get("gap_pct", DECISIVE_GAP_PCT)),
        "probability_pct": float(given.get("probability_pct", DECISIVE_PROBABILITY_PCT)),
    }


def decisive_problems(given: Any) -> list[Problem]:
    """The bands of a decisive cost lead: a gap of 1–100 % of the runner-up's present value,
    in 50–100 % of the odds' draws."""
    if given is None:
        return []
    if not isinstance(given, Mapping) or not set(given) <= set(DECISIVE_BOUNDS):
        return [Problem(_("“decisive” must be an object with gap_pct and probability_pct."))]
    problems = []
    for key, (low, high) in DECISIVE_BOUNDS.items():
        if key not in given:
            continue  # the shipped band
        value = given[key]
        if not _is_number(value) or not low <= value <= high:
            message = _("Must be a number from %(low)s to %(high)s.") % {
                "low": number_text(low),
                "high": number_text(high),
            }
            # Named, as a document-wide problem has no criterion or option to say where.
            problems.append(Problem(f"“decisive.{key}”: {message}", field=f"decisive_{key}"))
    return problems


# --- the checks, on plain data --------------------------------------------------


class RuleSetProblems(ValueError):
    """The document (or draft) breaks one or more rules; `problems` lists them all."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class Problem:
    """One broken rule. `option` is an index into the criterion's options, `field` a model field."""

    message: str
    criterion: str | None = None
    option: int | None = None
    field: str | None = None
    constraint: str | None = None

    def __str__(self) -> str:
        where = []
        if self.criterion is not None:
            where.append(_("criterion “%(key)s”") % {"key": self.criterion})
        if self.constraint is not None:
            where.append(_("constraint “%(key)s”") % {"key": self.constraint})
        if self.option is not None:
            where.append(_("option %(number)d") % {"number": self.option + 1})
        return f"{', '.join(where)}: {self.message}" if where else self.message


# --- the checks, on plain data --------------------------------------------------


def _is_number(value: Any) -> bool:
    """A finite number a float column can hold (JSON integers have no size limit)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float, such as 10**400
        return False


def text_problems(data: Mapping[str, Any], key: str, **where: Any) -> list[Problem]:
    text = data.get(key)
    problems = []
    for language, name in (("en", _("English")), ("zh", _("Chinese"))):
        value = text.get(language) if isinstance(text, Mapping) else None
        if not isinstance(value, str) or not value.strip():
            problems.append(
                Problem(
                    _("The %(language)s text is empty; fill in both languages.")
                    % {"language": name},
                    field=f"{key}_{language}",
                    **where,
                )
            )
    return problems


def weight_problems(weight: Any, **where: Any) -> list[Problem]:
    if not _is_number(weight):
        return [Problem(_("The weight must be a number."), field="weight", **where)]
    if weight < 0:
        return [Problem(_("The weight cannot be negative."), field="weight", **where)]
    return []


def weights_problems(weights: Iterable[Any]) -> list[Problem]:
    """The rule-set-wide rule: at least one criterion must count."""
    numbers = [w for w in weights if _is_number(w)]
    if numbers and not any(w > 0 for w in numbers):
        return [
            Problem(
                _("Every weight in the rule set is zero; at least one must be above zero."),
                field="weight",
            )
        ]
    return []


def option_problems(data: Mapping[str, Any], **where: Any) -> list[Problem]:
    """Scores and texts of one answer option."""
    problems = text_problems(data, "label", **where) + text_problems(data, "reason", **where)
    scores = data.get("scores")
    scores = scores if isinstance(scores, Mapping) else {}
    for outcome, field in SCORE_FIELDS.items():
        score = scores.get(outcome, 0 if outcome in OPTIONAL_SCORES else None)
        if score is None:
            message = _("Give a score for this outcome.")
        elif not isinstance(score, int) or isinstance(score, bool):
            message = _("The score must be a whole number.")
        elif not SCORE_MIN <= score <= SCORE_MAX:
            message = _("The score must be from %(min)d to %(max)d.") % {
                "min": SCORE_MIN,
                "max": SCORE_MAX,
            }
        else:
            continue
        problems.append(Problem(message, field=field, **where))
    return problems


def bands_problems(
    question: str, options: Sequence[Mapping[str, Any]], **where: Any
) -> list[Problem]:
    """Options of one criterion against its question.

    Choice and yes/no questions: every answer value has exactly one option.
    Numeric questions: bands [lower, upper) cover the question's whole range
    (None is an open end) without gaps or overlaps.
    """
    if not options:
        return [Problem(_("The criterion has no answer options."), **where)]
    values = RULE_QUESTIONS[question].values()
    if values is not None:
        optional = RULE_QUESTIONS[question].optional_values
        return _choice_problems(values, options, optional=optional, **where)
    return _range_problems(RULE_QUESTIONS[question], options, **where)


def _choice_problems(
    values: tuple[str, ...],
    options: Sequence[Mapping[str, Any]],
    *,
    optional: tuple[str, ...] = (),
    **where: Any,
) -> list[Problem]:
    problems = []
    seen: set[str] = set()
    for index, option in enumerate(options):
        value = option.get("value") or ""
        if option.get("lower") is not None or option.get("upper") is not None:
            field = "lower" if option.get("lower") is not None else "upper"
            problems.append(
                Problem(
                    _("This question has fixed answers; leave the range empty."),
                    option=index,
                    field=field,
                    **where,
                )
            )
        if not value:
            problems.append(
                Problem(
                    _("Give the answer value (one of: %(values)s).")
                    % {"values": ", ".join(values)},
                    option=index,
                    field="value",
                    **where,
                )
            )
        elif value not in values:
            problems.append(
                Problem(
                    _("“%(value)s” is not an answer to this question (one of: %(values)s).")
                    % {"value": value, "values": ", ".join(values)},
                    option=index,
                    field="value",
                    **where,
                )
            )
        elif value in seen:
            problems.append(
                Problem(
                    _("The answer “%(value)s” already has an option.") % {"value": value},
                    option=index,
                    field="value",
                    **where,
                )
            )
        seen.add(value)
    missing = [v for v in values if v not in seen and v not in optional]
    if missing:
        problems.append(
            Problem(
                _("No option for the answer(s): %(values)s.") % {"values": ", ".join(missing)},
                **where,
            )
        )
    return problems


def _range_problems(
    question: Question, options: Sequence[Mapping[str, Any]], **where: Any
) -> list[Problem]:
    problems: list[Problem] = []
    bands = []
    for index, option in enumerate(options):
        found = _band_problems(option, index=index, **where)
        if found:
            problems += found
        else:
            bands.append((index, option.get("lower"), option.get("upper")))
    return problems or _coverage_problems(question, bands, **where)


def _band_problems(option: Mapping[str, Any], *, index: int, **where: Any) -> list[Problem]:
    """One numeric option on its own: a range, with numbers for bounds, in order."""
    where = {**where, "option": index}
    if option.get("value"):
        message = _("This question takes a number; give a range, not an answer value.")
        return [Problem(message, field="value", **where)]
    lower, upper = option.get("lower"), option.get("upper")
    bad = [
        f for f, v in (("lower", lower), ("upper", upper)) if v is not None and not _is_number(v)
    ]
    if bad:
        return [Problem(_("The bound must be a number."), field=f, **where) for f in bad]
    if lower is not None and upper is not None and lower >= upper:
        return [Problem(_("“To” must be greater than “from”."), field="upper", **where)]
    return []


def _coverage_problems(
    question: Question, bands: list[tuple[int, float | None, float | None]], **where: Any
) -> list[Problem]:
    """Bands [lower, upper) (option index, bounds) against the question's whole range."""
    problems = []
    bands = sorted(bands, key=lambda band: -math.inf if band[1] is None else band[1])
    first_index, first_lower, _upper = bands[0]
    if first_lower is not None and (question.min is None or first_lower > question.min):
        message = _("Answers below %(value)s are not covered by any option.") % {
            "value": number_text(first_lower)
        }
        problems.append(Problem(message, option=first_index, field="lower", **where))
    for (_prev, _lo, prev_upper), (index, lower, _up) in zip(bands, bands[1:], strict=False):
        if prev_upper is None or lower is None or prev_upper > lower:
            message = _("This range overlaps the range before it.")
        elif prev_upper < lower:
            message = _("Answers from %(start)s to %(end)s are not covered by any option.") % {
                "start": number_text(prev_upper),
                "end": number_text(lower),
            }
        else:
            continue
        problems.append(Problem(message, option=index, field="lower", **where))
    last_index, _lower, last_upper = bands[-1]
    if last_upper is not None and (question.max is None or last_upper <= question.max):
        message = _("Answers from %(value)s up are not covered by any option.") % {
            "value": number_text(last_upper)
        }
        problems.append(Problem(message, option=last_index, field="upper", **where))
    return problems


def _question_problems(question: Any, **where: Any) -> list[Problem]:
    if question in RULE_QUESTIONS:
        return []
    return [
        Problem(
            _("“%(question)s” is not a question of the questionnaire.") % {"question": question},
            field="question",
            **where,
        )
    ]


def _named_problems(row: Mapping[str, Any], no_key: str, text: str, **where: Any) -> list[Problem]:
    """A row's key and its text in both languages."""
    problems = [] if row.get("key") else [Problem(no_key, field="key", **where)]
    return problems + text_problems(row, text, **where)


def criterion_problems(criterion: Mapping[str, Any]) -> list[Problem]:
    """Everything about one criterion except the rule-set-wide weight rule."""
    where: dict[str, Any] = {"criterion": str(criterion.get("key") or "?")}
    problems = _named_problems(criterion, _("The criterion needs a key."), "label", **where)
    problems += weight_problems(criterion.get("weight"), **where)
    question = criterion.get("question")
    options = criterion.get("options")
    if not isinstance(options, list) or not all(isinstance(o, Mapping) for o in options):
        return problems + [Problem(_("“options” must be a list of objects."), **where)]
    for index, option in enumerate(options):
        problems += option_problems(option, option=index, **where)
    question_problems = _question_problems(question, **where)
    if question_problems:
        return problems + question_problems
    return problems + bands_problems(str(question), options, **where)


def constraint_problems(constraint: Mapping[str, Any]) -> list[Problem]:
    where: dict[str, Any] = {"constraint": str(constraint.get("key") or "?")}
    problems = _named_problems(constraint, _("The constraint needs a key."), "reason", **where)
    if constraint.get("outcome") not in OUTCOMES:
        problems.append(
            Problem(
                _("The outcome must be one of: %(values)s.") % {"values": ", ".join(OUTCOMES)},
                field="outcome",
                **where,
            )
        )
    question = constraint.get("question")
    question_problems = _question_problems(question, **where)
    if question_problems:
        return problems + question_problems
    values = RULE_QUESTIONS[str(question)].values()
    if values is None:
        problems.append(
            Problem(
                _("A constraint can only read a question with fixed answers."),
                field="question",
                **where,
            )
        )
    elif constraint.get("value") not in values:
        problems.append(
            Problem(
                _("“%(value)s” is not an answer to this question (one of: %(values)s).")
                % {"value": constraint.get("value"), "values": ", ".join(values)},
                field="value",
                **where,
            )
        )
    return problems


def ruleset_problems(document: Mapping[str, Any]) -> list[Problem]:
    """Every rule a rule set document breaks; an empty list means it can be used."""
    if not isinstance(document, Mapping) or document.get("format") != FORMAT:
        return [
            Problem(
                _("Not a rule set document (expected format “%(format)s”).") % {"format": FORMAT}
            )
        ]
    problems = []
    if not str(document.get("name") or "").strip():
        problems.append(Problem(_("The rule set needs a name."), field="name"))
    criteria = document.get("criteria")
    constraints = document.get("constraints", [])
    if (
        not isinstance(criteria, list)
        or not criteria
        or not all(isinstance(c, Mapping) for c in criteria)
    ):
        return problems + [Problem(_("“criteria” must be a non-empty list of objects."))]
    if not isinstance(constraints, list) or not all(isinstance(c, Mapping) for c in constraints):
        return problems + [Problem(_("“constraints” must be a list of objects."))]
    keys = [c.get("key") for c in criteria]
    for key in sorted({k for k in keys if keys.count(k) > 1 and k}):
        problems.append(Problem(_("Two criteria have the same key."), criterion=key, field="key"))
    for criterion in criteria:
        problems += criterion_problems(criterion)
    problems += weights_problems(c.get("weight") for c in criteria)
    for constraint in constraints:
        problems += constraint_problems(constraint)
    problems += decisive_problems(document.get("decisive"))
    return problems


def documents_parse(text: str) -> list[dict[str, Any]]:
    """One rule set document, or a list of them (what exporting several gives)."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise RuleSetProblems(
            [Problem(_("The file is not JSON: %(error)s") % {"error": error})]
        ) from None
    documents = data if isinstance(data, list) else [data]
    if not documents:
        raise RuleSetProblems([Problem(_("The file holds no rule set."))])
    return documents
