"""The next GPU generation per GPU model and market: when it ships, how much faster it is,
and what it costs, each figure relative to the model it follows.

Relative figures, not a second price set: the staged plan (engine/stages.py) prices the
successor from the figures the assessment was scored with, times these ratios, so a saved
result keeps its figures whatever the admin edits later, in either currency. Where both
models are in the shipped price set (fixtures/assumptions.json) the ratios are that set's
own, and tests/test_generations.py keeps them in step with it.

Plain Python: no Django.
"""

from __future__ import annotations

from dataclasses import dataclass

from decider.engine.text import Text


@dataclass(frozen=True)
class Generation:
    """The model that follows one GPU model in one market, relative to it."""

    successor: str  # its key (engine/stages.py PRICE_PATHS has its price path)
    label: Text
    ships_month: int  # months from `as_of` until it can be bought in volume (0: now)
    train_speed: float  # per GPU, × the model it follows
    infer_speed: float
    server_price: float  # a node of its GPUs, × a node of the model it follows
    network_price: float  # the fabric per node
    node_kw: float  # a node's power
    cloud_price: float  # a GPU-hour at launch, every term, × the model it follows
    source: str
    source_zh: str
    as_of: str

    def speed(self, workload: str) -> float:
        """How many GPUs of the model it follows one of it is worth for this workload, as
        the cost model counts speed (costs.h100_equivalent)."""
        if workload == "inference":
            return self.infer_speed
        if workload == "mixed":
            return (self.train_speed + self.infer_speed) / 2
        return self.train_speed


_SHIPPED = (
    "The shipped price set's own figures for both models (fixtures/assumptions.json: server, "
    "fabric, node power, GPU-hour prices and the MLPerf-based speeds against an H100)"
)
_SHIPPED_ZH = "随附价格集中两款型号各自的数据（fixtures/assumptions.json：服务器、网络、节点功率、GPU 小时价格以及基于 MLPerf 的相对 H100 速度）"

_B200 = Text("NVIDIA B200", "NVIDIA B200")

