"""Live figures change as rule sets do: proposed, then made current by a publisher (issue 49).

A price set's figures, the providers, their list prices and the per-token prices apply to
the next assessment scored, exactly as publishing a rule set does. So an edit to one in the
admin is a `FigureChange`: waiting, the live row untouched, until someone with the right to
publish (`decider.publish_ruleset`, the publishers group) makes it current; under a second
pair of eyes (`DECIDER_PUBLISH_REVIEW`) that someone is never its author. Without that
setting a publisher's own edit is made current at once, and recorded the same way. The row's
history (django-simple-history) names the publisher and, as its reason, the author.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core import serializers
from django.db import IntegrityError, models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from decider.models import Assumption, FigureChange, Provider, ProviderPrice, TokenPrice

LIVE_MODELS: dict[str, type[models.Model]] = {
    "assumption": Assumption,
    "provider": Provider,
    "providerprice": ProviderPrice,
    "tokenprice": TokenPrice,
}
PUBLISH_RIGHT = "decider.publish_ruleset"


class ChangeRefused(Exception):
    """A change that cannot be made current: the message says why."""


def fields_of(row: models.Model) -> dict[str, Any]:
    """A row's fields as JSON (a foreign key as its id, a date as ISO text), without its id."""
    return json.loads(serializers.serialize("json", [row]))[0]["fields"]


def may_publish_at_once(user: Any) -> bool:
    """Whether `user`'s own edit is made current as it is saved: a publisher, when no second
    pair of eyes is asked for."""
    return user.has_perm(PUBLISH_RIGHT) and not settings.DECIDER_PUBLISH_REVIEW


def change_propose(*, user: Any, row: models.Model, action: str) -> FigureChange | None:
    """Record `user`'s edit of `row` (its new values set on it, unsaved) as a waiting change;
    None when it changes nothing."""
    model = row._meta.model_name
    assert model in LIVE_MODELS, model
    before: dict[str, Any] = {}
    values: dict[str, Any] = {}
    if action == FigureChange.ADD:
        values = fields_of(row)
    elif action == FigureChange.CHANGE:
        live = fields_of(type(row)._default_manager.get(pk=row.pk))
        values = {k: v for k, v in fields_of(row).items() if live.get(k) != v}
        before = {k: live.get(k) for k in values}
        if not values:
            return None
    else:
        before = fields_of(row)
    return FigureChange.objects.create(
        model=model,
        object_id=row.pk,
        action=action,
        values=values,
        before=before,
        summary=_summary(row, action, values, before)[:300],
        proposed_by=user,
    )


def _summary(row: models.Model, action: str, values: dict, before: dict) -> str:
    name = f"{row._meta.verbose_name} “{row}”"
    if action == FigureChange.ADD:
        return _("Add %(row)s") % {"row": name}
    if action == FigureChange.DELETE:
        return _("Delete %(row)s") % {"row": name}
    changes = ", ".join(f"{key}: {before.get(key)} → {value}" for key, value in values.items())
    return _("Change %(row)s: %(changes)s") % {"row": name, "changes": changes}


def publish_refusal(user: Any, change: FigureChange) -> str | None:
    """Why `user` may not make `change` current, or None."""
    if not user.has_perm(PUBLISH_RIGHT):
        return _(
            "Making a change to the live figures current needs the right to publish (the "
            "publishers group); a publisher will review it."
        )
    if change.state != FigureChange.WAITING:
        return _("This change is %(state)s already.") % {"state": change.get_state_display()}
    if settings.DECIDER_PUBLISH_REVIEW and change.proposed_by_id == user.pk:
        return _(
            "You proposed this change: someone else must publish it (a second pair of eyes "
            "is required here)."
        )
    return None


def change_publish(change: FigureChange, *, user: Any) -> models.Model | None:
    """Make `change` current; the row as it now is (None for a deletion). ChangeRefused when
    `user` may not, or the row changed since it was proposed (another change came first)."""
    with transaction.atomic():
        change = FigureChange.objects.select_for_update().get(pk=change.pk)
        if refusal := publish_refusal(user, change):
            raise ChangeRefused(refusal)
        model = LIVE_MODELS[change.model]
        reason = _("proposed by %(author)s, published by %(publisher)s") % {
            "author": change.proposed_by or "?",
            "publisher": user,
        }
        row: models.Model | None
        if change.action == FigureChange.ADD:
            row = model()
        else:
            row = model._default_manager.select_for_update().filter(pk=change.object_id).first()
            live = fields_of(row) if row is not None else None
            if live is None or any(live.get(k) != v for k, v in change.before.items()):
                raise ChangeRefused(
                    _(
                        "The figure changed since this change was proposed: discard it and "
                        "propose it again on the figure as it is now."
                    )
                )
        if change.action == FigureChange.DELETE:
            assert row is not None
            row._change_reason = reason  # type: ignore[union-attr,attr-defined]  # simple-history reads it
            row.delete()
            row = None
        else:
            assert row is not None
            _apply(row, change.values)
            row._change_reason = reason  # type: ignore[union-attr,attr-defined]  # simple-history reads it
            try:
                with transaction.atomic():
                    row.save()
            except IntegrityError as error:
                raise ChangeRefused(
                    _("It clashes with a figure made current since: %(error)s") % {"error": error}
                ) from error
            change.object_id = row.pk
        change.state = FigureChange.PUBLISHED
        change.published_by = user
        change.published_at = timezone.now()
        change.save()
    return row


def change_discard(change: FigureChange, *, user: Any) -> None:
    """Drop a waiting change: its author or a publisher may."""
    if change.state != FigureChange.WAITING:
        raise ChangeRefused(
            _("This change is %(state)s already.") % {"state": change.get_state_display()}
        )
    if change.proposed_by_id != user.pk and not user.has_perm(PUBLISH_RIGHT):
        raise ChangeRefused(_("Only its author or a publisher may discard a change."))
    change.state = FigureChange.DISCARDED
    change.save(update_fields=["state"])


def _apply(row: models.Model, values: dict[str, Any]) -> None:
    for name, value in values.items():
        field = row._meta.get_field(name)
        if field.is_relation:
            setattr(row, field.attname, value)  # type: ignore[union-attr]
        else:
            setattr(row, name, field.to_python(value))  # type: ignore[union-attr]
