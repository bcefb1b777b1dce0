"""The migration checklist of source §八, fitted to the recommendation and the answers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _


@dataclass(frozen=True)
class Item:
    title: str
    detail: str


def checklist_for(
    recommendation: str, answers: Mapping[str, Any], migration: Mapping[str, Any] | None
) -> list[Item]:
    items = [_data_item(recommendation, answers, migration)]
    if recommendation in ("cloud", "hybrid"):
        items.append(
            Item(
                _("Adapt job scheduling"),
                _(
                    "Scheduler and resource-management settings from a self-built environment "
                    "may need rework in the cloud: dynamic resource requests, topology awareness."
                ),
            )
        )
        items.append(
            Item(
                _("Re-verify distributed training"),
                _(
                    "Cross-node training depends on fast interconnect; a dedicated network may be "
                    "replaced by a general-purpose one in the cloud. Re-verify convergence speed "
                    "on the new network before moving long runs."
                ),
            )
        )
    if recommendation in ("onprem", "hybrid"):
        items.append(
            Item(
                _("Plan the build and its lead time"),
                _(
                    "Hardware selection, procurement approval, racking, networking and driver "
                    "work usually take weeks or months; keep running in the cloud meanwhile."
                ),
            )
        )
        items.append(
            Item(
                _("Staff the operations"),
                _(
                    "Hardware inspection, driver and firmware upgrades, failed-card replacement, "
                    "scheduler upkeep and storage capacity planning need a team with both "
                    "systems and hardware experience."
                ),
            )
        )
    items.append(
        Item(
            _("Redefine monitoring, SLA and alerts"),
            _(
                "Monitoring, logging and fault recovery differ between the two set-ups: define "
                "the SLA and alert rules again before moving, so no blind spot remains."
            ),
        )
    )
    if recommendation in ("cloud", "hybrid"):
        cost_detail = _(
            "A cloud bill has many billing items: set up budget monitoring before you move, so "
            "idle resources do not run up extra spending."
        )
    else:
        cost_detail = _(
            "Owned hardware is paid up front: track utilization against the plan, since idle "
            "GPUs still cost depreciation, power and staff."
        )
    items.append(Item(_("Change how costs are accounted"), cost_detail))
    return items


def _data_item(
    recommendation: str, answers: Mapping[str, Any], migration: Mapping[str, Any] | None
) -> Item:
    size = answers.get("dataset_tb", 0)
    detail = _(
        "Training data often runs to tens of TB or even PB; transfer time and cost cannot be "
        "ignored. Move a small sample first to check the process."
    )
    if migration and size:
        values = {
            "size": f"{size:g}",
            "cost": f"{migration['cost']:,.0f}",
            "currency": migration.get("currency", ""),
        }
        if migration["days"] is None:  # no bandwidth figure: no transfer time to give
            detail += (
                " "
                + _("Your %(size)s TB would cost about %(cost)s %(currency)s in transfer fees.")
                % values
            )
        else:
            detail += " " + _(
                "Your %(size)s TB would take about %(days)s days over the assumed link and cost "
                "about %(cost)s %(currency)s in transfer fees."
            ) % {**values, "days": f"{migration['days']:.1f}"}
    if size >= 100:
        detail += " " + _("At this size, consider shipping offline transfer devices.")
    return Item(_("Data migration cost and time"), detail)
