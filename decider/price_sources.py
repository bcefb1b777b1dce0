"""Public price sources read in their own formats, one adapter each (issue 53).

Plain Python, no Django: an adapter turns a source's text (a page of the Azure Retail Prices
API, a SkyPilot catalog's `vms.csv`, a gpuhunt catalog CSV) into normalised rows, each a price
per GPU-hour in one tier, and the rows it refuses with the reason. Which normalised row becomes
a live price, and when, is decided in decider/price_import.py (the checking ladder).

docs/PROVIDERS.md explains each source, its pitfalls and the ladder.
"""

from __future__ import annotations

import csv
import io
import json
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

# A price per GPU-hour outside this range is a mistake in the source, not a price.
LOWEST, HIGHEST = 0.05, 100.0
HOURS = {"1 Year": 8760, "3 Years": 3 * 8760}  # a reservation's price is for its whole term
TIERS = ("on_demand", "spot", "reserved_1y", "reserved_3y", "savings_plan_1y", "savings_plan_3y")
FETCH_TIMEOUT_S = 30
MAX_PAGES = 20  # Azure's pages of 1,000 rows: the GPU SKUs asked for fill one or two

# The source's GPU name → Decider's GPU model (decider/engine/gpus.py). The A100 Decider
# prices is the 80 GB part; the H100 and A100 are the SXM parts (PCIe and NVL are apart).
GPU_NAMES = {
    "H100": "h100",
    "H100-80GB": "h100",
    "H100-MEGA-80GB": "h100",
    "H200": "h200",
    "H200-141GB": "h200",
    "B200": "b200",
    "A100-80GB": "a100",
    "L40S": "l40s",
    "H20": "h20",
}
PCIE_MARKS = ("pcie", "nvl")
# Azure names the GPU only in its VM size: (GPU model, GPUs per VM).
AZURE_SKUS = {
    "Standard_ND96isr_H100_v5": ("h100", 8),
    "Standard_ND96isr_H200_v5": ("h200", 8),
    "Standard_ND96amsr_A100_v4": ("a100", 8),
}
AZURE_URL = "https://prices.azure.com/api/retail/prices"
SKYPILOT_URL = (
    "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v7/"
    "{provider}/vms.csv"
)
# dstack publishes one catalog per provider, rebuilt hourly: its version, then a zip holding
# `<provider>.csv` (the layout as gpuhunt's publishing workflow writes it, v3).
GPUHUNT_BASE = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3"
GPUHUNT_URL = GPUHUNT_BASE + "/{provider}/version"
# The source's name of a cloud → Decider's provider key (fixtures/providers.json).
PROVIDER_KEYS = {"lambdalabs": "lambda"}


class SourceUnreadable(Exception):
    """The source could not be read (no network, an HTTP error, a file not in its format)."""


@dataclass(frozen=True)
class Row:
    """One price a source publishes, normalised: per GPU-hour, in one tier."""

    provider: str
    sku: str
    region: str
    gpu_model: str
    gpu_count: int
    tier: str
    instance_price: float  # per instance-hour (or per term, for a reservation), as read
    price_per_gpu_hour: float
    currency: str
    line: int  # where it is in what was read, from 1
    raw: Mapping[str, Any] = field(compare=False)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.provider, self.sku, self.region, self.tier)


@dataclass
class Parsed:
    """What an adapter made of a source's text."""

    rows: list[Row] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    ignored: int = 0  # rows of GPUs Decider does not price (V100, A6000, an A100 40 GB...)
    read: int = 0

    def refuse(self, line: int, raw: Mapping[str, Any], reason: str) -> None:
        self.refused.append({"row": {"line": line, **raw}, "reason": reason})

    def add(self, row: Row) -> None:
        """Keep `row` unless its price is out of bounds or it repeats one already kept."""
        if row.price_per_gpu_hour <= 0:
            self.refuse(row.line, row.raw, "zero price: the source published no price")
        elif not LOWEST <= row.price_per_gpu_hour <= HIGHEST:
            self.refuse(
                row.line,
                row.raw,
                f"{row.price_per_gpu_hour:g} per GPU-hour is outside {LOWEST}–{HIGHEST:g}",
            )
        elif (first := next((r for r in self.rows if r.key == row.key), None)) is not None:
            self.refuse(
                row.line, row.raw, f"duplicate of line {first.line} (same SKU, region, tier)"
            )
        else:
            self.rows.append(row)


