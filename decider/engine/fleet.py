"""GPUs already owned: the answers' `owned` list, checked, and what the cost model reads of it.

`owned` is a list of {"gpu_model": "a100", "gpus": 128, "bought": "2023-06"}. The entries of
the assessment's GPU model are its fleet: owning them needs no purchase and no cloud bridge
while hardware arrives; an option that owns fewer sells the rest today, at their resale value
for their age; those kept are resold at the end for their age then (engine/costs.py,
engine/stages.py). Entries of another GPU model are kept with the answers but not priced: the
comparison is for one model, and the page says which were left out.

Ages are counted to `owned_as_of` ("2026-12"), which the answers carry so that a saved
result prices the fleet the same on every view; checking answers without it sets it to the
month they were checked.

Plain Python: no Django.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from decider.engine.gpus import DEFAULT as DEFAULT_GPU_MODEL
from decider.engine.i18n import gettext

MAX_ENTRIES = 20
MAX_GPUS = 1_000_000
EARLIEST_YEAR = 2010
_MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
ENTRY_KEYS = frozenset({"gpu_model", "gpus", "bought"})


def month_of(text: Any) -> tuple[int, int] | None:
    """(year, month) of a "YYYY-MM" text, or None."""
    if not isinstance(text, str) or not (found := _MONTH.match(text)):
        return None
    return int(found.group(1)), int(found.group(2))


def month_text(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def owned_given(
    raw: Any, *, as_of: Any, gpu_models: Mapping[str, str]
) -> tuple[list[dict[str, Any]], str, tuple[str, str] | None]:
    """The answers' `owned` checked: (entries, the month ages count to, None), or
    ([], "", (key, message)) naming the first thing wrong (`owned.0.bought`).

    `as_of`: the answers' `owned_as_of` (None: this month); `gpu_models`: key → name."""
    as_of = month_text(date.today()) if as_of is None else as_of
    until = month_of(as_of)
    if until is None:
        return [], "", ("owned_as_of", gettext("must be a month as YYYY-MM, e.g. 2026-12"))
    if not isinstance(raw, list):
        return [], "", ("owned", gettext("must be a list of {gpu_model, gpus, bought}"))
    if len(raw) > MAX_ENTRIES:
        return [], "", ("owned", gettext("at most %(count)s entries") % {"count": MAX_ENTRIES})
    entries = []
    for index, entry in enumerate(raw):
        key = f"owned.{index}"
        if not isinstance(entry, Mapping) or set(entry) != ENTRY_KEYS:
            return [], "", (key, gettext("must be an object of gpu_model, gpus and bought"))
        # A list or an object is no key of the table (and cannot be looked up in it).
        if not isinstance(entry["gpu_model"], str) or entry["gpu_model"] not in gpu_models:
            allowed = ", ".join(gpu_models)
            return (
                [],
                "",
                (f"{key}.gpu_model", gettext("one of %(allowed)s") % {"allowed": allowed}),
            )
        gpus = entry["gpus"]
        if isinstance(gpus, bool) or not isinstance(gpus, int) or not 1 <= gpus <= MAX_GPUS:
            message = gettext("a whole number from 1 to %(most)s") % {"most": f"{MAX_GPUS:,}"}
            return [], "", (f"{key}.gpus", message)
        bought = month_of(entry["bought"])
        if bought is None or bought[0] < EARLIEST_YEAR:
            message = gettext("the month bought, as YYYY-MM from %(year)s") % {
                "year": EARLIEST_YEAR
            }
            return [], "", (f"{key}.bought", message)
        if bought > until:
            message = gettext("must not be after %(month)s (owned_as_of)") % {"month": as_of}
            return [], "", (f"{key}.bought", message)
        entries.append({"gpu_model": entry["gpu_model"], "gpus": gpus, "bought": entry["bought"]})
    return entries, as_of, None


@dataclass(frozen=True)
class Fleet:
    """The GPUs of the assessment's model already owned, and what else is owned."""

    gpus: int = 0
    age_years: float = 0.0  # weighted by GPUs, counted to owned_as_of
    others: tuple[dict[str, Any], ...] = ()  # entries of other GPU models: not priced


def fleet_of(answers: Mapping[str, Any]) -> Fleet:
    """The fleet checked answers describe (none when they list no GPUs owned)."""
    entries = answers.get("owned") or []
    until = month_of(answers.get("owned_as_of")) or (date.today().year, date.today().month)
    model = answers.get("gpu_model") or DEFAULT_GPU_MODEL
    mine = [entry for entry in entries if entry["gpu_model"] == model]
    others = tuple(entry for entry in entries if entry["gpu_model"] != model)
    gpus = sum(entry["gpus"] for entry in mine)
    if not gpus:
        return Fleet(others=others)
    months = 0.0
    for entry in mine:
        year, month = month_of(entry["bought"]) or until
        months += entry["gpus"] * max((until[0] - year) * 12 + until[1] - month, 0)
    return Fleet(gpus=gpus, age_years=months / gpus / 12, others=others)
