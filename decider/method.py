"""The method page: what each section of the source document argues, in our own words, and
which criterion or cost figure it drives. Reasons quote the source as "§IV.6" or "§四.6";
`cite_links` turns those quotations into links to the section here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from decider.engine.figures import FIGURES
from decider.engine.scoring import RuleBook
from decider.engine.text import is_chinese

SOURCE_TITLE = {
    "en": "Choosing a deep-learning GPU supercomputer: building your own cluster or renting "
    "a hosted cloud platform",
    "zh": "深度学习GPU超级计算机选型对比：自建集群与云上托管方案如何选",
}


@dataclass(frozen=True)
class Section:
    number: int  # the source's 一 … 九
    sub: int | None  # its numbered subsection, where it has them (四.1 … 四.6)
    title: dict[str, str]  # {"en": …, "zh": …}
    argues: dict[str, str]
    figures: tuple[str, ...] = ()  # cost figures it drives
    criteria: tuple[str, ...] = ()  # rule-set criteria (keys) built on it

    @property
    def anchor(self) -> str:
        return f"s{self.number}" + (f"-{self.sub}" if self.sub else "")

    def ref(self, language: str = "en") -> str:
        """ "§IV.6", or "§四.6" as the Chinese text quotes it."""
        numeral = CHINESE[self.number] if is_chinese(language) else ROMAN[self.number]
        return f"§{numeral}" + (f".{self.sub}" if self.sub else "")


ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII", 8: "VIII", 9: "IX"}
CHINESE = dict(enumerate("一二三四五六七八九", start=1))
_NUMERALS = {
    **{roman: number for number, roman in ROMAN.items()},
    **{zh: number for number, zh in CHINESE.items()},
}

SECTIONS: tuple[Section, ...] = (
    Section(
        1,
        None,
        {"en": "Why compare", "zh": "为什么比较"},
        {
            "en": "Models outgrow one server, so the question is not whether to use a GPU "
            "cluster but how to get one: build it or rent it.",
            "zh": "模型规模已超出单台服务器，问题不在于是否使用GPU集群，而在于如何获得：自建还是租用。",
        },
    ),
    Section(
        2,
        None,
        {"en": "The two options", "zh": "两种方案"},
        {
            "en": "An owned cluster turns compute into an asset you run yourself and suits "
            "data sovereignty, custom hardware and a steady, known need. A cloud platform "
            "turns it into an elastic service, so the team spends its time on models.",
            "zh": "自建集群把算力沉淀为自行运维的资产，适合数据主权、定制硬件和稳定明确的需求；"
            "云平台把算力变成弹性服务，让团队把精力放在模型上。",
        },
    ),
    Section(
        3,
        None,
        {"en": "What they share", "zh": "相同之处"},
        {
            "en": "The same GPUs, parallelism and software stack run in both, so moving "
            "between them is possible. Decider therefore compares how compute is obtained "
            "and paid for, not how fast it computes.",
            "zh": "两者使用相同的GPU、并行方式和软件栈，可以相互迁移。因此Decider比较的是算力的获取与付费方式，而非计算速度。",
        },
    ),
    Section(
        4,
        1,
        {"en": "Getting and scaling capacity", "zh": "资源获取与扩展"},
        {
            "en": "Owned capacity grows through purchasing, racking and setup over weeks or "
            "months; cloud capacity scales in minutes, which matters for peaks and bursts.",
            "zh": "自建算力要经过采购、上架和部署，以周或月计；云上算力分钟级扩缩，对峰值和突发需求尤为重要。",
        },
        ("lead_time_months",),
        criteria=("lead_time", "demand", "scale"),
    ),
    Section(
        4,
        2,
        {"en": "Architecture and network", "zh": "系统架构与网络"},
        {
            "en": "Owning lets you shape network and storage to your work, and makes their "
            "design your team's job; the cloud offers proven, managed topologies.",
            "zh": "自建可按业务定制网络与存储，但设计责任完全在自己；云提供经过验证、统一管理的网络架构。",
        },
        ("network_per_node",),
        criteria=("topology",),
    ),
    Section(
        4,
        3,
        {"en": "Performance and its guarantees", "zh": "性能稳定与保障"},
        {
            "en": "An owned cluster performs as well as its hardware, cooling, power and "
            "drivers, and needs its own engineers to fix them; the cloud migrates around "
            "failures under an SLA, at the price of noisy neighbours.",
            "zh": "自建集群的表现取决于硬件、散热、电力和驱动，需要自备工程师排障；云平台依托SLA迁移故障，但要接受多租户带来的性能波动。",
        },
        ("spares_share", "maintenance_rate", "node_kw", "pue", "kwh_price"),
        criteria=("ops_hardware", "latency"),
    ),
    Section(
        4,
        4,
        {"en": "Security and compliance", "zh": "安全与合规"},
        {
            "en": "Keeping data on premises is owning's strongest argument where data may "
            "not leave; in the cloud, the provider's security and its legal jurisdiction "
            "must be assessed.",
            "zh": "在数据不得出域的场景下，数据不出机房是自建的最大优势；上云则需评估服务商的安全体系和法律管辖。",
        },
        criteria=("residency", "sensitivity", "jurisdiction"),
    ),
    Section(
        4,
        5,
        {"en": "Operations and people", "zh": "运维与人力"},
        {
            "en": "An owned cluster needs a team that handles hardware and systems; the "
            "cloud takes the hardware off your hands but asks you to master quotas and "
            "billing.",
            "zh": "自建集群需要兼具系统与硬件经验的团队；云把硬件运维交给平台，但要求理解配额与计费。",
        },
        ("fte_cost", "onprem_fte", "onprem_min_fte", "hire_cost", "hiring_months", "cloud_fte"),
        criteria=("ops_hardware", "ops_filesystem", "ops_drivers", "ops_team", "datacenter"),
    ),
    Section(
        4,
        6,
        {"en": "How the costs differ", "zh": "成本结构"},
        {
            "en": "Owning costs much up front and can be cheaper per GPU-hour when run near "
            "full load for years; the cloud starts cheap but can cost more in total when "
            "busy for long, and egress, storage and extra services add up. This section "
            "drives the whole cost model.",
            "zh": "自建前期投入高，长期满负荷运行时单位成本可能更低；云起步便宜，但长期高负荷时累计费用可能更高，"
            "出云流量、存储和附加服务也要计入。本节决定了整个成本模型。",
        },
        (
            "server_price",
            "gpu_hour_on_demand",
            "gpu_hour_reserved_1y",
            "gpu_hour_reserved_3y",
            "gpu_hour_spot",
            "colo_kw_month",
            "egress_price_tb",
            "cloud_storage_tb_month",
            "resale_decline",
            "discount_rate",
        ),
        criteria=("cost", "capex", "horizon", "utilization"),
    ),
    Section(
        5,
        None,
        {"en": "The comparison table", "zh": "对比表格"},
        {
            "en": "The same contrasts at a glance: speed of getting capacity, freedom to "
            "customise, predictability, security, operations load, initial and running "
            "costs, and the stage each option fits.",
            "zh": "一览同样的对比：获取速度、定制自由度、性能可预期性、安全边界、运维压力、初始与长期费用，以及各自适合的阶段。",
        },
        criteria=("stage", "capex"),
    ),
    Section(
        6,
        None,
        {"en": "Typical situations", "zh": "典型场景"},
        {
            "en": "Research labs with sensitive data and a team own; startups still "
            "exploring rent; growing companies mix both, training core data in-house; "
            "latency-critical inference favours owning, peaky or multi-region traffic the "
            "cloud. The persona presets follow these cases.",
            "zh": "数据敏感且有团队的科研机构自建；方向未定的初创团队租用；成长型企业混合使用，核心数据在自建集群训练；"
            "延迟敏感的推理倾向自建，波峰明显或多地域的流量倾向云。预设画像即来自这些场景。",
        },
        criteria=("stage", "workload", "direction", "latency", "regions"),
    ),
    Section(
        7,
        None,
        {"en": "Decide on conditions", "zh": "条件化判断"},
        {
            "en": "No option is better in general. Three conditions decide: expected "
            "utilization (above 70 % favours owning, below 30 % the cloud), whether the team "
            "can run hardware, and whether data may leave. The last can make owning the "
            "only compliant choice.",
            "zh": "没有绝对更好的方案。决定因素有三：预期利用率（70%以上利于自建，30%以下云更省）、团队能否运维硬件、"
            "数据能否出域。最后一条可能让自建成为唯一合规选项。",
        },
        criteria=("utilization", "ops_hardware", "ops_filesystem", "ops_drivers", "residency"),
    ),
    Section(
        8,
        None,
        {"en": "Moving between them", "zh": "迁移注意事项"},
        {
            "en": "Before moving either way: the cost and time of moving the data, adapting "
            "the scheduler, re-validating distributed training on a different network, "
            "redefining monitoring and SLAs, and budgeting for a bill of many items. These "
            "make the migration checklist.",
            "zh": "无论哪个方向迁移，都要提前评估：数据迁移的成本和时间、作业调度的改造、在不同网络上重新验证分布式训练、"
            "重新定义监控与SLA，以及多计费项账单的预算。这些构成了迁移清单。",
        },
        ("egress_price_tb", "transfer_gbps"),
        criteria=("dataset",),
    ),
    Section(
        9,
        None,
        {"en": "Conclusion", "zh": "总结"},
        {
            "en": "Go back to scale, team, compliance and expected utilization rather than "
            "marketing. In most cases the two are not rivals: a hybrid that evolves in "
            "stages is the realistic path.",
            "zh": "回到业务规模、团队能力、合规要求和利用率预期这四类基础条件，而非被宣传左右。多数情况下两者并非零和，"
            "混合架构与阶段性演进更现实。",
        },
        criteria=("demand",),
    ),
)

_BY_REF = {(s.number, s.sub): s for s in SECTIONS}
_CITATION = re.compile(
    r"§(?P<num>VIII|VII|VI|IV|IX|V|III|II|I|[一二三四五六七八九])(?:\.(?P<sub>\d))?"
)


def section_for(num: str, sub: str | None) -> Section | None:
    number = _NUMERALS.get(num)
    if number is None:
        return None
    return _BY_REF.get((number, int(sub) if sub else None)) or _BY_REF.get((number, None))


def cited_sections(text: str) -> list[Section]:
    found = (section_for(m["num"], m["sub"]) for m in _CITATION.finditer(text))
    return [s for s in found if s is not None]


def cite_links(text: str) -> SafeString:
    """The text, escaped, with each quotation of the source linked to its method section."""
    method = reverse("decider-method")
    parts, last = [], 0
    for match in _CITATION.finditer(text):
        section = section_for(match["num"], match["sub"])
        if section is None:
            continue
        parts.append(escape(text[last : match.start()]))
        parts.append(
            format_html(
                '<a class="cite" href="{}#{}">{}</a>', method, section.anchor, match.group(0)
            )
        )
        last = match.end()
    parts.append(escape(text[last:]))
    return mark_safe("".join(parts))  # every part above is escaped or built by format_html


def criteria_citing(rulebook: RuleBook | None, language: str) -> dict[str, list[str]]:
    """Per section anchor: the labels of the published criteria built on it, or whose
    reasons quote it (a criterion the admins added or removed shows up or goes)."""
    citing: dict[str, list[str]] = {}
    if rulebook is None:
        return citing
    for rule in rulebook.rules:
        texts: Iterable[str] = (
            text for band in rule.bands for text in (band.reason.en, band.reason.zh)
        )
        anchors = {s.anchor for text in texts for s in cited_sections(text)}
        anchors |= {s.anchor for s in SECTIONS if rule.key in s.criteria}
        for anchor in sorted(anchors):
            citing.setdefault(anchor, []).append(rule.label.get(language))
    return citing


def sections_for(rulebook: RuleBook | None, language: str) -> list[dict[str, Any]]:
    """Each section in the page's language, with the criteria and figures it drives."""
    lang = "zh" if is_chinese(language) else "en"
    citing = criteria_citing(rulebook, language)
    separator = "、" if lang == "zh" else ", "
    return [
        {
            "anchor": section.anchor,
            "ref": section.ref(language),
            "title": section.title[lang],
            "argues": section.argues[lang],
            "criteria": separator.join(citing.get(section.anchor, [])),
            "figures": separator.join(
                FIGURES[name].label.get(language) for name in section.figures
            ),
        }
        for section in SECTIONS
    ]
