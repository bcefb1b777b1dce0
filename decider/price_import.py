"""Prices from public sources, checked before anyone sees them (issue 53).

`refresh()` reads one source (decider/price_sources.py), keeps every normalised row as a
PriceObservation (history: nothing is overwritten), and walks the ladder careful tools use
from each price a listed provider could take to its live ProviderPrice:

1. exactly one price among the rows that match (provider, GPU model, tier, the provider's
   reference region, its largest instance), else skipped with the reason;
2. a price outside $0.05–100 per GPU-hour, or zero, is refused (price_sources.Parsed.add);
3. a move of at most 1 % confirms the live price (its date and source move, its value not);
4. any larger move, or a price not listed yet, is proposed: a FigureChange in this run's
   draft, made current only by a publisher (decider/figure_changes.py); a move of more than
   40 % is a large move, approved one by one, never with the rest of the draft;
5. two sources more than 20 % apart on the same price raise a flag on both runs.

A source that cannot be read records a failed run (the admin says so) and changes nothing.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from django.db import transaction
from django.utils import timezone

from decider import figure_changes, price_sources
from decider.engine import gpus
from decider.engine.markets import MARKETS
from decider.models import (
    FigureChange,
    PriceImport,
    PriceObservation,
    Provider,
    ProviderPrice,
    TokenPrice,
)

FIGURE_OF_TIER = {
    "on_demand": "gpu_hour_on_demand",
    "spot": "gpu_hour_spot",
    "reserved_1y": "gpu_hour_reserved_1y",
    "reserved_3y": "gpu_hour_reserved_3y",
}
CONFIRM_PCT = 1.0  # a move this small confirms the live price
APPROVAL_PCT = 40.0  # a move larger than this is approved on its own
FLAG_PCT = 20.0  # two sources further apart than this are flagged
# Where a provider's prices differ by region, the region its price is read in.
REFERENCE_REGIONS = {"aws": "us-east-1", "azure": "eastus", "gcp": "us-central1"}
TIER_ZH = {
    "on_demand": "按需",
    "spot": "竞价",
    "reserved_1y": "1 年预留",
    "reserved_3y": "3 年预留",
    "savings_plan_1y": "1 年节省计划",
    "savings_plan_3y": "3 年节省计划",
}


class Priced(Protocol):
    provider: str
    sku: str
    region: str
    gpu_model: str
    gpu_count: int
    tier: str
    price_per_gpu_hour: float


@dataclass(frozen=True)
class Pick:
    """The one price the rows give for a (provider, GPU model, tier), or why none."""

    provider: str
    gpu_model: str
    tier: str
    rows: tuple[Any, ...]
    reason: str = ""

    @property
    def price(self) -> float:
        return self.rows[0].price_per_gpu_hour


def pick(rows: Iterable[Priced]) -> list[Pick]:
    """Step 1 of the ladder, per (provider, GPU model, tier): the rows in the provider's
    reference region on its largest instance must give exactly one price."""
    groups: dict[tuple[str, str, str], list[Priced]] = {}
    for row in rows:
        groups.setdefault((row.provider, row.gpu_model, row.tier), []).append(row)
    picks = []
    for (provider, model, tier), found in sorted(groups.items()):
        reference = REFERENCE_REGIONS.get(provider)
        if reference:
            found = [r for r in found if r.region.split("/")[0] == reference]
        if not found:
            picks.append(Pick(provider, model, tier, (), f"no row in region {reference}"))
            continue
        largest = max(r.gpu_count for r in found)
        found = [r for r in found if r.gpu_count == largest]
        prices = sorted({round(r.price_per_gpu_hour, 4) for r in found})
        reason = ""
        if len(prices) > 1:
            where = f"in {reference}" if reference else "across regions"
            reason = (
                f"{len(found)} rows {where} give {len(prices)} different prices "
                f"({prices[0]:g}–{prices[-1]:g} per GPU-hour): exactly one is needed"
            )
        picks.append(Pick(provider, model, tier, tuple(found), reason))
    return picks


def observed_at_of(path: str | None) -> datetime.datetime:
    """When the prices were observed: the capture date a recorded file's name carries
    (…-2026-11-30.csv), else now."""
    found = re.search(r"(\d{4}-\d{2}-\d{2})", path or "")
    if found:
        day = datetime.date.fromisoformat(found.group(1))
        return datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)
    return timezone.now()


def refresh(
    source: price_sources.Source,
    *,
    provider: str = "",
    text: str | None = None,
    path: str | None = None,
) -> PriceImport:
    """Read `source` (the recorded `text` of `path`, else over HTTPS), keep what it says and
    propose what changes. SourceUnreadable, after recording a failed run, when it cannot."""
    url = source.url(provider)
    observed_at = observed_at_of(path) if text is not None else timezone.now()
    try:
        if text is None:
            text = price_sources.fetch(url)
        if source.per_token:
            return token_refresh(source, text, url=path or url, observed_at=observed_at)
        parsed = source.parse(text, provider)
    except price_sources.SourceUnreadable as error:
        PriceImport.objects.create(
            source=source.key,
            provider=provider,
            url=path or url,
            observed_at=observed_at,
            state=PriceImport.FAILED,
            error=str(error),
        )
        raise
    with transaction.atomic():
        run = PriceImport.objects.create(
            source=source.key,
            provider=provider,
            url=path or url,
            observed_at=observed_at,
            read=parsed.read,
        )
        _observe(run, parsed.rows, source_url=url)
        run.report = _ladder(run, source, parsed)
        run.save(update_fields=["report"])
    return run


def _observe(run: PriceImport, rows: Sequence[price_sources.Row], *, source_url: str) -> None:
    """Keep every row as an observation; one already kept (the same row observed at the same
    time: the same file read again) is not kept twice."""
    PriceObservation.objects.bulk_create(
        [
            PriceObservation(
                price_import=run,
                source=run.source,
                source_url=source_url,
                provider=row.provider,
                sku=row.sku,
                region=row.region,
                gpu_model=row.gpu_model,
                gpu_count=row.gpu_count,
                tier=row.tier,
                price_per_gpu_hour=row.price_per_gpu_hour,
                currency=row.currency,
                observed_at=run.observed_at,
                raw=dict(row.raw),
            )
            for row in rows
        ],
        ignore_conflicts=True,
    )


def _ladder(run: PriceImport, source: price_sources.Source, parsed: Any) -> dict[str, Any]:
    report: dict[str, Any] = {
        "source": source.key,
        "provider": run.provider,
        "read": parsed.read,
        "observed_at": run.observed_at.isoformat(),
        "accepted": [_accepted(row, run.observed_at) for row in parsed.rows],
        "refused": parsed.refused,
        "ignored": parsed.ignored,
        "skipped": [],
        "proposed": [],
        "awaiting_approval": [],
        "unchanged": [],
        "flags": [],
    }
    providers = {
        p.key: p for p in Provider.objects.filter(key__in={r.provider for r in parsed.rows})
    }
    for found in pick(parsed.rows):
        name = FIGURE_OF_TIER.get(found.tier)
        what = {"provider": found.provider, "gpu_model": found.gpu_model, "tier": found.tier}
        listed = providers.get(found.provider)
        if name is None:
            continue  # a savings plan: kept as an observation, no figure of Decider's takes it
        if found.reason or listed is None:
            reason = found.reason or "not a listed provider (add it in the admin to price it)"
            report["skipped"].append({**what, "reason": reason})
            continue
        currency = MARKETS[listed.market].currency
        if found.rows[0].currency != currency:
            reason = f"priced in {found.rows[0].currency}; {listed.name}'s prices are in {currency}"
            report["skipped"].append({**what, "reason": reason})
            continue
        _step(run, source, listed, name, found, report)
        report["flags"].extend(_flags(run, found))
    return report


def _accepted(row: price_sources.Row, observed_at: datetime.datetime) -> dict[str, Any]:
    return {
        "provider": row.provider,
        "gpu_model": row.gpu_model,
        "tier": row.tier,
        "region": row.region,
        "price_per_gpu_hour": row.price_per_gpu_hour,
        "currency": row.currency,
        "observed_at": observed_at.isoformat(),
        "sku": row.sku,
        "gpu_count": row.gpu_count,
    }


def _step(
    run: PriceImport,
    source: price_sources.Source,
    provider: Provider,
    name: str,
    found: Pick,
    report: dict[str, Any],
) -> None:
    """Steps 3 and 4: confirm the live price, or propose the new one in the draft."""
    live = ProviderPrice.objects.filter(provider=provider, name=name, gpu_model=found.gpu_model)
    row = live.first()
    current = row.value if row is not None else None
    pct = round((found.price - current) / current * 100, 1) if current else None
    entry: dict[str, Any] = {
        "provider": found.provider,
        "gpu_model": found.gpu_model,
        "tier": found.tier,
        "current": current,
        "proposed": found.price,
        "change_pct": pct,
    }
    if row is not None and pct is not None and abs(pct) <= CONFIRM_PCT:
        _confirm(run, source, row, found)
        report["unchanged"].append(
            {k: entry[k] for k in ("provider", "gpu_model", "tier", "current")}
        )
        return
    large = pct is not None and abs(pct) > APPROVAL_PCT
    _propose(run, source, provider, name, found, row, large=large)
    report["awaiting_approval" if large else "proposed"].append(entry)


def _sourced(run: PriceImport, source: price_sources.Source, found: Pick) -> dict[str, Any]:
    """The fields of a ProviderPrice an import sets: value, date and its source in both
    languages, naming the row it was read from ("Imported:" marks it, figures.is_imported)."""
    row = found.rows[0]
    day = run.observed_at.date()
    model = gpus.gpu(found.gpu_model).label
    if row.tier.startswith("reserved"):
        hours = price_sources.HOURS["1 Year" if row.tier == "reserved_1y" else "3 Years"]
        sum_en = (
            f"{row.instance_price:g} {row.currency} for the term ÷ {hours:,} h ÷ {row.gpu_count}"
        )
        sum_zh = (
            f"整个期限 {row.instance_price:g} {row.currency} ÷ {hours:,} 小时 ÷ {row.gpu_count}"
        )
    else:
        sum_en = f"{row.instance_price:g} {row.currency}/h ÷ {row.gpu_count}"
        sum_zh = f"{row.instance_price:g} {row.currency}/小时 ÷ {row.gpu_count}"
    where = where_zh = source.url(run.provider)
    if run.url != where:  # replayed from a recorded file
        copy = run.url.rsplit("/", 1)[-1]
        where, where_zh = f"{where} (recorded copy {copy})", f"{where}（记录副本 {copy}）"
    return {
        "value": round(found.price, 4),
        "as_of": day,
        "source": (
            f"Imported: {source.label}, {row.sku} ({row.gpu_count} × {model}) in {row.region}, "
            f"{row.tier.replace('_', ' ')}: {sum_en} GPUs = {found.price:g} per GPU-hour, "
            f"observed {day:%Y-%m-%d}. {where}"
        ),
        "source_zh": (
            f"导入：{source.label}，{row.sku}（{row.gpu_count} × {model}），{row.region}，"
            f"{TIER_ZH.get(row.tier, row.tier)}：{sum_zh} 卡 = 每 GPU 小时 {found.price:g}，"
            f"观测于 {day:%Y-%m-%d}。{where_zh}"
        ),
    }


def _confirm(
    run: PriceImport, source: price_sources.Source, row: ProviderPrice, found: Pick
) -> None:
    """A move of at most 1 %: the live value stands, now dated and sourced by the import."""
    if row.as_of >= run.observed_at.date():
        return  # confirmed already, by this file or a newer one
    fields = _sourced(run, source, found)
    row.as_of, row.source, row.source_zh = fields["as_of"], fields["source"], fields["source_zh"]
    row._change_reason = f"confirmed by price import #{run.pk}"  # type: ignore[attr-defined]
    row.save(update_fields=["as_of", "source", "source_zh"])


def _propose(
    run: PriceImport,
    source: price_sources.Source,
    provider: Provider,
    name: str,
    found: Pick,
    live: ProviderPrice | None,
    *,
    large: bool,
) -> None:
    """Step 4: a waiting change in this run's draft; one an earlier import proposed for the
    same price is kept when it says the same, else replaced."""
    fields = _sourced(run, source, found)
    waiting = FigureChange.objects.filter(state=FigureChange.WAITING, model="providerprice")
    if live is not None:
        waiting = waiting.filter(object_id=live.pk, action=FigureChange.CHANGE)
    else:
        waiting = waiting.filter(
            action=FigureChange.ADD,
            values__provider=provider.pk,
            values__name=name,
            values__gpu_model=found.gpu_model,
        )
    for change in waiting.filter(price_import__isnull=False):
        if change.values.get("value") == fields["value"]:
            return  # proposed already: reading the same prices again changes nothing
        change.state = FigureChange.DISCARDED
        change.save(update_fields=["state"])
    was = f"{live.value:g}" if live is not None else "new"
    row = live or ProviderPrice(provider=provider, name=name, gpu_model=found.gpu_model)
    for key, value in fields.items():
        setattr(row, key, value)
    action = FigureChange.CHANGE if live is not None else FigureChange.ADD
    change = figure_changes.change_propose(user=None, row=row, action=action)
    if change is not None:
        change.summary = (
            f"{provider.key} {found.gpu_model} {found.tier.replace('_', ' ')}: {was} → "
            f"{fields['value']:g} per GPU-hour ({source.label}, import #{run.pk})"
        )
        change.price_import, change.large_move = run, large
        change.save(update_fields=["summary", "price_import", "large_move"])


def _flags(run: PriceImport, found: Pick) -> list[dict[str, Any]]:
    """Step 5: this source's price against the latest other sources' for the same price; a
    gap of more than 20 % is flagged here and on the other source's run."""
    flags = []
    others = PriceObservation.objects.filter(
        provider=found.provider, gpu_model=found.gpu_model, tier=found.tier
    ).exclude(source=run.source)
    for other_source in sorted(set(others.values_list("source", flat=True))):
        theirs = others.filter(source=other_source)
        latest = theirs.order_by("-observed_at").first()
        assert latest is not None
        picked = [p for p in pick(theirs.filter(observed_at=latest.observed_at)) if not p.reason]
        if not picked:
            continue
        low, high = sorted((found.price, picked[0].price))
        gap = (high - low) / low * 100
        if gap > FLAG_PCT:
            flag = {
                "provider": found.provider,
                "gpu_model": found.gpu_model,
                "tier": found.tier,
                "prices": {run.source: found.price, other_source: picked[0].price},
                "gap_pct": round(gap, 1),
            }
            flags.append(flag)
            other_run = latest.price_import
            other_run.report.setdefault("flags", []).append(flag)
            other_run.save(update_fields=["report"])
    return flags


