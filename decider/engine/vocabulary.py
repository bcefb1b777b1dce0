"""The words the result is told in: the cost lines, the kinds of provider, the classes of
hosted model. Vocabulary only: the readers of a decision (summary, report, charts, per
token) name things with these and import no pricing or analysis module
(tests/test_layout.py).
"""

from __future__ import annotations

from decider.engine.i18n import gettext_noop
from decider.engine.text import Text

# Every cost line an option can have, in the order a breakdown shows them.
LINE_LABELS: dict[str, str] = {
    "servers": gettext_noop("Servers"),
    "network": gettext_noop("Network (InfiniBand or RoCE)"),
    "storage": gettext_noop("Storage hardware"),
    "spares": gettext_noop("Spare parts"),
    "setup": gettext_noop("Set-up"),
    "financing": gettext_noop("Purchases financed (instalments)"),
    "bridge": gettext_noop("Cloud while the hardware arrives"),
    "power": gettext_noop("Power"),
    "colocation": gettext_noop("Colocation"),
    "maintenance": gettext_noop("Maintenance"),
    "licences": gettext_noop("Software licences"),
    "refresh": gettext_noop("Servers replaced at the end of their life"),
    "residual": gettext_noop("Resale credit"),
    "fleet_sale": gettext_noop("Resale of the GPUs you own now"),
    "gpu_committed": gettext_noop("Cloud GPUs committed"),
    "gpu": gettext_noop("Cloud GPU-hours"),
    "cloud_storage": gettext_noop("Cloud storage"),
    "egress": gettext_noop("Data egress"),
    "tokens": gettext_noop("Bursts sent per token"),
    "hiring": gettext_noop("Recruiting"),
    "staff": gettext_noop("Staff hired for the owned cluster"),
    "cloud_staff": gettext_noop("Staff hired for the cloud platform"),
    "team": gettext_noop("The team you already have (counted)"),
}

PROVIDER_KINDS: dict[str, Text] = {
    "hyperscaler": Text("hyperscaler", "超大规模云厂商"),
    "neocloud": Text("GPU cloud", "GPU 专业云"),
}

# The classes of hosted model a service is priced at (engine/tokens.py).
MODEL_CLASSES: dict[str, Text] = {
    "8b": Text(en="an open-weight model of about 8B parameters", zh="约 8B 参数的开源权重模型"),
    "70b": Text(en="an open-weight model of about 70B parameters", zh="约 70B 参数的开源权重模型"),
    "moe_large": Text(
        en="a large open-weight mixture of experts (DeepSeek, Qwen3-235B class)",
        zh="大型开源权重混合专家模型（DeepSeek、Qwen3-235B 级别）",
    ),
}


# The published tiers of cost per GPU-hour (engine/tiers.py), by key.
TIER_LABELS = {
    "owned_hyperscaler": gettext_noop("owned at hyperscaler volume"),
    "owned_neocloud": gettext_noop("owned by a neocloud"),
    "rented_3y": gettext_noop("rented on a 3-year commitment"),
}
