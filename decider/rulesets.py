"""Rule sets and cost figures in and out of the database.

The document format, its mapping to rows and its checks are pure and live in
`decider.engine.ruledocs`; this module only reads and writes the rows.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from decider.engine.ruledocs import (
    FORMAT,
    Problem,
    RuleSetProblems,
    constraint_document,
    constraint_row,
    criterion_document,
    criterion_row,
    option_row,
    rulebook_from_document,
    ruleset_problems,
)
from decider.engine.scoring import RuleBook
from decider.models import Assumption, Constraint, Criterion, Option, RuleSet

log = logging.getLogger(__name__)


class RuleSetPublished(ValueError):
    """Published rule sets are never changed."""


def _values(obj: Any) -> dict[str, Any]:
    """A row's field values by field name (what the admin forms hold as cleaned data)."""
    return {field.name: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


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
            log.warning("rule set refused: %d problems, first: %s", len(problems), problems[0])
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
            Criterion(ruleset=ruleset, order=order, **criterion_row(item)), reason
        )
        criterion.save()
        for option in item["options"]:
            _with_reason(Option(criterion=criterion, **option_row(option)), reason).save()
    for item in document.get("constraints", []):
        _with_reason(Constraint(ruleset=ruleset, **constraint_row(item)), reason).save()
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
        log.warning("v%s not published: %d problems", ruleset.version, len(problems))
        raise RuleSetProblems(problems)
    current = RuleSet.current()
    if current is not None and current.version > ruleset.version:
        # The newest published version is the one in use: publishing must make this it.
        ruleset.version = RuleSet.next_version()
    ruleset.is_published = True
    ruleset.published_at = timezone.now()
    _with_reason(ruleset, _("published")).save()
    log.info("rule set v%s published", ruleset.version)
    return ruleset


def ruleset_export(ruleset: RuleSet) -> dict[str, Any]:
    criteria = ruleset.criteria.prefetch_related("options").order_by("order", "id")
    return {
        "format": FORMAT,
        "version": ruleset.version,
        "name": ruleset.name,
        "notes": ruleset.notes,
        "criteria": [
            criterion_document(_values(c), [_values(o) for o in c.options.all()]) for c in criteria
        ],
        "constraints": [
            constraint_document(_values(c)) for c in ruleset.constraints.order_by("id")
        ],
    }


def ruleset_rulebook(ruleset: RuleSet) -> RuleBook:
    """The engine's rule book for a rule set in the database."""
    return rulebook_from_document(ruleset_export(ruleset))


@transaction.atomic
def assumptions_import(document: dict[str, Any], *, replace: bool = False) -> int:
    if replace:
        Assumption.objects.all().delete()
    count = 0
    for item in document["assumptions"]:
        Assumption.objects.update_or_create(
            name=item["name"],
            gpu_model=item.get("gpu_model", ""),
            defaults={"value": item["value"], "source": item["source"], "as_of": item["as_of"]},
        )
        count += 1
    return count


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
        log.warning("rule set import refused: %d problems, first: %s", len(problems), problems[0])
        raise RuleSetProblems(problems)
    return [
        ruleset_import(document, publish=publish, check=False, reason=_("imported"))
        for document in documents
    ]