NEXT: dict[tuple[str, str], Generation] = {
    # (market, GPU model): the generation after it.
    ("global", "a100"): Generation(
        "h100",
        Text("NVIDIA H100", "NVIDIA H100"),
        0,
        train_speed=1 / 0.33,
        infer_speed=1 / 0.4,
        server_price=310_000 / 170_000,
        network_price=25_000 / 15_000,
        node_kw=10.2 / 6.5,
        cloud_price=2.99 / 1.49,
        source=_SHIPPED + "; the H100 has shipped since 2023",
        source_zh=_SHIPPED_ZH + "；H100 自 2023 年起供货",
        as_of="2026-12-04",
    ),
    ("global", "h100"): Generation(
        "b200",
        _B200,
        0,
        train_speed=2.0,
        infer_speed=3.0,
        server_price=515_000 / 310_000,
        network_price=34_000 / 25_000,
        node_kw=14.3 / 10.2,
        cloud_price=5.49 / 2.99,
        source=_SHIPPED + "; DGX B200 has shipped since early 2025",
        source_zh=_SHIPPED_ZH + "；DGX B200 自 2025 年初起供货",
        as_of="2026-12-04",
    ),
    ("global", "h200"): Generation(
        "b200",
        _B200,
        0,
        train_speed=2.0 / 1.2,
        infer_speed=3.0 / 1.5,
        server_price=515_000 / 360_000,
        network_price=34_000 / 25_000,
        node_kw=14.3 / 10.2,
        cloud_price=5.49 / 3.49,
        source=_SHIPPED + "; DGX B200 has shipped since early 2025",
        source_zh=_SHIPPED_ZH + "；DGX B200 自 2025 年初起供货",
        as_of="2026-12-04",
    ),
    ("global", "b200"): Generation(
        "rubin",
        Text("NVIDIA Rubin (VR200)", "NVIDIA Rubin（VR200）"),
        6,
        train_speed=2.5,
        infer_speed=2.5,
        server_price=1.6,
        network_price=1.2,
        node_kw=1.55,
        cloud_price=1.7,
        source=(
            "Estimate: NVIDIA's roadmap (GTC 2025) put Vera Rubin in the second half of 2026; "
            "its headline gains (about 5× Blackwell for 4-bit inference, 3.5× for training) are "
            "4-bit figures, so 2.5× per GPU is assumed for BF16 work, with HBM4 at about 1.6× "
            "the B200's bandwidth. Volume for buyers outside the largest clouds assumed 6 "
            "months out; node price 1.6×, power 1.55× (about 1.8 kW a GPU), launch rental "
            "1.7× the B200's"
        ),
        source_zh=(
            "估计：NVIDIA 路线图（GTC 2025）将 Vera Rubin 定在 2026 年下半年；其宣传的提升"
            "（4 位推理约为 Blackwell 的 5 倍、训练 3.5 倍）是 4 位精度数据，因此 BF16 工作按每 GPU "
            "2.5 倍计，HBM4 带宽约为 B200 的 1.6 倍。大型云厂商以外的买家批量到货按 6 个月后计；"
            "节点价格 1.6 倍、功率 1.55 倍（每 GPU 约 1.8 kW）、上市租价为 B200 的 1.7 倍"
        ),
        as_of="2026-12-04",
    ),
    ("global", "l40s"): Generation(
        "rtx_pro_6000",
        Text("NVIDIA RTX PRO 6000 Blackwell", "NVIDIA RTX PRO 6000 Blackwell"),
        0,
        train_speed=1.4,
        infer_speed=1.8,
        server_price=1.25,
        network_price=1.0,
        node_kw=1.45,
        cloud_price=1.5,
        source=(
            "Estimate: the RTX PRO 6000 Blackwell Server Edition (shipping since mid 2025) has "
            "96 GB of GDDR7 at 1.6 TB/s against the L40S's 48 GB at 0.864 TB/s (decoding about "
            "1.8×) and about 1.4× its dense BF16 rate; 600 W a card against 350 W; cards and "
            "rentals about 1.25× and 1.5× the L40S's"
        ),
        source_zh=(
            "估计：RTX PRO 6000 Blackwell 服务器版（2025 年中起供货）配备 96 GB GDDR7、1.6 TB/s，"
            "L40S 为 48 GB、0.864 TB/s（解码约 1.8 倍），稠密 BF16 算力约 1.4 倍；每卡 600 W"
            "（L40S 为 350 W）；整卡和租用价格约为 L40S 的 1.25 倍和 1.5 倍"
        ),
        as_of="2026-12-04",
    ),
    ("cn", "ascend_910b"): Generation(
        "ascend_910c",
        Text("Huawei Ascend 910C", "华为昇腾 910C"),
        0,
        train_speed=1.8,
        infer_speed=1.65,
        server_price=1.45,
        network_price=1.0,
        node_kw=1.6,
        cloud_price=1.6,
        source=(
            "Estimate (low reliability): the Ascend 910C (shipping in volume since 2025) "
            "packages two 910B-class dies; press reports put its inference at about 60 % of "
            "an H100 (against 0.36 for the 910B here) and its card at about 1.5× the 910B's "
            "price; no datasheet or public rental price"
        ),
        source_zh=(
            "估计（可靠性低）：昇腾 910C（2025 年起批量供货）封装两颗 910B 级芯片；媒体报道其推理性能"
            "约为 H100 的 60 %（此处 910B 为 0.36），单卡价格约为 910B 的 1.5 倍；无公开规格书或租用价格"
        ),
        as_of="2026-12-04",
    ),
}


def next_generation(market: str, gpu_model: str) -> Generation | None:
    """The generation after `gpu_model` in `market`; None where none is modelled (in
    mainland China export controls leave no newer NVIDIA part to buy for most models)."""
    return NEXT.get((market, gpu_model))
