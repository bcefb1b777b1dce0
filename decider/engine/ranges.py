"""What is uncertain, and by how much: each input the odds draw (engine/odds.py), today's
figure times a multiplier between a low and a high, named, sourced and dated. A registry,
like the figures (engine/figures.py): the readers name the inputs by it.
"""

from __future__ import annotations

from dataclasses import dataclass

from decider.engine.i18n import gettext_noop
from decider.engine.text import is_chinese


@dataclass(frozen=True)
class Spread:
    """One uncertain input: today's figure times a multiplier from `low` to `high`."""

    name: str
    label: str  # gettext_noop: translated where shown
    low: float
    high: float
    source: str
    as_of: str
    source_zh: str = ""

    def source_in(self, language: str) -> str:
        return (is_chinese(language) and self.source_zh) or self.source


SPREADS: dict[str, Spread] = {
    spread.name: spread
    for spread in (
        Spread(
            "utilization",
            gettext_noop("Average GPU utilization"),
            0.8,
            1.2,
            "Estimate, even about the answer (the odds are centred on the figures): plans overstate how busy GPUs will be more often than they understate "
            "it; surveys of AI infrastructure teams report most clusters run well below their "
            "planned load (ClearML / AI Infrastructure Alliance, State of AI Infrastructure "
            "at Scale 2024)",
            "2026-12-05",
            "估计，以答案为中心（概率以各项数字为中心）：规划往往高估GPU的繁忙程度；AI基础设施调查显示多数集群的实际负载远低于规划（ClearML / AI Infrastructure Alliance，《2024 大规模AI基础设施现状》）",
        ),
        Spread(
            "cloud_price",
            gettext_noop("Cloud GPU-hour prices over the horizon"),
            0.75,
            1.25,
            "Even about today's price, the odds being centred on the figures; the direction "
            "prices move is the yearly fall the budget step asks. H100 rental fell from above $8 to about $2 per GPU-hour between 2023 and 2025, "
            "and rose again from $1.70 (Oct 2025) to $2.35 (Mar 2026, the shipped reserved "
            "price's index): mostly down, sometimes up",
            "2026-12-05",
            "以当前价格为中心（概率以各项数字为中心）；价格变动的方向由预算步骤所问的年降幅给出。"
            "H100 租用价格在 2023–2025 年间从每GPU小时 8 美元以上降至约 2 美元，又从 1.70 美元（2025 年 10 月）回升至 2.35 美元（2026 年 3 月，随附的预留价格指数）：以降为主，也会回升",
        ),
        Spread(
            "hardware_price",
            gettext_noop("Hardware price"),
            0.85,
            1.15,
            "Estimate: 8-GPU server quotes differ by about 10 % between vendors and rose in "
            "the 2023 shortage",
            "2026-12-05",
            "估计：8 卡服务器的报价在不同厂商之间相差约 10 %，并在 2023 年缺货时上涨",
        ),
        Spread(
            "lead_time",
            gettext_noop("Procurement lead time"),
            0.5,
            2.0,
            "H100 server lead times fell from 36–52 weeks (2023) to 8–12 weeks (early 2024, "
            "trade press reports of Dell and Supermicro deliveries); they grow again when a "
            "new generation ships",
            "2024-02-15",
            "H100 服务器交付周期从 36–52 周（2023 年）缩短到 8–12 周（2024 年初，行业媒体关于戴尔和超微交付的报道）；新一代产品发布时又会变长",
        ),
        Spread(
            "resale",
            gettext_noop("Resale value at the end"),
            0.6,
            1.4,
            "Estimate: used GPU prices fall when the next generation ships (A100s after the "
            "H100) and hold when supply is short",
            "2026-12-05",
            "估计：新一代产品发布时二手GPU价格下跌（H100 推出后的 A100），供应紧张时则保持",
        ),
        # Drawn last, so that adding it left the draws of the others as they were.
        Spread(
            "growth",
            gettext_noop("Demand growth (the plan in stages)"),
            0.5,
            1.5,
            "Estimate: the growth in GPU demand a plan gives is its least certain input; "
            "half to one and a half times it. Read when the demand grows: every option's "
            "plan is priced at the drawn growth",
            "2026-12-07",
            "估计：规划给出的GPU需求增长是最不确定的输入；取其一半到一倍半。需求增长时读取："
            "每个方案的计划都按抽取的增长计价",
        ),
        # Drawn after the growth, so that adding it left the draws of the others as they were.
        Spread(
            "token_price",
            gettext_noop("Per-token prices over the horizon"),
            0.5,
            1.5,
            "Estimate about the shipped yearly fall of per-token prices: for the same "
            "capability they fell about tenfold a year from 2021 to 2024 (a16z, "
            "\u201cWelcome to LLMflation\u201d, Nov 2024) and between 9 and 900 times a year "
            "by task (Epoch AI, \u201cLLM inference prices have fallen rapidly but unequally "
            "across tasks\u201d, Mar 2025), while a listed model's own price often holds for "
            "a year or more: half to one and a half times the bill the fall gives",
            "2026-12-07",
            "估计，以随附的每 token 价格年降幅为中心：同等能力的每 token 价格在 2021–2024 年"
            "间约每年下降十倍（a16z《Welcome to LLMflation》，2024 年 11 月），按任务每年"
            "下降 9 至 900 倍（Epoch AI，2025 年 3 月），而已上架模型自身的价格常常一年以上"
            "不变：取按该降幅所得账单的一半到一倍半",
        ),
    )
}