def gpu_model_of(name: str, memory_gib: float | None, sku: str) -> str | None:
    """Decider's GPU model for a source's GPU name, or None when Decider does not price it."""
    model = GPU_NAMES.get(name.strip())
    if name.strip().upper() == "A100" and memory_gib is not None and memory_gib >= 79:
        model = "a100"
    if model in ("h100", "h200", "a100") and any(m in sku.lower() for m in PCIE_MARKS):
        return None
    return model


def _number(text: Any) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _row(parsed: Parsed, **kw: Any) -> None:
    price, count = kw["instance_price"], kw["gpu_count"]
    hours = kw.pop("hours", 1)
    parsed.add(Row(**kw, price_per_gpu_hour=round(price / hours / count, 6)))


# SkyPilot's catalog ------------------------------------------------------------------------


def skypilot(text: str, provider: str) -> Parsed:
    """One cloud's `vms.csv`: `Price` and `SpotPrice` per instance-hour for
    `AcceleratorCount` GPUs. A row without GPUs prices a host; on GCP a row with GPUs and no
    instance type prices the GPUs without their host: both refused."""
    parsed = Parsed()
    for line, raw in _csv_rows(text, required=("InstanceType", "AcceleratorName", "Price")):
        parsed.read += 1
        name, sku = raw.get("AcceleratorName") or "", raw.get("InstanceType") or ""
        count = int(_number(raw.get("AcceleratorCount")) or 0)
        if not name or count <= 0:
            parsed.refuse(line, raw, "host only: the row prices a machine without its GPUs")
            continue
        if not sku:
            parsed.refuse(line, raw, "GPUs only: the row prices the GPUs without their host")
            continue
        model = gpu_model_of(name, _skypilot_memory(raw.get("GpuInfo") or ""), sku)
        if model is None:
            parsed.ignored += 1
            continue
        region = raw.get("Region") or ""
        if zone := raw.get("AvailabilityZone"):
            region = f"{region}/{zone}"
        for tier, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
            price = _number(raw.get(column))
            if price is None:
                continue
            _row(
                parsed,
                provider=PROVIDER_KEYS.get(provider, provider),
                sku=sku,
                region=region,
                gpu_model=model,
                gpu_count=count,
                tier=tier,
                instance_price=price,
                currency="USD",
                line=line,
                raw=raw,
            )
    return parsed


def _skypilot_memory(gpu_info: str) -> float | None:
    """GPU memory in GiB from SkyPilot's GpuInfo (a Python literal: ...'SizeInMiB': 40960...)."""
    marker = "'SizeInMiB': "
    if marker not in gpu_info:
        return None
    digits = gpu_info.split(marker, 1)[1].split("}", 1)[0].split(",", 1)[0]
    size = _number(digits)
    return size / 1024 if size else None


# dstack's gpuhunt catalogs ---------------------------------------------------------------


def gpuhunt(text: str, provider: str) -> Parsed:
    """One provider's catalog CSV: `price` per instance-hour for `gpu_count` GPUs, `spot`
    True or False."""
    parsed = Parsed()
    for line, raw in _csv_rows(text, required=("instance_name", "price", "gpu_count", "gpu_name")):
        parsed.read += 1
        count = int(_number(raw.get("gpu_count")) or 0)
        if count <= 0 or not raw.get("gpu_name"):
            parsed.refuse(line, raw, "host only: the row prices a machine without its GPUs")
            continue
        sku = raw["instance_name"]
        if "dws" in (raw.get("flags") or "").lower():
            parsed.refuse(
                line, raw, "Dynamic Workload Scheduler (calendar mode): a booking, not on demand"
            )
            continue
        model = gpu_model_of(raw["gpu_name"], _number(raw.get("gpu_memory")), sku)
        price = _number(raw.get("price"))
        if model is None:
            parsed.ignored += 1
            continue
        _row(
            parsed,
            provider=PROVIDER_KEYS.get(provider, provider),
            sku=sku,
            region=raw.get("location") or "",
            gpu_model=model,
            gpu_count=count,
            tier="spot" if (raw.get("spot") or "").lower() == "true" else "on_demand",
            instance_price=price or 0.0,
            currency="USD",
            line=line,
            raw=raw,
        )
    return parsed


