"""The migration checklist of source §八, fitted to the recommendation and the answers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from decider.engine.outcomes import OUTCOMES

RENTING = ("cloud", "hybrid")
OWNING = ("onprem", "hybrid")
PER_TOKEN = ("api",)

# (the recommendations it fits, title, detail), in the order shown; the data item comes first.
ITEMS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        RENTING,
        gettext_noop("Adapt job scheduling"),
        gettext_noop(
            "Scheduler and resource-management settings from a self-built environment "
            "may need rework in the cloud: dynamic resource requests, topology awareness."
        ),
    ),
    (
        RENTING,
        gettext_noop("Re-verify distributed training"),
        gettext_noop(
            "Cross-node training depends on fast interconnect; a dedicated network may be "
            "replaced by a general-purpose one in the cloud. Re-verify convergence speed "
            "on the new network before moving long runs."
        ),
    ),
    (
        OWNING,
        gettext_noop("Plan the build and its lead time"),
        gettext_noop(
            "Hardware selection, procurement approval, racking, networking and driver "
            "work usually take weeks or months; keep running in the cloud meanwhile."
        ),
    ),
    (
        OWNING,
        gettext_noop("Staff the operations"),
        gettext_noop(
            "Hardware inspection, driver and firmware upgrades, failed-card replacement, "
            "scheduler upkeep and storage capacity planning need a team with both "
            "systems and hardware experience."
        ),
    ),
    (
        PER_TOKEN,
        gettext_noop("Clear the provider's data terms"),
        gettext_noop(
            "Prompts and outputs go to the provider: read how long it keeps them, whether it "
            "trains on them and where it processes them, and have that approved before real "
            "data is sent."
        ),
    ),
    (
        PER_TOKEN,
        gettext_noop("Test quality and latency on your own prompts"),
        gettext_noop(
            "A hosted model of the same class is not your model: compare its answers on a "
            "sample of real prompts, and measure the latency your users see at your peak."
        ),
    ),
    (
        PER_TOKEN,
        gettext_noop("Plan for rate limits and a second provider"),
        gettext_noop(
            "Ask for the rate limits your peak needs, and keep a second provider of the same "
            "model class ready, so one provider's outage or price change does not stop you."
        ),
    ),
    (
        OUTCOMES,
        gettext_noop("Redefine monitoring, SLA and alerts"),
        gettext_noop(
            "Monitoring, logging and fault recovery differ between the two set-ups: define "
            "the SLA and alert rules again before moving, so no blind spot remains."
        ),
    ),
    (
        RENTING,
        gettext_noop("Change how costs are accounted"),
        gettext_noop(
            "A cloud bill has many billing items: set up budget monitoring before you move, so "
            "idle resources do not run up extra spending."
        ),
    ),
    (
        PER_TOKEN,
        gettext_noop("Change how costs are accounted"),
        gettext_noop(
            "A per-token bill grows with every request: set a spending limit and alerts, and "
            "watch the daily volume against the one at which GPUs pay off."
        ),
    ),
    (
        ("onprem",),
        gettext_noop("Change how costs are accounted"),
        gettext_noop(
            "Owned hardware is paid up front: track utilization against the plan, since idle "
            "GPUs still cost depreciation, power and staff."
        ),
    ),
)


@dataclass(frozen=True)
class Item:
    title: str
    detail: str


# What a build's wait is filled with, by the data residency answer: no item sends data that
# may not leave to the cloud (the key is the text the item has without a residency rule).
BUILD_WAIT = ITEMS[2][2]
BUILD_WAIT_BY_RESIDENCY = {
    "partial": gettext_noop(
        "Hardware selection, procurement approval, racking, networking and driver "
        "work usually take weeks or months; meanwhile keep the work whose data may leave "
        "running in the cloud, and plan the rest for when the hardware is racked."
    ),
    "all": gettext_noop(
        "Hardware selection, procurement approval, racking, networking and driver "
        "work usually take weeks or months; the data may not leave, so the work waits for "
        "the hardware: plan the first jobs for when it is racked, on servers you have now "
        "where they can take them."
    ),
}


def checklist_for(
    recommendation: str | None,
    answers: Mapping[str, Any],
    migration: Mapping[str, Any] | None,
    *,
    bursts_per_token: bool = False,
) -> list[Item]:
    """The items that fit the recommendation; `bursts_per_token`: a hybrid that owns the
    base and sends the bursts per token (the owning items and the per-token ones, none of
    renting GPUs)."""
    residency = answers.get("residency", "none")
    mixed = bursts_per_token and recommendation == "hybrid"
    fitting = [
        Item(_(title), _(BUILD_WAIT_BY_RESIDENCY.get(residency, detail)))
        if detail == BUILD_WAIT
        else Item(_(title), _(detail))
        for fits, title, detail in ITEMS
        if (fits in (OWNING, PER_TOKEN, OUTCOMES) if mixed else recommendation in fits)
    ]
    if recommendation in PER_TOKEN:  # no data to move: prompts are sent as they come
        return fitting
    return [_data_item(answers, migration), *fitting]


def _data_item(answers: Mapping[str, Any], migration: Mapping[str, Any] | None) -> Item:
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
