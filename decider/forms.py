"""One plain form per wizard step. Fields, bounds and help come from answers.QUESTIONS."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from decider.answers import QUESTIONS
from decider.costs import Assumption


def question_field(key: str) -> forms.Field:
    return QUESTIONS[key].formfield()


class StepForm(forms.Form):
    def answers(self) -> dict[str, Any]:
        """The valid answers of this step (all of them once is_valid())."""
        return {key: value for key, value in self.cleaned_data.items() if key in QUESTIONS}

    def question_rows(self) -> list[tuple[forms.BoundField, str]]:
        """The questionnaire's fields with their units, for the template."""
        return [(self[key], QUESTIONS[key].unit) for key in self.fields if key in QUESTIONS]


class WorkloadForm(StepForm):
    stage = question_field("stage")
    workload = question_field("workload")
    direction_settled = question_field("direction_settled")
    demand_shape = question_field("demand_shape")
    capacity_lead_time = question_field("capacity_lead_time")
    latency_critical = question_field("latency_critical")
    multi_region = question_field("multi_region")
    custom_topology = question_field("custom_topology")


class UtilizationForm(StepForm):
    utilization_pct = question_field("utilization_pct")
    gpus = question_field("gpus")
    gpu_model = question_field("gpu_model")
    horizon_years = question_field("horizon_years")


class OpsForm(StepForm):
    ops_hardware = question_field("ops_hardware")
    ops_filesystem = question_field("ops_filesystem")
    ops_drivers = question_field("ops_drivers")
    ops_fte = question_field("ops_fte")
    has_datacenter = question_field("has_datacenter")


class DataForm(StepForm):
    residency = question_field("residency")
    sensitivity = question_field("sensitivity")
    jurisdiction_concern = question_field("jurisdiction_concern")
    dataset_tb = question_field("dataset_tb")


# The figures shown under "adjust the figures", with an upper bound where the
# value is a share.
ADJUSTABLE = {
    "server_price": (_("Server price per node"), None),
    "gpus_per_node": (_("GPUs per server"), None),
    "network_per_node": (_("Network (InfiniBand) per node"), None),
    "storage_capex_per_tb": (_("Storage hardware per TB"), None),
    "setup_cost": (_("One-off set-up"), None),
    "node_kw": (_("Power per node"), None),
    "pue": (_("PUE (facility overhead)"), None),
    "kwh_price": (_("Electricity price"), None),
    "colo_kw_month": (_("Colocation per kW-month"), None),
    "maintenance_rate": (_("Maintenance per year (share of hardware)"), 1),
    "fte_cost": (_("Loaded cost of one engineer per year"), None),
    "onprem_fte": (_("On-prem staff per node"), None),
    "cloud_fte": (_("Cloud platform staff per node"), None),
    "lead_time_months": (_("Procurement lead time"), 60),
    "depreciation_years": (_("Depreciation period"), 20),
    "gpu_hour_on_demand": (_("Cloud on-demand price per GPU-hour"), None),
    "gpu_hour_reserved_1y": (_("Cloud 1-year reserved price per GPU-hour"), None),
    "gpu_hour_reserved_3y": (_("Cloud 3-year reserved price per GPU-hour"), None),
    "gpu_hour_spot": (_("Cloud spot price per GPU-hour"), None),
    "spot_share": (_("Share of cloud hours on spot"), 1),
    "cloud_storage_tb_month": (_("Cloud storage per TB-month"), None),
    "egress_tb_month": (_("Data leaving the cloud per month"), None),
    "egress_price_tb": (_("Egress price per TB"), None),
    "transfer_gbps": (_("Bandwidth for the initial data transfer"), None),
}


class BudgetForm(StepForm):
    capex_available = question_field("capex_available")

    def __init__(
        self,
        *args: Any,
        assumptions: Mapping[str, Assumption],
        overrides: Mapping[str, float] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.assumptions = assumptions
        overrides = overrides or {}
        for name, (label, upper) in ADJUSTABLE.items():
            if name not in assumptions:
                continue
            default = assumptions[name]
            self.fields[f"cost_{name}"] = forms.FloatField(
                label=label,
                min_value=0,
                max_value=upper,
                required=False,  # left empty: the default figure
                initial=overrides.get(name, default.value),
                help_text=f"{default.unit} · {default.source} ({default.as_of})",
            )

    def cost_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith("cost_")]

    def cost_overrides(self) -> dict[str, float]:
        """Figures the user changed from the defaults."""
        overrides = {}
        for name, value in self.cleaned_data.items():
            if name.startswith("cost_") and value is not None:
                assumption = self.assumptions[name.removeprefix("cost_")]
                if value != assumption.value:
                    overrides[assumption.name] = value
        return overrides


STEP_FORMS: dict[str, type[StepForm]] = {
    "workload": WorkloadForm,
    "utilization": UtilizationForm,
    "ops": OpsForm,
    "data": DataForm,
    "budget": BudgetForm,
}


class StartForm(forms.Form):
    preset = forms.ChoiceField(required=False, widget=forms.RadioSelect)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from decider.personas import PRESETS

        super().__init__(*args, **kwargs)
        self.fields["preset"].choices = [("", _("Start from blank answers"))] + [
            (key, preset["label"]) for key, preset in PRESETS.items()
        ]


def name_clean(text: str) -> str:
    """A name on one line: control characters (newlines, tabs) become spaces."""
    return " ".join(
        "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text).split()
    )


class NameForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120, required=False)

    def clean_name(self) -> str:
        return name_clean(self.cleaned_data["name"])