def _csv_rows(text: str, *, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in required if c not in (reader.fieldnames or ())]
    if missing:
        raise SourceUnreadable(
            f"not in the source's format: no column {', '.join(missing)} "
            f"(columns: {', '.join(reader.fieldnames or ()) or 'none'})"
        )
    for number, raw in enumerate(reader, start=2):  # line 1 is the header
        yield number, {k: v for k, v in raw.items() if k is not None}


# Azure Retail Prices API ------------------------------------------------------------------


def azure(text: str, provider: str = "azure") -> Parsed:
    """Pages of the Retail Prices API (`{"Items": [...], "NextPageLink": ...}`, one page or a
    list of pages). Windows rows share the Linux meter (only `productName` says Windows),
    Low Priority is Batch's retired tier, Dev/Test is not a list price: refused."""
    parsed = Parsed()
    for line, item in enumerate(_azure_items(text), start=1):
        parsed.read += 1
        known = AZURE_SKUS.get(item.get("armSkuName") or "")
        if known is None:
            parsed.ignored += 1
            continue
        if reason := _azure_refusal(item):
            parsed.refuse(line, item, reason)
            continue
        model, count = known
        for tier, price, hours in _azure_tiers(item):
            _row(
                parsed,
                provider="azure",
                sku=item["armSkuName"],
                region=item.get("armRegionName") or "",
                gpu_model=model,
                gpu_count=count,
                tier=tier,
                instance_price=price,
                hours=hours,
                currency=item.get("currencyCode") or "USD",
                line=line,
                raw=item,
            )
    return parsed