def publish_draft(run: PriceImport, *, user: Any) -> tuple[int, list[str]]:
    """Make the run's waiting changes current, all but the large moves (each approved on its
    own): (how many, the refusals). Needs the right to publish, as every live figure does."""
    done, refused = 0, []
    for change in run.changes.filter(state=FigureChange.WAITING, large_move=False).order_by("pk"):
        try:
            figure_changes.change_publish(change, user=user)
        except figure_changes.ChangeRefused as error:
            refused.append(f"{change.summary}: {error}")
        else:
            done += 1
    return done, refused


# Per-token prices (LiteLLM's table) --------------------------------------------------------

LITELLM_KEY = re.compile(r"key '([^']+)'")


def token_refresh(
    source: price_sources.Source, text: str, *, url: str, observed_at: datetime.datetime
) -> PriceImport:
    """The same ladder for the per-token prices read from LiteLLM's table: each TokenPrice
    whose source names a key of the table is confirmed, or a change is proposed in the run's
    draft. SourceUnreadable (before anything is kept) when the text is not the table."""
    priced, refused, read = price_sources.litellm(text)
    with transaction.atomic():
        run = PriceImport.objects.create(
            source=source.key, url=url, observed_at=observed_at, read=read
        )
        report: dict[str, Any] = {
            "source": source.key,
            "provider": "",
            "read": read,
            "observed_at": observed_at.isoformat(),
            "accepted": [],
            "refused": refused,
            "ignored": read - len(priced) - len(refused),
            "skipped": [],
            "proposed": [],
            "awaiting_approval": [],
            "unchanged": [],
            "flags": [],
        }
        for row in TokenPrice.objects.order_by("pk"):
            if (key := _litellm_key(row.source)) is not None:
                _token_step(run, source, row, priced.get(key), key, report)
        run.report = report
        run.save(update_fields=["report"])
    return run


