"""Rule sets and cost figures in and out of the database.

The document format, its mapping to rows and its checks are pure and live in
`decider.engine.ruledocs`; this module only reads and writes the rows.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from decider import caching
from decider.engine import tokens
from decider.engine.markets import DEFAULT_MARKET
from decider.engine.ruledocs import (
    FORMAT,
    Problem,
    RuleSetProblems,
    constraint_document,
    constraint_row,
    criterion_document,
    criterion_row,
    decisive_of,
    documents_parse,
    option_row,
    rulebook_from_document,
    ruleset_problems,
)
from decider.engine.scoring import RuleBook
from decider.models import (
    Assumption,
    Constraint,
    Criterion,
    Option,
    Provider,
    ProviderPrice,
    Publication,
    RuleSet,
    TokenPrice,
)

log = logging.getLogger(__name__)


class RuleSetPublished(ValueError):
    """Published rule sets are never changed."""


def _values(obj: Any) -> dict[str, Any]:
    """A row's field values by field name (what the admin forms hold as cleaned data)."""
    return {field.name: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


# --- what the database needs of a document ------------------------------------------
#
# The checks of `ruledocs` read keys, questions and answer values as text (they look
# them up, put them in sets); these come first, so a list or an object where text
# belongs is a message naming the key, never a TypeError. They also hold the
# document to the columns' lengths, which SQLite does not enforce and PostgreSQL
# refuses with an error.


def _text_problem(value: Any, key: str, *, model: Any, required: bool, **where: Any):
    """A Problem if `value` (document key `key`) is not text that fits the column, else None."""
    if value is None and not required:
        return None
    if not isinstance(value, str):
        return Problem(_("“%(key)s” must be text.") % {"key": key}, field=key, **where)
    if not _is_unicode(value):
        return Problem(
            _("“%(key)s” is not valid Unicode text (it holds a lone surrogate, such as \\ud800).")
            % {"key": key},
            field=key,
            **where,
        )
    limit = model._meta.get_field(key).max_length
    if limit is not None and len(value) > limit:
        return Problem(
            _("“%(key)s” is longer than %(limit)d characters.") % {"key": key, "limit": limit},
            field=key,
            **where,
        )
    return None


def _is_unicode(text: str) -> bool:
    """Whether the text can be stored and shown: JSON's "\\ud800" escape reads as a lone
    surrogate, which no database column, page or terminal can encode."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _texts_shape(row: Any, stems: tuple[str, ...], *, model: Any, **where: Any) -> list[Problem]:
    """Texts in both languages: {"en": ..., "zh": ...} (missing ones `ruledocs` reports)."""
    problems = []
    for stem in stems:
        texts = row.get(stem)
        if texts is None:
            continue
        if not isinstance(texts, dict):
            problems.append(
                Problem(
                    _("“%(key)s” must be an object with “en” and “zh” texts.") % {"key": stem},
                    field=f"{stem}_en",
                    **where,
                )
            )
            continue
        for language in ("en", "zh"):
            if texts.get(language) is not None:
                problem = _text_problem(
                    texts[language], f"{stem}_{language}", model=model, required=False, **where
                )
                problems += [problem] if problem else []
    return problems


def _where(kind: str, row: dict[str, Any], number: int) -> dict[str, Any]:
    key = row.get("key")
    # The key names the row in every message: one that cannot be shown is named by its place.
    return {kind: key if isinstance(key, str) and key and _is_unicode(key) else f"#{number}"}


def _row_shape(
    row: dict[str, Any], keys: tuple[str, ...], *, model: Any, **where: Any
) -> list[Problem]:
    found = [_text_problem(row.get(k), k, model=model, required=False, **where) for k in keys]
    problems = [p for p in found if p]
    key = row.get("key")
    if isinstance(key, str) and key and not _is_slug(key):
        message = _("“key” may hold only letters, digits, “-” and “_”.")
        problems.append(Problem(message, field="key", **where))
    return problems


def _is_slug(text: str) -> bool:
    try:
        validate_slug(text)
    except ValidationError:
        return False
    return True


def document_shape_problems(document: Any) -> list[Problem]:
    """Types and lengths the columns need; parts that are not even lists `ruledocs` reports."""
    if not isinstance(document, dict):
        return []
    problems = [
        p
        for p in (
            _text_problem(document.get("name"), "name", model=RuleSet, required=False),
            _text_problem(document.get("notes"), "notes", model=RuleSet, required=False),
        )
        if p
    ]
    criteria = document.get("criteria")
    for number, criterion in enumerate(criteria if isinstance(criteria, list) else [], start=1):
        if not isinstance(criterion, dict):
            continue
        where = _where("criterion", criterion, number)
        problems += _row_shape(criterion, ("key", "question"), model=Criterion, **where)
        problems += _texts_shape(criterion, ("label",), model=Criterion, **where)
        options = criterion.get("options")
        for index, option in enumerate(options if isinstance(options, list) else []):
            if not isinstance(option, dict):
                continue
            problem = _text_problem(
                option.get("value"), "value", model=Option, required=False, option=index, **where
            )
            problems += [problem] if problem else []
            problems += _texts_shape(
                option, ("label", "reason"), model=Option, option=index, **where
            )
    constraints = document.get("constraints")
    for number, constraint in enumerate(
        constraints if isinstance(constraints, list) else [], start=1
    ):
        if not isinstance(constraint, dict):
            continue
        where = _where("constraint", constraint, number)
        problems += _row_shape(
            constraint, ("key", "question", "value", "outcome"), model=Constraint, **where
        )
        problems += _texts_shape(constraint, ("reason",), model=Constraint, **where)
        if not isinstance(constraint.get("excludes", True), bool):
            message = _("“excludes” must be true or false.")
            problems.append(Problem(message, field="excludes", **where))
    return problems


def document_problems(document: Any) -> list[Problem]:
    """Every problem of a document to import: its shape first, then the rules of `ruledocs`."""
    problems = document_shape_problems(document)
    if problems:
        return problems
    try:
        return ruleset_problems(document)
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        # A shape the checks above do not know yet: refused with a message, not a 500.
        log.warning("rule set document not checkable: %r", error)
        return [Problem(_("The document could not be read: %(error)s") % {"error": error})]


def documents_read(text: str) -> list[dict[str, Any]]:
    """The documents in a file's text; RuleSetProblems when it is not JSON one can read."""
    try:
        return documents_parse(text)
    except RecursionError:
        raise RuleSetProblems([Problem(_("The file is nested too deeply to be read."))]) from None


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
    published_by: Any = None,
    operator: str = "",
) -> RuleSet:
    """A new rule set from a document; refused whole (RuleSetProblems) if it breaks a rule.
    Published at once (`publish`): by `published_by` (a user) or the `operator`'s command."""
    if check:
        problems = document_problems(document)
        if problems:
            log.warning(
                "rule set refused: %d problems, first: %s", len(problems), _logged(problems[0])
            )
            raise RuleSetProblems(problems)
    if version is None:
        version = RuleSet.next_version()
    previous = RuleSet.current() if publish else None
    if publish and operator:
        reason = _published_reason(operator)
    ruleset = _with_reason(
        RuleSet(
            version=version,
            name=document.get("name", f"Rule set {version}"),
            notes=document.get("notes") or "",
            is_published=publish,
            published_at=timezone.now() if publish else None,
            decisive_gap_pct=decisive_of(document)["gap_pct"],
            decisive_probability_pct=decisive_of(document)["probability_pct"],
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
    if publish:
        _record_publication(ruleset, previous, published_by=published_by, operator=operator)
    return ruleset


def _published_reason(operator: str) -> str:
    """The history's reason for what a command published: it ran as the operator."""
    return _("published by the operator (%(command)s)") % {"command": operator}


def _record_publication(
    ruleset: RuleSet,
    previous: RuleSet | None,
    *,
    published_by: Any,
    operator: str,
    impact: dict[str, Any] | None = None,
) -> None:
    Publication.objects.create(
        ruleset=ruleset,
        published_by=published_by if getattr(published_by, "pk", None) else None,
        operator=operator,
        published_at=ruleset.published_at or timezone.now(),
        previous_version=previous.version if previous else None,
        impact=impact,
    )


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
def ruleset_publish(
    ruleset: RuleSet,
    *,
    published_by: Any = None,
    operator: str = "",
    impact: dict[str, Any] | None = None,
) -> RuleSet:
    """Publish a draft so new assessments are scored with it; refused if it breaks a rule.
    Who may is the caller's to check (the admin: `decider.publish_ruleset`); this records
    who did (`published_by`, or the `operator`'s command) and the `impact` they saw."""
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
    _with_reason(ruleset, _published_reason(operator) if operator else _("published")).save()
    _record_publication(
        ruleset, current, published_by=published_by, operator=operator, impact=impact
    )
    log.info("rule set v%s published", ruleset.version)
    return ruleset


def ruleset_histories(ruleset_pk: int) -> list[Any]:
    """The history of a rule set and of its rows: criteria, their options, constraints."""
    criteria = Criterion.history.filter(ruleset_id=ruleset_pk).values_list("id", flat=True)
    return [
        RuleSet.history.filter(id=ruleset_pk),
        Criterion.history.filter(ruleset_id=ruleset_pk),
        Option.history.filter(criterion_id__in=criteria.distinct()),
        Constraint.history.filter(ruleset_id=ruleset_pk),
    ]


def ruleset_last_edit(ruleset: RuleSet) -> Any:
    """The newest history record of a draft or its rows (its `history_user`: who edited it
    last, None for a command), or None when it has none."""
    newest = [
        h.select_related("history_user").order_by("-history_date").first()
        for h in ruleset_histories(ruleset.pk)
    ]
    return max((r for r in newest if r is not None), key=lambda r: r.history_date, default=None)


def ruleset_export(ruleset: RuleSet) -> dict[str, Any]:
    criteria = ruleset.criteria.prefetch_related("options").order_by("order", "id")
    return {
        "format": FORMAT,
        "version": ruleset.version,
        "name": ruleset.name,
        "notes": ruleset.notes,
        "decisive": {
            "gap_pct": ruleset.decisive_gap_pct,
            "probability_pct": ruleset.decisive_probability_pct,
        },
        "criteria": [
            criterion_document(_values(c), [_values(o) for o in c.options.all()]) for c in criteria
        ],
        "constraints": [
            constraint_document(_values(c)) for c in ruleset.constraints.order_by("id")
        ],
    }


def ruleset_rulebook(ruleset: RuleSet) -> RuleBook:
    """The engine's rule book for a rule set in the database (kept until a rule is written)."""
    return caching.basis_cached(
        ("rulebook", ruleset.pk, ruleset.version),
        lambda: rulebook_from_document(ruleset_export(ruleset)),
    )


@transaction.atomic
def assumptions_import(
    document: dict[str, Any], *, replace: bool = False, markets: Iterable[str] | None = None
) -> int:
    """Write the figures of `document` (only those of `markets`, when given)."""
    if markets is not None:
        wanted = set(markets)
        document = {
            "assumptions": [
                item
                for item in document["assumptions"]
                if item.get("market", DEFAULT_MARKET) in wanted
            ]
        }
    if replace:
        Assumption.objects.all().delete()
    count = 0
    for item in document["assumptions"]:
        Assumption.objects.update_or_create(
            market=item.get("market", DEFAULT_MARKET),
            name=item["name"],
            gpu_model=item.get("gpu_model", ""),
            defaults={
                "value": item["value"],
                "source": item["source"],
                "source_zh": item.get("source_zh", ""),
                "as_of": item["as_of"],
            },
        )
        count += 1
    return count


@transaction.atomic
def assumptions_add_missing(document: dict[str, Any]) -> int:
    """Add the figures of `document` the database lacks (a new figure, a new market, a new
    GPU model), leaving every figure it has as it is (an admin may have edited it)."""
    have = set(Assumption.objects.values_list("market", "name", "gpu_model"))
    missing = [
        item
        for item in document["assumptions"]
        if (item.get("market", DEFAULT_MARKET), item["name"], item.get("gpu_model", "")) not in have
    ]
    return assumptions_import({"assumptions": missing}) if missing else 0


@transaction.atomic
def providers_add_missing(document: dict[str, Any]) -> tuple[int, int]:
    """Add the providers and prices of `document` the database lacks, leaving every one it
    has as it is (an admin may have edited it): (providers added, prices added)."""
    rows = {p.key: p for p in Provider.objects.all()}
    added = 0
    for item in document["providers"]:
        if item["key"] not in rows:
            rows[item["key"]] = Provider.objects.create(
                key=item["key"],
                name=item["name"],
                name_zh=item.get("name_zh", ""),
                kind=item["kind"],
                market=item.get("market", DEFAULT_MARKET),
                price_page=item.get("price_page", ""),
            )
            added += 1
    have = set(ProviderPrice.objects.values_list("provider__key", "name", "gpu_model"))
    prices = [
        ProviderPrice(
            provider=rows[item["provider"]],
            name=item["name"],
            gpu_model=item.get("gpu_model", ""),
            value=item["value"],
            source=item["source"],
            source_zh=item.get("source_zh", ""),
            as_of=item["as_of"],
        )
        for item in document["prices"]
        if (item["provider"], item["name"], item.get("gpu_model", "")) not in have
    ]
    for price in prices:
        price.save()  # one by one: each gets its history record
    return added, len(prices)


@transaction.atomic
def token_prices_add_missing(document: dict[str, Any]) -> int:
    """Add the per-token prices of `document` (fixtures/token_prices.json) the database lacks,
    leaving every one it has as it is (an admin may have edited it): how many were added. A
    price of zero is kept too: it shows the admin that the provider lists the model free."""
    tokens.price_book(document)  # checks the format
    have = set(TokenPrice.objects.values_list("provider", "model", "market"))
    fields = [f.name for f in TokenPrice._meta.fields if f.name != "id"]
    added = [
        TokenPrice(**{field: item[field] for field in fields})
        for item in document["prices"]
        if (item["provider"], item["model"], item["market"]) not in have
    ]
    for price in added:
        price.save()  # one by one: each gets its history record
    return len(added)


@transaction.atomic
def rulesets_import(
    documents: Sequence[dict[str, Any]],
    *,
    publish: bool,
    published_by: Any = None,
    operator: str = "",
) -> list[RuleSet]:
    """Import every document or none: all are checked before anything is written."""
    problems = []
    for number, document in enumerate(documents, start=1):
        found = document_problems(document)
        if len(documents) > 1:
            found = [
                Problem(_("rule set %(number)d: %(problem)s") % {"number": number, "problem": p})
                for p in found
            ]
        problems += found
    if problems:
        log.warning(
            "rule set import refused: %d problems, first: %s", len(problems), _logged(problems[0])
        )
        raise RuleSetProblems(problems)
    return [
        ruleset_import(
            document,
            publish=publish,
            check=False,
            reason=_("imported"),
            published_by=published_by,
            operator=operator,
        )
        for document in documents
    ]


# --- who may publish (issue 35) ------------------------------------------------------


def publish_refusal(user: Any, ruleset: RuleSet, *, review: bool) -> str | None:
    """Why `user` may not make the draft `ruleset` current, or None when they may: they need
    `decider.publish_ruleset`, and under a second pair of eyes (`review`, the setting
    DECIDER_PUBLISH_REVIEW) they may not be the draft's last editor. Commands publish as the
    operator and do not ask."""
    if not user.has_perm("decider.publish_ruleset"):
        return no_publish_right()
    if review:
        last = ruleset_last_edit(ruleset)
        if last is not None and last.history_user_id == user.pk:
            return _(
                "You edited this draft last: someone else must publish it (a second pair of "
                "eyes is required here)."
            )
    return None


def _logged(problem: object) -> str:
    """A problem as a log line holds it: an uploader's text cut short, its control
    characters escaped (a key of 100 KB, or one with a newline, forges no log lines)."""
    return repr(str(problem)[:200])


def no_publish_right() -> str:
    return _(
        "Publishing needs the right to publish rule sets (the publishers group); "
        "ask a publisher to review and publish this draft."
    )
