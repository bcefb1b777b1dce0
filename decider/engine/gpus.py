"""The GPU models: one entry each, and everything Decider knows about a model is in it.

An entry names the model, the markets that offer it (its home market first: a market lists
its own models before those sold mainly elsewhere), its datasheet (`Chip`: the sizing), how
its prices move (`PricePath`: the staged plan), the throughput table's name for its chip
when it is measured under another's, and the generation that follows it in each market
(`Generation`, priced relative to it). Its prices are figures (fixtures/assumptions.json,
edited in the admin): adding a GPU model is one entry here plus its rows there
(tests/test_gpus.py adds one).

The questionnaire's choices, the sizing's chips, the plan's price paths, the markets' lists
and the next generations are all read from `GPUS` when they are asked for.

An entry stays while saved answers may name it: to stop offering a model, empty its
`markets`. New answers can no longer choose it; saved results still find its datasheet,
price path and successor (tests/test_gpus.py).

Plain Python: no Django.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import overload

from decider.engine.text import Text

DEFAULT = "h100"  # answers that name no GPU model
# The A100's dense training MFU (sizing.A100_TRAIN_MFU has its source): used on the A100
# and A800 when no MFU is given.
A100_TRAIN_MFU = 0.476


@dataclass(frozen=True)
class Generation:
    """The model that follows one GPU model in one market, relative to it."""

    successor: str  # its key (its entry's price_path is its price path)
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


@dataclass(frozen=True)
class PricePath:
    """How a GPU model's prices move: cloud GPU-hours and servers, each a share a year."""

    cloud_fall_pct: float
    hardware_fall_pct: float
    source: str
    as_of: str
    source_zh: str = ""


_MATURE = PricePath(
    10.0,
    10.0,
    "Estimate: H100 rental fell from above $8 (2023) to about $2 an hour (2025), then rose "
    "from $1.70 to $2.35 (Oct 2025 to Mar 2026, the shipped reserved index): the steep fall of "
    "a generation's first two years is over; 10 % a year for rental and for servers as the "
    "next generation ships",
    "2026-12-04",
    "估计：H100 租用价格从 2023 年每小时 8 美元以上降至 2025 年约 2 美元，又从 1.70 美元回升至 2.35 美元"
    "（2025 年 10 月至 2026 年 3 月，随附的预留价格指数）：一代产品头两年的急跌已经过去；租用和服务器价格"
    "随下一代出货每年约降 10 %",
)
_EXPORT_CONTROLLED = PricePath(
    5.0,
    5.0,
    "Estimate: export controls keep supply short in mainland China, so prices there "
    "have not followed the global fall",
    "2026-12-04",
    "估计：出口管制使中国大陆供应紧张，那里的价格没有跟随全球下降",
)


@dataclass(frozen=True)
class Chip:
    """One GPU model's datasheet figures: dense BF16 peak, memory and its bandwidth."""

    tflops: float
    memory_gb: float
    bandwidth_tbs: float
    source: str
    as_of: str
    fp8: bool = True  # FP8 tensor cores (Hopper, Ada, Blackwell); the rest train in BF16
    train_mfu: float | None = None  # a dense run's MFU on it, when not TRAIN_MFU


@dataclass(frozen=True)
class GpuModel:
    key: str
    label: str  # its name, the same in both languages
    price_path: PricePath
    markets: tuple[str, ...] = ()  # those with a price set for it, its home market first
    chip: Chip | None = None  # None: a successor no market offers yet
    measured_as: str | None = None  # the throughput table's GPU with the same chip and memory
    next: Mapping[str, Generation] = field(default_factory=dict)  # market → what follows it