def _azure_items(text: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise SourceUnreadable(f"not JSON: {error}") from error
    pages = data if isinstance(data, list) else [data]
    if not all(isinstance(p, dict) and isinstance(p.get("Items"), list) for p in pages):
        raise SourceUnreadable("not a page of the Retail Prices API: no “Items” list")
    return [item for page in pages for item in page["Items"] if isinstance(item, dict)]


def _azure_refusal(item: Mapping[str, Any]) -> str | None:
    if (item.get("productName") or "").endswith(" Windows"):
        return "Windows: the price includes a Windows licence (the Linux row is the price)"
    if "Low Priority" in (item.get("meterName") or ""):
        return "Low Priority: Azure Batch's retired tier, not a price Decider uses"
    if item.get("type") not in ("Consumption", "Reservation"):
        return f"type “{item.get('type')}”: not a list price"
    if item.get("type") == "Reservation" and item.get("reservationTerm") not in HOURS:
        return f"reservation term “{item.get('reservationTerm')}” not known"
    return None


def _azure_tiers(item: Mapping[str, Any]) -> Iterator[tuple[str, float, int]]:
    """(tier, price, hours it covers) of one row: a reservation is priced for its term, a
    consumption row per hour, with its savings plans beside it."""
    price = float(_number(item.get("retailPrice")) or 0.0)
    if item["type"] == "Reservation":
        term = item["reservationTerm"]
        yield ("reserved_1y" if term == "1 Year" else "reserved_3y"), price, HOURS[term]
        return
    yield ("spot" if " Spot" in (item.get("meterName") or "") else "on_demand"), price, 1
    for plan in item.get("savingsPlan") or ():
        term = plan.get("term")
        if term in HOURS:
            tier = "savings_plan_1y" if term == "1 Year" else "savings_plan_3y"
            yield tier, float(_number(plan.get("retailPrice")) or 0.0), 1


def azure_url() -> str:
    skus = " or ".join(f"armSkuName eq '{sku}'" for sku in AZURE_SKUS)
    query = f"serviceName eq 'Virtual Machines' and ({skus})"
    return f"{AZURE_URL}?{urllib.parse.urlencode({'$filter': query})}"


# LiteLLM's model price table -------------------------------------------------------------

LITELLM_URL = (
    "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json"
)


@dataclass(frozen=True)
class TokenRow:
    """One hosted model's list price per million tokens, as the table gives it."""

    key: str  # the table's key, e.g. "deepinfra/meta-llama/Meta-Llama-3.1-8B-Instruct"
    price_in_per_m: float
    price_out_per_m: float
    raw: Mapping[str, Any] = field(compare=False)


def litellm(text: str) -> tuple[dict[str, TokenRow], list[dict[str, Any]], int]:
    """The table's chat models priced per token: (priced by key, refused, entries read). An
    entry without both prices, or priced at zero, is refused with the reason."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise SourceUnreadable(f"not JSON: {error}") from error
    if not isinstance(data, dict):
        raise SourceUnreadable("not LiteLLM's price table: no object of models")
    priced: dict[str, TokenRow] = {}
    refused: list[dict[str, Any]] = []
    for key, entry in data.items():
        if key == "sample_spec" or not isinstance(entry, dict) or entry.get("mode") != "chat":
            continue
        given_in = _number(entry.get("input_cost_per_token"))
        given_out = _number(entry.get("output_cost_per_token"))
        if given_in is None or given_out is None:
            refused.append({"row": {"key": key}, "reason": "no price per input and output token"})
        elif given_in <= 0 or given_out <= 0:
            refused.append({"row": {"key": key}, "reason": "zero price: the table gives none"})
        else:
            priced[key] = TokenRow(key, round(given_in * 1e6, 6), round(given_out * 1e6, 6), entry)
    return priced, refused, len(data)


# Reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    key: str
    label: str
    parse: Callable[[str, str], Parsed]
    url: Callable[[str], str]
    per_provider: bool  # one file per cloud: `--provider` names it
    per_token: bool = False  # per-token prices (TokenPrice), not GPU-hours


SOURCES: dict[str, Source] = {
    "azure": Source("azure", "Azure Retail Prices API", azure, lambda _p: azure_url(), False),
    "skypilot": Source(
        "skypilot",
        "SkyPilot catalog",
        skypilot,
        lambda p: SKYPILOT_URL.format(provider=p),
        True,
    ),
    "gpuhunt": Source(
        "gpuhunt",
        "dstack gpuhunt catalog",
        gpuhunt,
        lambda p: GPUHUNT_URL.format(provider=p),
        True,
    ),
    "litellm": Source(
        "litellm",
        "LiteLLM model price table",
        lambda _text, _provider: Parsed(),  # read by litellm(): per-token, not per GPU-hour
        lambda _p: LITELLM_URL,
        False,
        per_token=True,
    ),
}


def fetch(url: str, *, timeout: float = FETCH_TIMEOUT_S) -> str:
    """The text at `url` over HTTPS; Azure's pages followed to the last, gpuhunt's current
    catalog found by its version. SourceUnreadable with the reason when it cannot be read."""
    if url.startswith(GPUHUNT_BASE) and url.endswith("/version"):
        return _gpuhunt_catalog(url, timeout)
    pages: list[Any] = []
    next_url: str | None = url
    while next_url and len(pages) < MAX_PAGES:
        text = _get(next_url, timeout)
        if not next_url.startswith(AZURE_URL):
            return text
        try:
            page = json.loads(text)
        except ValueError as error:
            raise SourceUnreadable(f"{next_url} did not answer with JSON: {error}") from error
        pages.append(page)
        next_url = page.get("NextPageLink")
    return json.dumps(pages)


def _gpuhunt_catalog(version_url: str, timeout: float) -> str:
    """The CSV inside the provider's current catalog zip."""
    version = _get(version_url, timeout).strip()
    zip_url = version_url.removesuffix("/version") + f"/{version}/catalog.zip"
    try:
        with zipfile.ZipFile(io.BytesIO(_get_bytes(zip_url, timeout))) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".csv"))
            return archive.read(name).decode("utf-8")
    except (zipfile.BadZipFile, StopIteration, UnicodeDecodeError) as error:
        raise SourceUnreadable(f"{zip_url} holds no catalog CSV: {error}") from error


def _get(url: str, timeout: float) -> str:
    try:
        return _get_bytes(url, timeout).decode("utf-8")
    except UnicodeDecodeError as error:
        raise SourceUnreadable(f"{url} did not answer with text: {error}") from error


def _get_bytes(url: str, timeout: float) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "decider-refresh-prices"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return bytes(response.read())
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        raise SourceUnreadable(f"could not read {url}: {reason}") from error
