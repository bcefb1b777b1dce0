"""Rule sets to and from JSON documents (the shipped fixture uses the same format).

Also the checks a rule set must pass before it is imported or published, as plain
functions over the document's data: the admin forms run the same functions on
what an admin typed, so a message means the same thing everywhere.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from decider import scoring
from decider.answers import QUESTIONS
from decider.models import Assumption, Constraint, Criterion, Option, RuleSet

FORMAT = "decider-ruleset/1"
# Answers the app derives rather than asks; `costs.cost_verdict` returns these.
DERIVED_VALUES = {
    "cost_verdict": tuple(
        f"{outcome}_{strength}" for outcome in scoring.OUTCOMES for strength in ("clear", "slight")
    )
}
SCORE_FIELDS = {outcome: f"score_{outcome}" for outcome in scoring.OUTCOMES}


class RuleSetFormatError(ValueError):
    pass


class RuleSetProblems(RuleSetFormatError):
    """The document (or draft) breaks one or more rules; `problems` lists them all."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class RuleSetPublished(ValueError):
    """Published rule sets are never changed."""


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


def allowed_values(question: str) -> tuple[str, ...] | None:
    """The answer values a choice or yes/no question can take; None for numbers."""
    if question in DERIVED_VALUES:
        return DERIVED_VALUES[question]
    kind = QUESTIONS[question].kind
    if kind == "choice":
        return tuple(value for value, _label in QUESTIONS[question].choices)
    if kind == "bool":
        return ("true", "false")
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _fmt(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


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
        score = scores.get(outcome)
        if score is None:
            message = _("Give a score for this outcome.")
        elif not isinstance(score, int) or isinstance(score, bool):
            message = _("The score must be a whole number.")
        elif not scoring.SCORE_MIN <= score <= scoring.SCORE_MAX:
            message = _("The score must be from %(min)d to %(max)d.") % {
                "min": scoring.SCORE_MIN,
                "max": scoring.SCORE_MAX,
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
    values = allowed_values(question)
    if values is not None:
        return _choice_problems(values, options, **where)
    return _range_problems(QUESTIONS[question], options, **where)


def _choice_problems(
    values: tuple[str, ...], options: Sequence[Mapping[str, Any]], **where: Any
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
    missing = [v for v in values if v not in seen]
    if missing:
        problems.append(
            Problem(
                _("No option for the answer(s): %(values)s.") % {"values": ", ".join(missing)},
                **where,
            )
        )
    return problems


def _range_problems(question, options: Sequence[Mapping[str, Any]], **where: Any) -> list[Problem]:
    problems = []
    bands = []
    for index, option in enumerate(options):
        lower, upper = option.get("lower"), option.get("upper")
        if option.get("value"):
            problems.append(
                Problem(
                    _("This question takes a number; give a range, not an answer value."),
                    option=index,
                    field="value",
                    **where,
                )
            )
            continue
        bad = [
            (f, v)
            for f, v in (("lower", lower), ("upper", upper))
            if v is not None and not _is_number(v)
        ]
        if bad:
            problems += [
                Problem(_("The bound must be a number."), option=index, field=f, **where)
                for f, _v in bad
            ]
            continue
        if lower is not None and upper is not None and lower >= upper:
            problems.append(
                Problem(
                    _("“To” must be greater than “from”."), option=index, field="upper", **where
                )
            )
            continue
        bands.append((index, lower, upper))
    if problems:
        return problems

    bands.sort(key=lambda band: -math.inf if band[1] is None else band[1])
    first_index, first_lower, _upper = bands[0]
    if first_lower is not None and (question.min is None or first_lower > question.min):
        problems.append(
            Problem(
                _("Answers below %(value)s are not covered by any option.")
                % {"value": _fmt(first_lower)},
                option=first_index,
                field="lower",
                **where,
            )
        )
    for (_prev, _lo, prev_upper), (index, lower, _up) in zip(bands, bands[1:], strict=False):
        if prev_upper is None or lower is None or prev_upper > lower:
            problems.append(
                Problem(
                    _("This range overlaps the range before it."),
                    option=index,
                    field="lower",
                    **where,
                )
            )
        elif prev_upper < lower:
            problems.append(
                Problem(
                    _("Answers from %(start)s to %(end)s are not covered by any option.")
                    % {"start": _fmt(prev_upper), "end": _fmt(lower)},
                    option=index,
                    field="lower",
                    **where,
                )
            )
    last_index, _lower, last_upper = bands[-1]
    if last_upper is not None and (question.max is None or last_upper <= question.max):
        problems.append(
            Problem(
                _("Answers from %(value)s up are not covered by any option.")
                % {"value": _fmt(last_upper)},
                option=last_index,
                field="upper",
                **where,
            )
        )
    return problems


def _question_problems(question: Any, **where: Any) -> list[Problem]:
    if question in QUESTIONS or question in DERIVED_VALUES:
        return []
    return [
        Problem(
            _("“%(question)s” is not a question of the questionnaire.") % {"question": question},
            field="question",
            **where,
        )
    ]


def criterion_problems(criterion: Mapping[str, Any]) -> list[Problem]:
    """Everything about one criterion except the rule-set-wide weight rule."""
    where = {"criterion": str(criterion.get("key") or "?")}
    problems = []
    if not criterion.get("key"):
        problems.append(Problem(_("The criterion needs a key."), field="key", **where))
    problems += text_problems(criterion, "label", **where)
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
    return problems + bands_problems(question, options, **where)


def constraint_problems(constraint: Mapping[str, Any]) -> list[Problem]:
    where = {"constraint": str(constraint.get("key") or "?")}
    problems = []
    if not constraint.get("key"):
        problems.append(Problem(_("The constraint needs a key."), field="key", **where))
    problems += text_problems(constraint, "reason", **where)
    if constraint.get("outcome") not in scoring.OUTCOMES:
        problems.append(
            Problem(
                _("The outcome must be one of: %(values)s.")
                % {"values": ", ".join(scoring.OUTCOMES)},
                field="outcome",
                **where,
            )
        )
    question = constraint.get("question")
    question_problems = _question_problems(question, **where)
    if question_problems:
        return problems + question_problems
    values = allowed_values(question)
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
    return problems


# --- documents in and out of the database -----------------------------------------


def _with_reason(obj: Any, reason: str | None) -> Any:
    if reason:
        obj._change_reason = reason
    return obj


@transaction.atomic
def ruleset_import(
    document: dict[str, Any],
    *,
    version: int | None = None,
    publish: bool = True,
    check: bool = True,
    reason: str | None = None,
) -> RuleSet:
    """A new rule set from a document; refused whole (RuleSetProblems) if it breaks a rule."""
    if check:
        problems = ruleset_problems(document)
        if problems:
            raise RuleSetProblems(problems)
    if version is None:
        version = RuleSet.next_version()
    ruleset = _with_reason(
        RuleSet(
            version=version,
            name=document.get("name", f"Rule set {version}"),
            notes=document.get("notes", ""),
            is_published=publish,
            published_at=timezone.now() if publish else None,
        ),
        reason,
    )
    ruleset.save()
    for order, item in enumerate(document["criteria"]):
        criterion = _with_reason(
            Criterion(
                ruleset=ruleset,
                key=item["key"],
                question=item["question"],
                label_en=item["label"]["en"],
                label_zh=item["label"]["zh"],
                weight=item["weight"],
                order=order,
            ),
            reason,
        )
        criterion.save()
        for option in item["options"]:
            _with_reason(
                Option(
                    criterion=criterion,
                    value=option.get("value") or "",
                    lower=option.get("lower"),
                    upper=option.get("upper"),
                    label_en=option["label"]["en"],
                    label_zh=option["label"]["zh"],
                    score_onprem=option["scores"]["onprem"],
                    score_cloud=option["scores"]["cloud"],
                    score_hybrid=option["scores"]["hybrid"],
                    reason_en=option["reason"]["en"],
                    reason_zh=option["reason"]["zh"],
                ),
                reason,
            ).save()
    for item in document.get("constraints", []):
        _with_reason(
            Constraint(
                ruleset=ruleset,
                key=item["key"],
                question=item["question"],
                value=item["value"],
                outcome=item["outcome"],
                excludes=item.get("excludes", True),
                reason_en=item["reason"]["en"],
                reason_zh=item["reason"]["zh"],
            ),
            reason,
        ).save()
    return ruleset


@transaction.atomic
def ruleset_draft(ruleset: RuleSet) -> RuleSet:
    """An unpublished copy of `ruleset` (criteria, options, constraints) with the next version."""
    return ruleset_import(
        ruleset_export(ruleset),
        version=RuleSet.next_version(),
        publish=False,
        # A copy of what is in use must always be possible, so it can be fixed.
        check=False,
        reason=_("draft made from v%(version)d") % {"version": ruleset.version},
    )


@transaction.atomic
def ruleset_publish(ruleset: RuleSet) -> RuleSet:
    """Publish a draft so new assessments are scored with it; refused if it breaks a rule."""
    ruleset = RuleSet.objects.select_for_update().get(pk=ruleset.pk)
    if ruleset.is_published:
        raise RuleSetPublished(
            _("v%(version)d is already published.") % {"version": ruleset.version}
        )
    problems = ruleset_problems(ruleset_export(ruleset))
    if problems:
        raise RuleSetProblems(problems)
    current = RuleSet.current()
    if current is not None and current.version > ruleset.version:
        # The newest published version is the one in use: publishing must make this it.
        ruleset.version = RuleSet.next_version()
    ruleset.is_published = True
    ruleset.published_at = timezone.now()
    ruleset._change_reason = _("published")
    ruleset.save()
    return ruleset


def ruleset_export(ruleset: RuleSet) -> dict[str, Any]:
    def option_data(option: Option) -> dict[str, Any]:
        data: dict[str, Any] = (
            {"value": option.value}
            if option.value
            else {"lower": option.lower, "upper": option.upper}
        )
        data |= {
            "label": {"en": option.label_en, "zh": option.label_zh},
            "scores": {
                "onprem": option.score_onprem,
                "cloud": option.score_cloud,
                "hybrid": option.score_hybrid,
            },
            "reason": {"en": option.reason_en, "zh": option.reason_zh},
        }
        return data

    return {
        "format": FORMAT,
        "version": ruleset.version,
        "name": ruleset.name,
        "notes": ruleset.notes,
        "criteria": [
            {
                "key": c.key,
                "question": c.question,
                "weight": c.weight,
                "label": {"en": c.label_en, "zh": c.label_zh},
                "options": [option_data(o) for o in c.options.all()],
            }
            for c in ruleset.criteria.prefetch_related("options").order_by("order", "id")
        ],
        "constraints": [
            {
                "key": c.key,
                "question": c.question,
                "value": c.value,
                "outcome": c.outcome,
                "excludes": c.excludes,
                "reason": {"en": c.reason_en, "zh": c.reason_zh},
            }
            for c in ruleset.constraints.order_by("id")
        ],
    }


@transaction.atomic
def assumptions_import(document: dict[str, Any], *, replace: bool = False) -> int:
    if replace:
        Assumption.objects.all().delete()
    count = 0
    for item in document["assumptions"]:
        Assumption.objects.update_or_create(
            name=item["name"],
            gpu_model=item.get("gpu_model", ""),
            defaults={
                "value": item["value"],
                "unit": item["unit"],
                "source": item["source"],
                "as_of": item["as_of"],
            },
        )
        count += 1
    return count


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


@transaction.atomic
def rulesets_import(documents: Sequence[dict[str, Any]], *, publish: bool) -> list[RuleSet]:
    """Import every document or none: all are checked before anything is written."""
    problems = []
    for number, document in enumerate(documents, start=1):
        found = ruleset_problems(document)
        if len(documents) > 1:
            found = [
                Problem(_("rule set %(number)d: %(problem)s") % {"number": number, "problem": p})
                for p in found
            ]
        problems += found
    if problems:
        raise RuleSetProblems(problems)
    return [
        ruleset_import(document, publish=publish, check=False, reason=_("imported"))
        for document in documents
    ]