GPUS: dict[str, GpuModel] = {
    model.key: model
    for model in (
        GpuModel(
            "h100",
            "NVIDIA H100",
            markets=("global", "cn"),
            chip=Chip(
                989.5,
                80,
                3.35,
                "NVIDIA H100 SXM datasheet (BF16 1,979 TFLOPS with sparsity)",
                "2024-01-01",
            ),
            price_path=_MATURE,
            next={
                "global": Generation(
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
                )
            },
        ),
        GpuModel(
            "h200",
            "NVIDIA H200",
            markets=("global",),
            chip=Chip(
                989.5,
                141,
                4.8,
                "NVIDIA H200 SXM datasheet: the H100's compute, 141 GB HBM3e",
                "2024-11-01",
            ),
            price_path=PricePath(
                15.0,
                12.0,
                "Estimate: a year younger than the H100, its rental prices still falling as B200 "
                "capacity arrives",
                "2026-12-04",
                "估计：比 H100 晚一年，随着 B200 产能到位，其租用价格仍在下降",
            ),
            next={
                "global": Generation(
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
                )
            },
        ),
        GpuModel(
            "b200",
            "NVIDIA B200",
            markets=("global",),
            chip=Chip(
                2250,
                180,
                8.0,
                "NVIDIA DGX B200 datasheet: 72 PFLOPS FP8 training and 1,440 GB for 8 GPUs; BF16 dense half of FP8 dense",
                "2025-03-01",
            ),
            price_path=PricePath(
                20.0,
                15.0,
                "Estimate: the newest generation priced here; a generation's rental price falls "
                "fastest in its first two years (the H100's about halved a year in 2023–2025)",
                "2026-12-04",
                "估计：这里定价的最新一代；一代产品的租用价格在头两年下降最快（H100 在 2023–2025 年每年约减半）",
            ),
            next={
                "global": Generation(
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
                )
            },
        ),
        GpuModel(
            "a100",
            "NVIDIA A100",
            markets=("global",),
            chip=Chip(
                312,
                80,
                2.04,
                "NVIDIA A100 80GB SXM datasheet (BF16 312 TFLOPS dense)",
                "2021-06-01",
                fp8=False,
                train_mfu=A100_TRAIN_MFU,
            ),
            price_path=PricePath(
                5.0,
                5.0,
                "Estimate: two generations old, near its floor",
                "2026-12-04",
                "估计：已落后两代，价格接近底部",
            ),
            next={
                "global": Generation(
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
                )
            },
        ),
        GpuModel(
            "l40s",
            "NVIDIA L40S",
            markets=("global",),
            chip=Chip(
                362,
                48,
                0.864,
                "NVIDIA L40S datasheet (BF16 733 TFLOPS with sparsity)",
                "2023-10-01",
            ),
            price_path=_MATURE,
            next={
                "global": Generation(
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
                )
            },
        ),
        GpuModel(
            "h20",
            "NVIDIA H20",
            markets=("cn",),
            chip=Chip(
                148,
                96,
                4.0,
                "NVIDIA H20 specifications as reported (148 dense BF16 TFLOPS, 96 GB HBM3, 4.0 TB/s)",
                "2024-06-01",
            ),
            price_path=_EXPORT_CONTROLLED,
        ),
        GpuModel(
            "l20",
            "NVIDIA L20",
            markets=("cn",),
            chip=Chip(
                119.5,
                48,
                0.864,
                "NVIDIA L20 specifications as reported (119.5 TFLOPS FP16, 48 GB GDDR6)",
                "2024-06-01",
            ),
            price_path=_EXPORT_CONTROLLED,
        ),
        GpuModel(
            "ascend_910b",
            "Huawei Ascend 910B",
            markets=("cn",),
            chip=Chip(
                320,
                64,
                1.6,
                "Estimate: press reports of about 320 TFLOPS FP16 and 64 GB HBM2e; no datasheet published",
                "2024-06-01",
                fp8=False,
            ),
            price_path=_EXPORT_CONTROLLED,
            next={
                "cn": Generation(
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
                )
            },
        ),
        GpuModel(
            "h800",
            "NVIDIA H800",
            markets=("cn",),
            chip=Chip(
                989.5,
                80,
                3.35,
                "The H100 SXM's chip and memory, NVLink cut to 400 GB/s",
                "2024-01-01",
            ),
            price_path=_MATURE,
            measured_as="h100",
        ),
        GpuModel(
            "a800",
            "NVIDIA A800",
            markets=("cn",),
            chip=Chip(
                312,
                80,
                2.04,
                "The A100 80GB's chip and memory, NVLink cut to 400 GB/s",
                "2023-01-01",
                fp8=False,
                train_mfu=A100_TRAIN_MFU,
            ),
            price_path=_EXPORT_CONTROLLED,
            measured_as="a100",
        ),
        GpuModel(
            "rubin",
            "NVIDIA Rubin (VR200)",
            price_path=PricePath(
                20.0,
                15.0,
                "Estimate: as the B200, a new generation's rental price falls fastest in its first "
                "two years",
                "2026-12-04",
                "估计：与 B200 相同，新一代产品的租用价格在头两年下降最快",
            ),
        ),
        GpuModel(
            "rtx_pro_6000",
            "NVIDIA RTX PRO 6000 Blackwell",
            price_path=PricePath(
                15.0,
                12.0,
                "Estimate: as the H200, a generation in its second year",
                "2026-12-04",
                "估计：与 H200 相同，处于上市第二年的一代产品",
            ),
        ),
        GpuModel("ascend_910c", "Huawei Ascend 910C", price_path=_EXPORT_CONTROLLED),
    )
}


def offered() -> list[GpuModel]:
    """The models some market offers, in the registry's order."""
    return [model for model in GPUS.values() if model.markets]


def gpu(key: str | None) -> GpuModel:
    """The model of this key (the default one for None or ""); KeyError for an unknown key."""
    return GPUS[key or DEFAULT]


def in_market(market: str) -> tuple[str, ...]:
    """The keys of the models `market` offers: its own first, then those sold mainly
    elsewhere, each group in the registry's order."""
    models = [model for model in offered() if market in model.markets]
    return tuple(model.key for model in sorted(models, key=lambda m: m.markets[0] != market))


def measured_as(key: str) -> str:
    """The throughput table's name for this model's chip."""
    model = GPUS.get(key)
    return (model.measured_as if model else None) or key


def next_generation(market: str, key: str) -> Generation | None:
    """The generation after model `key` in `market`; None where none is modelled (in
    mainland China export controls leave no newer NVIDIA part to buy for most models)."""
    model = GPUS.get(key)
    return model.next.get(market) if model else None


class Choices(Sequence[tuple[str, str]]):
    """(key, name) of every offered model, read from the registry each time: the
    questionnaire's choices for `gpu_model`."""

    def _pairs(self) -> list[tuple[str, str]]:
        return [(model.key, model.label) for model in offered()]

    @overload
    def __getitem__(self, index: int) -> tuple[str, str]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[str, str]]: ...
    def __getitem__(self, index: int | slice) -> tuple[str, str] | Sequence[tuple[str, str]]:
        return self._pairs()[index]

    def __len__(self) -> int:
        return len(offered())

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._pairs())


class Chips(Mapping[str, Chip]):
    """Every offered model's datasheet, by key, read from the registry each time."""

    def __getitem__(self, key: str) -> Chip:
        chip = GPUS[key].chip
        if chip is None:
            raise KeyError(key)
        return chip

    def __iter__(self) -> Iterator[str]:
        return (model.key for model in offered() if model.chip is not None)

    def __len__(self) -> int:
        return sum(1 for _key in self)
