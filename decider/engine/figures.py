"""The cost figures: every figure the cost model reads, with its label, unit and bounds.

This registry is the one place that knows a figure. The cost model reads its
values by these names, the budget step builds its fields from it, the charts
and pages take its labels and units, and overrides (wizard, API, `decide`)
and admin edits are checked against its bounds. A figure's value, source and
date are data (fixtures/assumptions.json, edited in the admin); what the
number means is code.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from decider.engine import markets
from decider.engine.i18n import gettext
from decider.engine.text import Text, is_chinese, json_repr, number_text

Kind = Literal["money", "share", "number"]

# What a figure set for one assessment is marked with, instead of a source.
OVERRIDE_SOURCE = "set for this assessment"
OVERRIDE_SOURCE_ZH = "本评估自行设定"


@dataclass(frozen=True)
class FigureSpec:
    """What a cost figure means. `kind`: money (USD, converted for display), a share
    (0–1) or another number. `adjustable`: offered on the budget step.
    `sensitivity`: varied ±20 % in the tornado. `min` and `max` bound what anyone
    may set (overrides and admin edits): every figure has a maximum, far above any
    real price, so that no total can overflow to infinity or NaN."""

    name: str
    label: Text
    unit: Text
    kind: Kind = "number"
    min: float = 0.0
    max: float | None = None
    whole: bool = False
    whole_months: bool = False  # a number of years that is a whole number of months
    # Besides 0 (the line left out), no value below this (a server's life under a year).
    least_unless_zero: float | None = None
    adjustable: bool = True
    sensitivity: bool = False

    def unit_in(self, currency: str) -> Text:
        """The unit with money in `currency` (a price set's own): "CNY per node", "元/节点"."""
        if self.kind != "money" or currency == "USD":
            return self.unit
        zh = markets.CURRENCY[currency].name_zh if currency in markets.CURRENCY else currency
        return Text(self.unit.en.replace("USD", currency), self.unit.zh.replace("美元", zh))

    def problem(self, value: float, *, shown: str = "") -> str | None:
        """Why `value` cannot be this figure, or None. `shown`: the value as written, when
        `value` (an infinity) stands in for an integer too large for a float."""
        if math.isnan(value) or (math.isinf(value) and not shown):
            return gettext("must be a finite number")
        shown = shown or _number_shown(value)
        if value < self.min:
            if self.min == 0:
                return gettext("must not be negative, got %(value)s") % {"value": shown}
            return gettext("must be at least %(min)s, got %(value)s") % {
                "min": number_text(self.min),
                "value": shown,
            }
        if self.max is not None and value > self.max:
            return gettext("must be at most %(max)s, got %(value)s") % {
                "max": number_text(self.max),
                "value": shown,
            }
        if self.whole and not float(value).is_integer():
            return gettext("must be a whole number, got %(value)s") % {"value": shown}
        if self.least_unless_zero and 0 < value < self.least_unless_zero:
            return gettext("must be 0 or at least %(min)s, got %(value)s") % {
                "min": number_text(self.least_unless_zero),
                "value": shown,
            }
        if self.whole_months and abs(value * 12 - round(value * 12)) > 1e-6:
            return gettext(
                "must be a whole number of months (2.5 years is 30 months), got %(value)s"
            ) % {"value": shown}
        return None


def _number_shown(value: float) -> str:
    """number_text, but 1e308 stays 1e+308 rather than 309 digits."""
    return number_text(value) if abs(value) < 1e15 else f"{value:.6g}"


@dataclass(frozen=True)
class Figure:
    """One figure's value with where it comes from and when it was checked."""

    name: str
    value: float
    source: str
    as_of: str  # ISO date, e.g. "2025-06-01"
    source_zh: str = ""  # the source in Chinese, where the data has it

    @property
    def spec(self) -> FigureSpec:
        return FIGURES[self.name]

    @property
    def estimated(self) -> bool:
        """Whether no published figure stands behind it: its source says it is an estimate
        (the price sets write "Estimate: ..." and say how it was derived)."""
        return is_estimate(self.source)

    def source_in(self, language: str | None) -> str:
        """The source in `language`: Chinese where the data has it, else the English one."""
        if is_chinese(language) and self.source_zh:
            return self.source_zh
        return self.source


def _spec(name: str, en: str, zh: str, unit_en: str, unit_zh: str, **kw: Any) -> FigureSpec:
    return FigureSpec(name, Text(en, zh), Text(unit_en, unit_zh), **kw)


FIGURES: dict[str, FigureSpec] = {
    spec.name: spec
    for spec in [
        _spec(
            "gpus_per_node",
            "GPUs per server",
            "每台服务器GPU数量",
            "GPUs per node",
            "GPU/节点",
            min=1,
            whole=True,
            max=64,
        ),
        _spec(
            "server_price",
            "Server price per node",
            "每节点服务器价格",
            "USD per node",
            "美元/节点",
            kind="money",
            sensitivity=True,
            max=10_000_000,
        ),
        _spec(
            "network_per_node",
            "Network (InfiniBand or RoCE) per node",
            "每节点网络（InfiniBand 或 RoCE）费用",
            "USD per node",
            "美元/节点",
            kind="money",
            sensitivity=True,
            max=1_000_000,
        ),
        _spec(
            "storage_capex_per_tb",
            "Storage hardware per TB",
            "每TB存储硬件费用",
            "USD per TB",
            "美元/TB",
            kind="money",
            sensitivity=True,
            max=100_000,
        ),
        _spec(
            "setup_cost",
            "One-off set-up",
            "一次性部署费用",
            "USD (one-off)",
            "美元（一次性）",
            kind="money",
            sensitivity=True,
            max=1_000_000_000,
        ),
        _spec(
            "node_kw",
            "Power per node",
            "每节点功耗",
            "kW per node at full load",
            "千瓦/节点（满载）",
            max=200,
        ),
        _spec(
            "idle_share",
            "Power drawn when idle",
            "空闲时功耗占比",
            "share of node power drawn when idle (0–1)",
            "空闲时节点功耗占满载的比例（0–1）",
            kind="share",
            max=1,
        ),
        _spec(
            "pue",
            "PUE (facility overhead)",
            "PUE（机房能耗系数）",
            "ratio (facility power / IT power)",
            "比值（机房总功耗 / IT功耗）",
            sensitivity=True,
            max=10,
        ),
        _spec(
            "kwh_price",
            "Electricity price",
            "电价",
            "USD per kWh",
            "美元/千瓦时",
            kind="money",
            sensitivity=True,
            max=10,
        ),
        _spec(
            "colo_kw_month",
            "Colocation per kW-month",
            "每千瓦每月机房托管费",
            "USD per kW-month of IT load",
            "美元/千瓦·月（IT负载）",
            kind="money",
            sensitivity=True,
            max=10_000,
        ),
        _spec(
            "maintenance_rate",
            "Maintenance per year (share of hardware)",
            "每年维保费用（占硬件费用比例）",
            "share of hardware cost per year",
            "每年占硬件费用的比例",
            kind="share",
            max=1,
            sensitivity=True,
        ),
        _spec(
            "fte_cost",
            "Loaded cost of one engineer per year",
            "每名工程师年度综合成本",
            "USD per FTE-year, loaded",
            "美元/人·年（含各项成本）",
            kind="money",
            sensitivity=True,
            max=10_000_000,
        ),
        _spec(
            "onprem_fte",
            "On-prem staff per node",
            "自建集群每节点人力",
            "FTE per on-prem node",
            "人（全职当量）/自建节点",
            sensitivity=True,
            max=10,
        ),
        _spec(
            "onprem_min_fte",
            "Minimum team for an owned cluster",
            "自建集群最少人力",
            "FTE, whatever the cluster's size",
            "人（全职当量），与集群规模无关",
            sensitivity=True,
            max=1000,
        ),
        _spec(
            "hire_cost",
            "Recruiting cost per engineer hired",
            "每招聘一名工程师的费用",
            "USD per FTE hired (one-off)",
            "美元/人（一次性）",
            kind="money",
            sensitivity=True,
            max=1_000_000,
        ),
        _spec(
            "hiring_months",
            "Time to hire",
            "招聘周期",
            "months until a new hire starts",
            "月（新员工到岗所需时间）",
            max=24,
        ),
        _spec(
            "spares_share",
            "Spare parts and failure allowance",
            "备件与故障储备",
            "share (0–1) of the server price, bought up front",
            "占服务器价格的比例（0–1），一次性采购",
            kind="share",
            max=1,
            sensitivity=True,
        ),
        _spec(
            "smallest_server_gpus",
            "Smallest server sold",
            "最小可购服务器",
            "GPUs in the smallest server of this GPU model",
            "该型号最小服务器的GPU数",
            min=1,
            whole=True,
            max=64,
        ),
        _spec(
            "licence_gpu_year",
            "Software licences per owned GPU",
            "每块自有GPU的软件许可费",
            "USD per GPU-year (0: none)",
            "美元/卡·年（0 表示无）",
            kind="money",
            max=1_000_000,
        ),
        _spec(
            "cloud_fte",
            "Cloud platform staff per node",
            "云平台每节点人力",
            "FTE per node-equivalent of cloud GPUs",
            "人（全职当量）/云上GPU折合节点",
            max=10,
        ),
        _spec(
            "depreciation_years",
            "Depreciation period",
            "折旧期",
            "years",
            "年",
            # 0: never replaced; else at least a year (servers replaced more often are no
            # plan anyone makes, and each replacement is a step of the cost model's loops).
            least_unless_zero=1,
            whole_months=True,
            max=20,
            sensitivity=True,
        ),
        _spec(
            "residual_value",
            "Share of the resale value realised",
            "可实现的转售价值比例",
            "share (0–1) of the market resale value realised at the end of the horizon",
            "期末可实现的二手市场价值比例（0–1）",
            kind="share",
            max=1,
        ),
        _spec(
            "resale_decline",
            "Yearly fall in resale value",
            "转售价值年降幅",
            "share (0–1) of its value used hardware loses each year",
            "二手硬件每年损失的价值比例（0–1）",
            kind="share",
            max=1,
            sensitivity=True,
        ),
        _spec(
            "lead_time_months",
            "Procurement lead time",
            "采购周期",
            "months",
            "月",
            max=60,
            sensitivity=True,
        ),
        _spec(
            "gpu_hour_on_demand",
            "Cloud on-demand price per GPU-hour",
            "云上按量单卡小时价格",
            "USD per GPU-hour",
            "美元/卡·小时",
            kind="money",
            sensitivity=True,
            max=1000,
        ),
        _spec(
            "gpu_hour_reserved_1y",
            "Cloud 1-year reserved price per GPU-hour",
            "云上1年预留单卡小时价格",
            "USD per GPU-hour",
            "美元/卡·小时",
            kind="money",
            max=1000,
        ),
        _spec(
            "gpu_hour_reserved_3y",
            "Cloud 3-year reserved price per GPU-hour",
            "云上3年预留单卡小时价格",
            "USD per GPU-hour",
            "美元/卡·小时",
            kind="money",
            max=1000,
        ),
        _spec(
            "gpu_hour_spot",
            "Cloud spot price per GPU-hour",
            "云上竞价实例单卡小时价格",
            "USD per GPU-hour",
            "美元/卡·小时",
            kind="money",
            max=1000,
        ),
        _spec(
            "spot_share",
            "Share of cloud hours on spot",
            "云上竞价实例时长占比",
            "share of cloud GPU-hours on spot (0–1)",
            "云上GPU时长中竞价实例的比例（0–1）",
            kind="share",
            max=1,
        ),
        _spec(
            "cloud_storage_tb_month",
            "Cloud storage per TB-month",
            "云存储每TB每月费用",
            "USD per TB-month",
            "美元/TB·月",
            kind="money",
            sensitivity=True,
            max=100_000,
        ),
        _spec(
            "egress_tb_month",
            "Data leaving the cloud per month",
            "每月出云数据量",
            "TB per month",
            "TB/月",
            max=1_000_000,
        ),
        _spec(
            "egress_price_tb",
            "Egress price per TB",
            "每TB出云流量价格",
            "USD per TB",
            "美元/TB",
            kind="money",
            sensitivity=True,
            max=100_000,
        ),
        _spec(
            "transfer_gbps",
            "Bandwidth for the initial data transfer",
            "初始数据迁移带宽",
            "Gbit/s",
            "Gbit/s",
            max=100_000,
        ),
        _spec(
            "discount_rate",
            "Cost of capital",
            "资金成本",
            "share (0–1) a year, to discount future spending (0: plain totals)",
            "每年的比例（0–1），用于折现未来支出（0 表示不折现）",
            kind="share",
            max=1,
        ),
        # Read by the per-token option (engine/hosted.py), for a service sized from what it
        # serves: its price over the horizon.
        _spec(
            "token_price_fall",
            "Per-token price fall",
            "按 token 价格年降幅",
            "share (0–1) a hosted model's price per token falls a year",
            "托管模型按 token 价格每年下降的比例（0–1）",
            kind="share",
            max=1,
        ),
        # Read by the plan when the answers say no capital is available up front.
        _spec(
            "finance_rate",
            "Equipment finance rate (no capital up front)",
            "设备融资利率（无前期资本时）",
            "share (0–1) a year",
            "每年的比例（0–1）",
            kind="share",
            max=1,
        ),
        _spec(
            "finance_term_months",
            "Equipment finance term",
            "设备融资期限",
            "months (0: paid at once)",
            "月（0 表示一次付清）",
            whole=True,
            max=120,
        ),
        _spec(
            "perf_train_vs_h100",
            "Training speed against an H100",
            "训练性能（相对 H100）",
            "H100-equivalents per GPU, training",
            "每块GPU折合H100数量（训练）",
            min=0.01,
            max=20,
            adjustable=False,
        ),
        _spec(
            "perf_infer_vs_h100",
            "Inference speed against an H100",
            "推理性能（相对 H100）",
            "H100-equivalents per GPU, inference",
            "每块GPU折合H100数量（推理）",
            min=0.01,
            max=20,
            adjustable=False,
        ),
        _spec(
            "usd_cny",
            "Exchange rate",
            "汇率",
            "CNY per USD",
            "人民币/美元",
            min=0.01,
            max=1000,
        ),
    ]
}
FIGURE_NAMES: tuple[str, ...] = tuple(FIGURES)
SENSITIVITY_NAMES: tuple[str, ...] = tuple(n for n, s in FIGURES.items() if s.sensitivity)
ADJUSTABLE_NAMES: tuple[str, ...] = tuple(n for n, s in FIGURES.items() if s.adjustable)


def figures_select(*, rows: Iterable[Mapping[str, Any]], gpu_model: str = "") -> dict[str, Figure]:
    """One Figure per name: the row for `gpu_model` if any, else the generic one ("")."""
    generic: dict[str, Figure] = {}
    specific: dict[str, Figure] = {}
    for row in rows:
        figure = Figure(
            name=row["name"],
            value=float(row["value"]),
            source=row["source"],
            as_of=str(row["as_of"]),
            source_zh=row.get("source_zh") or "",
        )
        model = row.get("gpu_model", "")
        if model == "":
            generic[figure.name] = figure
        elif model == gpu_model:
            specific[figure.name] = figure
    return {**generic, **specific}


def figures_with_overrides(
    figures: Mapping[str, Figure], overrides: Mapping[str, float]
) -> dict[str, Figure]:
    """The figures with the ones set for one assessment replaced."""
    merged = dict(figures)
    for name, value in overrides.items():
        merged[name] = Figure(name, value, OVERRIDE_SOURCE, merged[name].as_of, OVERRIDE_SOURCE_ZH)
    return merged


SMALL_SERVER_SOURCE = (
    "Estimate: {gpus} GPUs fit a server of {size} (the smallest sold is {smallest}); priced "
    "pro rata per GPU from the {per_node}-GPU server's {name}"
)
SMALL_SERVER_SOURCE_ZH = (
    "估算：{gpus} 块GPU 可装入一台 {size} 卡服务器（最小可购为 {smallest} 卡）；"
    "按每卡比例折算自 {per_node} 卡服务器的数值"
)


def figures_for_fleet(figures: Mapping[str, Figure], gpus: float) -> dict[str, Figure]:
    """The figures for a fleet of `gpus` at its largest: one smaller than a full server is
    priced as the server of the next power of two GPUs that is sold (at least the smallest
    server), pro rata per GPU, rather than as a full server. The server's price, network and
    power scale with its GPUs; every other figure stays."""
    merged = dict(figures)
    per_node = int(figures["gpus_per_node"].value)
    smallest = (
        int(figures["smallest_server_gpus"].value)
        if "smallest_server_gpus" in figures
        else per_node
    )
    if gpus <= 0 or gpus >= per_node or smallest >= per_node:
        return merged
    size = max(smallest, 2 ** math.ceil(math.log2(max(gpus, 1)) - 1e-9))
    if size >= per_node:
        return merged
    shown = {"gpus": f"{gpus:g}", "size": size, "smallest": smallest, "per_node": per_node}
    for name in ("gpus_per_node", "server_price", "network_per_node", "node_kw"):
        old = figures[name]
        value = size if name == "gpus_per_node" else old.value * size / per_node
        merged[name] = Figure(
            name,
            value,
            SMALL_SERVER_SOURCE.format(**shown, name=FIGURES[name].label.en.lower()),
            old.as_of,
            SMALL_SERVER_SOURCE_ZH.format(**shown),
        )
    return merged


def figures_values(figures: Mapping[str, Figure]) -> dict[str, float]:
    """Every figure's value by name; ValueError naming the missing or impossible ones."""
    missing = [name for name in FIGURE_NAMES if name not in figures]
    if missing:
        raise ValueError(f"missing cost figure(s): {', '.join(missing)}")
    values = {name: float(figures[name].value) for name in FIGURE_NAMES}
    problems = [
        f"{name} {problem}"
        for name, value in values.items()
        if (problem := FIGURES[name].problem(value))
    ]
    if problems:
        raise ValueError(f"cost figure {'; '.join(problems)}")
    return values


def is_estimate(source: str) -> bool:
    """A source that says its figure is an estimate, not a published one."""
    return source.lstrip().lower().startswith(("estimate", "估计", "估算"))


def is_imported(source: str) -> bool:
    """A price read by `manage.py refresh_prices` from a public source and made current by a
    publisher (decider/price_import.py writes "Imported: ..."), not typed in by hand."""
    return source.lstrip().lower().startswith(("imported:", "导入："))


# What a source says when its price came through a grey market or a broker, not a seller's
# list or a published index (issue 51: flagged on the result). "Brokerage" (a fee) is not.
UNOFFICIAL = re.compile(
    r"unofficial channel|gr[ae]y market|\bbroker\b|非官方渠道|灰色渠道|中介", re.I
)


def is_unofficial(source: str) -> bool:
    """A source that says its price came through an unofficial channel or a broker."""
    return UNOFFICIAL.search(source) is not None


def figures_as_dict(
    figures: Mapping[str, Figure], currency: str = "USD"
) -> dict[str, dict[str, Any]]:
    """JSON-ready, with the unit from the registry in the price set's currency (as saved with
    a result); `source_zh` only where the data has it."""
    return {
        name: {
            "value": float(f.value),
            "unit": FIGURES[name].unit_in(currency).en if name in FIGURES else "",
            "source": f.source,
            "as_of": f.as_of,
            **({"source_zh": f.source_zh} if f.source_zh else {}),
        }
        for name, f in figures.items()
    }


def figures_from_dict(data: Mapping[str, Mapping[str, Any]]) -> dict[str, Figure]:
    return {
        name: Figure(
            name=name,
            value=d["value"],
            source=d["source"],
            as_of=d["as_of"],
            source_zh=d.get("source_zh", ""),
        )
        for name, d in data.items()
    }


def overrides_validate(raw: Any) -> tuple[dict[str, float], dict[str, str]]:
    """Figures set for one assessment (`costs` of an answers document), checked by the registry."""
    if not isinstance(raw, Mapping):
        return {}, {"costs": gettext("must be an object of assumption name to number")}
    problems = {name: _override_problem(name, value) for name, value in raw.items()}
    return (
        {name: float(raw[name]) for name, problem in problems.items() if problem is None},
        {
            f"costs.{key_text(name)}": problem
            for name, problem in problems.items()
            if problem is not None
        },
    )


def _override_problem(name: str, value: Any) -> str | None:
    if name not in FIGURES:
        return gettext("unknown cost assumption")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return gettext("must be a number, got %(value)s") % {"value": value_text(value)}
    if isinstance(value, float) and not math.isfinite(value):
        return gettext("must be a number, got %(value)s") % {"value": value_text(value)}
    if not is_finite(value):  # beyond float(), past any bound
        return FIGURES[name].problem(math.inf if value > 0 else -math.inf, shown=value_text(value))
    return FIGURES[name].problem(float(value))


def is_finite(value: int | float) -> bool:
    """A finite number; an integer too large for a float (10**400) counts as not."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


# How much of a value a message repeats: an answer's own text can be megabytes long.
SHOWN_CHARS = 60


def key_text(key: str) -> str:
    """A key or a text as a message names it: on one line (a newline shows as \\n) and cut
    short, since an unknown one can be anything."""
    text = json_repr(key)[1:-1]
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def value_text(value: Any) -> str:
    """A value as it was written in JSON, cut short for a message about it."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**SHOWN_CHARS:
        # str() of a 5,000-digit integer is refused (Python's int-string limit)
        try:
            digits = len(str(abs(value)))
        except ValueError:
            digits = int(abs(value).bit_length() * math.log10(2)) + 1
        return gettext("an integer of about %(digits)s digits") % {"digits": f"{digits:,}"}
    if isinstance(value, dict | list):
        return "{…}" if isinstance(value, dict) else "[…]"
    text = json_repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"
