"""Rule sets to and from JSON documents (the shipped fixture uses the same format)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from decider.models import Assumption, Constraint, Criterion, Option, RuleSet

FORMAT = "decider-ruleset/1"


class RuleSetFormatError(ValueError):
    pass


def _text(data: dict, key: str) -> tuple[str, str]:
    try:
        text = data[key]
        return text["en"], text["zh"]
    except (KeyError, TypeError):
        raise RuleSetFormatError(f"{data.get('key', '?')}: '{key}' needs 'en' and 'zh'") from None


@transaction.atomic
def ruleset_import(
    document: dict[str, Any], *, version: int | None = None, publish: bool = True
) -> RuleSet:
    if document.get("format") != FORMAT:
        raise RuleSetFormatError(f"not a rule set document (expected format {FORMAT!r})")
    if version is None:
        latest = RuleSet.objects.order_by("-version").first()
        version = (latest.version + 1) if latest else 1
    ruleset = RuleSet.objects.create(
        version=version,
        name=document.get("name", f"Rule set {version}"),
        notes=document.get("notes", ""),
        is_published=publish,
        published_at=timezone.now() if publish else None,
    )
    for order, item in enumerate(document["criteria"]):
        label_en, label_zh = _text(item, "label")
        criterion = Criterion.objects.create(
            ruleset=ruleset,
            key=item["key"],
            question=item["question"],
            label_en=label_en,
            label_zh=label_zh,
            weight=item["weight"],
            order=order,
        )
        for option in item["options"]:
            opt_en, opt_zh = _text(option, "label")
            reason_en, reason_zh = _text(option, "reason")
            Option.objects.create(
                criterion=criterion,
                value=option.get("value") or "",
                lower=option.get("lower"),
                upper=option.get("upper"),
                label_en=opt_en,
                label_zh=opt_zh,
                score_onprem=option["scores"]["onprem"],
                score_cloud=option["scores"]["cloud"],
                score_hybrid=option["scores"]["hybrid"],
                reason_en=reason_en,
                reason_zh=reason_zh,
            )
    for item in document.get("constraints", []):
        reason_en, reason_zh = _text(item, "reason")
        Constraint.objects.create(
            ruleset=ruleset,
            key=item["key"],
            question=item["question"],
            value=item["value"],
            outcome=item["outcome"],
            excludes=item.get("excludes", True),
            reason_en=reason_en,
            reason_zh=reason_zh,
        )
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