def _litellm_key(source: str) -> str | None:
    found = LITELLM_KEY.search(source)
    return found.group(1) if found else None


def _token_step(
    run: PriceImport,
    source: price_sources.Source,
    row: TokenPrice,
    found: price_sources.TokenRow | None,
    key: str,
    report: dict[str, Any],
) -> None:
    what = {"provider": row.provider, "gpu_model": "", "model": row.model, "tier": "per_token"}
    if found is None:
        report["skipped"].append({**what, "reason": f"the table prices no “{key}”"})
        return
    report["accepted"].append(
        {
            **what,
            "region": "",
            "price_per_gpu_hour": None,
            "price_in_per_m": found.price_in_per_m,
            "price_out_per_m": found.price_out_per_m,
            "currency": "USD",
            "observed_at": run.observed_at.isoformat(),
        }
    )
    moves: list[float] = [
        (float(new) - float(old)) / float(old) * 100
        for new, old in (
            (found.price_in_per_m, row.price_in_per_m),
            (found.price_out_per_m, row.price_out_per_m),
        )
        if old
    ]
    pct = round(sorted(moves, key=lambda m: -abs(m))[0], 1) if moves else None
    current = {"in": row.price_in_per_m, "out": row.price_out_per_m}
    if pct is not None and abs(pct) <= CONFIRM_PCT:
        report["unchanged"].append({**what, "current": current})
        return
    large = pct is not None and abs(pct) > APPROVAL_PCT
    entry = {
        **what,
        "current": current,
        "proposed": {"in": found.price_in_per_m, "out": found.price_out_per_m},
        "change_pct": pct,
    }
    report["awaiting_approval" if large else "proposed"].append(entry)
    _token_propose(run, source, row, found, key, large=large)


def _token_propose(
    run: PriceImport,
    source: price_sources.Source,
    row: TokenPrice,
    found: price_sources.TokenRow,
    key: str,
    *,
    large: bool,
) -> None:
    waiting = FigureChange.objects.filter(
        state=FigureChange.WAITING, model="tokenprice", object_id=row.pk, price_import__isnull=False
    )
    for change in waiting:
        if (change.values.get("price_in_per_m"), change.values.get("price_out_per_m")) == (
            found.price_in_per_m,
            found.price_out_per_m,
        ):
            return  # proposed already
        change.state = FigureChange.DISCARDED
        change.save(update_fields=["state"])
    was = f"{row.price_in_per_m:g}/{row.price_out_per_m:g}"
    day = run.observed_at.date().isoformat()
    row.price_in_per_m, row.price_out_per_m = found.price_in_per_m, found.price_out_per_m
    row.as_of = day
    row.source = (
        f"Imported: {source.label}, key '{key}': {found.price_in_per_m:g} per million input "
        f"tokens and {found.price_out_per_m:g} per million output tokens, observed {day}. "
        f"{run.url}"
    )
    change = figure_changes.change_propose(user=None, row=row, action=FigureChange.CHANGE)
    if change is not None:
        change.summary = (
            f"{row.provider} {row.model}: {was} → {found.price_in_per_m:g}/"
            f"{found.price_out_per_m:g} per million tokens ({source.label}, import #{run.pk})"
        )[:300]
        change.price_import, change.large_move = run, large
        change.save(update_fields=["summary", "price_import", "large_move"])
