"""Sizing from the work: published training runs reproduced, and the demand it implies."""

import json
import math
from typing import Any

import pytest

from decider.engine import sizing
from decider.engine.demand import Demand
from decider.engine.sizing import CHIPS, Inference, Training, infer_size, size, train_size

# LLaMA (Touvron et al. 2023, arXiv 2302.13971): §2.4 "When training a 65B-parameter model,
# our code processes around 380 tokens/sec/GPU on 2048 A100 GPU with 80GB of RAM. This means
# that training over our dataset containing 1.4T tokens takes approximately 21 days."
# Table 15: 1,022,362 GPU-hours for LLaMA-65B. Table 2: 65.2B parameters.
LLAMA_65B = {"params_b": 65.2, "tokens_b": 1400, "gpus": 2048, "days": 21, "gpu_hours": 1_022_362}
LLAMA_65B_MFU = 380 * 6 * 65.2e9 / (CHIPS["a100"].tflops * 1e12)  # what 380 tokens/s/GPU is


def _llama(**changes) -> Training:
    # The 380 tokens/s held over the whole 21 days: its goodput is in it already.
    work = {"params_b": 65.2, "tokens_b": 1400, "runs_per_year": 1, "days_per_run": 21}
    return Training(**{**work, "mfu": LLAMA_65B_MFU, "goodput": 1.0, **changes})


def test_llama_65b_gpu_hours_are_reproduced_from_its_throughput():
    run = train_size(_llama(), CHIPS["a100"], per_node=8)
    assert run["gpu_hours_per_run"] == pytest.approx(LLAMA_65B["gpu_hours"], rel=0.005)


def test_llama_65b_needs_its_2048_gpus_to_finish_in_21_days():
    run = train_size(_llama(), CHIPS["a100"], per_node=8)
    # "approximately 21 days" on 2048: the sizer's whole nodes for 21.0 days are within 1 %.
    assert run["gpus"] == pytest.approx(LLAMA_65B["gpus"], rel=0.01)
    assert run["gpus"] % 8 == 0
    assert run["days_per_run"] == pytest.approx(21, abs=0.5)


def test_llama_3_405b_flops_are_six_n_d():
    # Dubey et al. 2024 (arXiv 2407.21783), §3.2.1: 405B parameters on 15.6T tokens,
    # "3.8 × 10^25 FLOPs".
    run = train_size(Training(405, 15_600, 1, 60), CHIPS["h100"], per_node=8)
    assert run["flops_per_run"] == pytest.approx(3.8e25, rel=0.01)


def test_a_shorter_deadline_or_a_bigger_model_needs_more_gpus():
    a100 = CHIPS["a100"]
    plan = train_size(_llama(), a100, per_node=8)["gpus"]
    assert train_size(_llama(days_per_run=7), a100, per_node=8)["gpus"] > plan
    assert train_size(_llama(params_b=130), a100, per_node=8)["gpus"] > plan
    assert train_size(_llama(mfu=0.6), a100, per_node=8)["gpus"] < plan


def test_memory_sets_the_floor_of_a_small_run():
    # 70B parameters × 16 bytes = 1,120 GB of training state: 17.5 GPUs of 64 usable GB.
    run = train_size(Training(70, 1, 1, 365), CHIPS["h100"], per_node=8)
    assert run["gpus_for_memory"] == pytest.approx(1120 / (80 * 0.8))
    assert run["gpus"] == 24  # three nodes, though one would do the arithmetic in time


def _served(chip: str = "h100", **work: Any) -> dict[str, Any]:
    given = {"params_b": 70, "tokens_per_day_m": 100, "peak_to_average": 2, **work}
    return infer_size(Inference(**given), CHIPS[chip], per_node=8, gpu_model=chip)


def test_a_replica_holds_the_weights_in_a_power_of_two_of_gpus():
    def replica(params_b: float, chip: str, precision: str = "bf16") -> int:
        return _served(chip, params_b=params_b, precision=precision)["gpus_per_replica"]

    assert replica(8, "h100") == 1  # 16 GB of weights
    assert replica(70, "h100") == 4  # 140 GB over 64 usable GB: 3 GPUs, split over 4
    assert replica(70, "h100", "fp8") == 2  # 70 GB in FP8
    assert replica(70, "h200") == 2  # 141 GB cards
    assert replica(405, "h100") == 16  # more than a node holds: flagged below
    assert "memory" in _served(params_b=405, precision="bf16")["problems"]
    # Left unsaid, serving is in FP8 where the GPU has it, in BF16 where it does not.
    assert _served("h100")["precision"] == "fp8"
    assert _served("a100")["precision"] == "bf16"
    assert _served("a100", precision="fp8")["problems"] == ["fp8"]


def test_a_latency_target_splits_a_replica_further_and_costs_gpus():
    free = _served(tokens_per_day_m=10_000)
    loose = _served(tokens_per_day_m=10_000, latency_ms=100)
    tight = _served(tokens_per_day_m=10_000, latency_ms=10)
    # 70 GB of FP8 weights read per token at 70 % of 3.35 TB/s in 10 ms: 3.0 GPUs' bandwidth.
    assert free["gpus_per_replica"] == 2 and tight["gpus_per_replica"] >= 4
    # A step may take no longer than the target: the batch, and the throughput, shrink.
    assert free["average_gpus"] < loose["average_gpus"] < tight["average_gpus"]
    assert 0 < tight["latency_share"] < loose["latency_share"] < 1
    assert "latency" in _served(precision="bf16", latency_ms=5)["problems"]
    assert "latency" in _served(latency_ms=2)["problems"]


def test_serving_is_sized_from_the_published_table_input_and_output_apart():
    # 8.64 billion tokens a day = 100,000 tokens/s, half of them prompts.
    served = _served(params_b=8, tokens_per_day_m=8640, peak_to_average=3)
    assert served["tokens_per_second"] == pytest.approx(100_000)
    assert served["input_tokens_per_second"] == pytest.approx(50_000)
    shown = served["throughput"]
    assert shown["rows"] == ["Llama 3.1 8B, H100, FP8, TP1"] and "TensorRT-LLM" in shown["source"]
    per_gpu = 50_000 / shown["input_tokens_per_gpu_second"]
    per_gpu += 50_000 / shown["output_tokens_per_gpu_second"]
    assert served["average_gpus"] == pytest.approx(per_gpu)
    assert served["gpus"] == math.ceil(served["average_gpus"] * 3)
    assert served["base_gpus"] == math.ceil(served["average_gpus"] / 3)
    # A prompt token is read in a parallel pass: far cheaper than writing an answer token.
    prompts = _served(params_b=8, input_tokens_per_day_m=8000, output_tokens_per_day_m=640)
    answers = _served(params_b=8, input_tokens_per_day_m=640, output_tokens_per_day_m=8000)
    assert prompts["average_gpus"] < answers["average_gpus"] / 2


def test_a_model_between_the_table_sizes_is_interpolated_and_a_larger_one_borrowed():
    small, middle, large = (_served(params_b=b)["average_gpus"] for b in (8, 13, 70))
    assert small < middle < large
    assert _served(params_b=13)["throughput"]["rows"] == [
        "Llama 3.1 8B, H100, FP8, TP1",
        "Llama 3.1 70B, H100, FP8, TP2",
    ]
    # No 405B row on the H100: the H200's 405B/70B ratio is carried over, and named.
    (row,) = _served(params_b=405)["throughput"]["rows"]
    assert row.startswith("Llama 3.1 70B, H100, FP8, TP8 × (Llama 3.1 405B, H200")


def test_a_gpu_model_the_table_lacks_or_a_typed_mfu_is_sized_by_the_flops():
    # 8.64 billion tokens a day = 100,000 tokens/s; 2 × 8e9 FLOPs each = 1.6e15 FLOP/s;
    # an H100 at 25 % of 989.5 TFLOPS does 2.47e14: 6.47 GPUs at the average.
    typed = _served(params_b=8, tokens_per_day_m=8640, mfu=0.25)
    assert typed["throughput"] is None
    assert typed["average_gpus"] == pytest.approx(1.6e15 / (989.5e12 * 0.25))
    h20 = _served("h20", params_b=8, tokens_per_day_m=8640)
    assert h20["throughput"] is None
    assert h20["average_gpus"] == pytest.approx(1.6e15 / (148e12 * 0.25))
    # The H800 and A800 are the H100's and A100's chips: the table's rows stand for them.
    assert _served("h800")["throughput"]["gpu_model"] == "h100"


def test_the_demand_answers_keep_the_average_of_the_work():
    training = Training(params_b=7, tokens_b=2000, runs_per_year=4, days_per_run=30)
    inference = Inference(params_b=70, tokens_per_day_m=5000, peak_to_average=2.5)
    sized = size(gpu_model="h100", training=training, inference=inference)
    demand = Demand(peak=sized.gpus, base=sized.base_gpus, peak_share=sized.peak_share_pct / 100)
    assert sized.base_gpus < sized.gpus
    assert demand.utilization * sized.gpus == pytest.approx(sized.average_gpus, rel=0.01)
    assert set(sized.answers()) == {"gpus", "base_gpus", "peak_share_pct"}


def test_a_training_only_plan_idles_between_runs():
    sized = size(gpu_model="a100", training=_llama(runs_per_year=2))
    assert sized.base_gpus == 0
    days = next(line["value"] for line in sized.lines if line["key"] == "train_days")
    assert sized.peak_share_pct == pytest.approx(2 * days / 365 * 100, abs=0.1)


def test_every_conversion_and_chip_is_dated_and_sourced():
    for figure in sizing.CONVERSIONS:
        assert figure.source and figure.as_of[:2] == "20" and figure.value > 0
    for chip in CHIPS.values():
        assert chip.source and chip.as_of[:2] == "20"


def test_every_gpu_model_of_the_questionnaire_can_be_sized():
    from decider.engine.questionnaire import GPU_MODELS

    assert {key for key, _label in GPU_MODELS} == set(CHIPS)
    with pytest.raises(ValueError):
        size(gpu_model="h100")


# --- decide's answers file: "work" ------------------------------------------------

LLAMA_WORKLOAD = {
    "training": {"params_b": 65.2, "tokens_b": 1400, "runs_per_year": 2, "days_per_run": 21}
}


def _without_demand(answers: dict) -> dict:
    return {
        k: v
        for k, v in answers.items()
        if k not in ("gpus", "base_gpus", "peak_share_pct", "utilization_pct")
    }


@pytest.mark.django_db
def test_decide_sizes_the_demand_from_the_workload(rules, tmp_path, capsys):
    from tests.factories import make_answers
    from tests.test_decide import run_decide

    answers = {**_without_demand(make_answers("growth")), "gpu_model": "a100"}
    code, out, err = run_decide(
        tmp_path, capsys, {**answers, "work": LLAMA_WORKLOAD}, "--format", "json"
    )
    assert code == 0, err
    data = json.loads(out)
    sized = data["sizing"]
    expected = size(gpu_model="a100", training=Training(**LLAMA_WORKLOAD["training"]))
    assert sized["gpus"] == expected.gpus and sized["base_gpus"] == 0
    assert {c["name"] for c in sized["conversions"]} >= {"train_flops_per_param_token"}
    assert data["costs"]["totals"]  # scored on the sized demand
    # The same answers with the GPU count given: the user's number wins.
    code, out, _err = run_decide(
        tmp_path, capsys, {**answers, "gpus": 64, "work": LLAMA_WORKLOAD}, "--format", "json"
    )
    assert code == 0 and json.loads(out)["sizing"]["gpus"] == expected.gpus
    assert "sizing" not in json.loads(
        run_decide(tmp_path, capsys, make_answers("growth"), "--format", "json")[1]
    )


@pytest.mark.django_db
def test_decide_names_each_workload_input_in_error(rules, tmp_path, capsys):
    from tests.factories import make_answers
    from tests.test_decide import run_decide

    bad = {"training": {"params_b": -1, "tokens_b": "lots", "runs_per_year": 1, "days_per_run": 9}}
    code, _out, err = run_decide(tmp_path, capsys, {**make_answers("growth"), "work": bad})
    assert code == 2
    assert "work.training.params_b: must be from 0.001 to 100000" in err
    assert "work.training.tokens_b: give a number" in err
    moe = {
        "training": {
            "params_b": 37,
            "active_params_b": 671,  # the wrong way round
            "precision": "fp4",
            "tokens_b": 100,
            "runs_per_year": 1,
            "days_per_run": 9,
        }
    }
    code, _out, err = run_decide(tmp_path, capsys, {**make_answers("growth"), "work": moe})
    assert code == 2
    assert "work.training.active_params_b: must not exceed params_b" in err
    assert "work.training.precision: must be one of bf16, fp8" in err


# --- the API: "work" beside the answers ------------------------------------------------

SERVICE = {"inference": {"params_b": 70, "tokens_per_day_m": 5000, "peak_to_average": 2.5}}


def _create(client, answers):
    from django.urls import reverse

    return client.post(
        reverse("decider-api-assessments"),
        data=json.dumps({"answers": answers}),
        content_type="application/json",
    )


@pytest.mark.django_db
def test_the_api_saves_the_demand_the_work_gives_and_shows_the_sizing(client, rules):
    from decider.models import Assessment
    from tests.factories import make_answers

    answers = {**_without_demand(make_answers("growth")), "gpu_model": "h100", "work": SERVICE}
    response = _create(client, answers)
    assert response.status_code == 201, response.content
    data = response.json()
    expected = size(gpu_model="h100", inference=Inference(**SERVICE["inference"]))
    assert data["sizing"]["gpus"] == expected.gpus
    assert {"key": "infer_gpus_per_replica", "value": 2} in data["sizing"]["lines"]  # FP8
    assert data["sizing"]["throughput"]["rows"] == ["Llama 3.1 70B, H100, FP8, TP2"]
    saved = Assessment.objects.get(pk=Assessment.objects.latest("pk").pk)
    assert saved.answers["gpus"] == expected.gpus
    assert saved.answers["base_gpus"] == expected.base_gpus and "work" not in saved.answers
    bad = _create(
        client, {**answers, "work": {"inference": {**SERVICE["inference"], "peak_to_average": 0}}}
    )
    assert bad.status_code == 400
    assert bad.json()["errors"] == {"work.inference.peak_to_average": "must be from 1 to 100"}


def test_the_openapi_document_describes_the_work_block(client):
    from django.urls import reverse

    spec = client.get(reverse("decider-api-openapi")).json()["components"]["schemas"]
    work = spec["Answers"]["properties"]["work"]
    assert set(work["properties"]) == {"training", "inference"}
    assert work["properties"]["training"]["required"] == [
        "params_b",
        "tokens_b",
        "runs_per_year",
        "days_per_run",
    ]
    assert {"required": ["work"]} in spec["Answers"]["anyOf"]


# --- the sizing page -----------------------------------------------------------------


@pytest.fixture
def unsized(rules):
    from tests.factories import make_answers, make_assessment

    answers = {**_without_demand(make_answers("growth")), "gpu_model": "a100", "gpus": 8}
    return make_assessment(answers={**answers, "utilization_pct": 40.0})


def _size_form(**typed):
    return {f"training-{k}": v for k, v in typed.items()}


@pytest.mark.django_db
def test_the_sizing_page_shows_the_arithmetic_and_fills_the_utilization_step(client, unsized):
    from django.urls import reverse

    from decider.models import Assessment

    assessment, edit, _view = unsized
    url = reverse("decider-size", args=[edit])
    step = client.get(reverse("decider-step", args=[edit, "utilization"])).content.decode()
    assert url in step  # the utilization step links to it
    typed = _size_form(params_b="65.2", tokens_b="1400", runs_per_year="1", days_per_run="21")
    shown = client.post(url, {**typed, "action": "size"}).content.decode()
    expected = size(gpu_model="a100", training=Training(65.2, 1400, 1, 21))
    assert f"{expected.gpus} GPUs at the peak" in shown
    assert "FLOPs one training run needs" in shown and "5.48e+23" in shown  # 6 × 65.2B × 1.4T
    assert Assessment.objects.get(pk=assessment.pk).answers["gpus"] == 8  # nothing saved yet
    used = client.post(url, {**typed, "action": "use"})
    assert used.status_code == 302 and used["Location"].endswith("/step/utilization/")
    answers = Assessment.objects.get(pk=assessment.pk).answers
    assert answers["gpus"] == expected.gpus and answers["base_gpus"] == expected.base_gpus
    assert "utilization_pct" not in answers  # the levels give the average now
    page = client.get(used["Location"]).content.decode()
    assert f'value="{expected.gpus}"' in page  # prefilled, to be changed like any answer
    assert "Sized from the work" in page


@pytest.mark.django_db
def test_the_sizing_page_names_what_is_missing_or_wrong_next_to_the_field(client, unsized):
    from django.urls import reverse

    _assessment, edit, _view = unsized
    url = reverse("decider-size", args=[edit])
    empty = client.post(url, {"action": "size"}).content.decode()
    assert "Fill in a training plan, an inference service, or both." in empty
    partly = client.post(url, {**_size_form(params_b="70", tokens_b="abc"), "action": "size"})
    page = partly.content.decode()
    assert partly.status_code == 200
    assert "Tokens per training run (billions): enter" in page
    assert "Training runs per year: needed for this part." in page
    assert 'value="abc"' in page  # what was typed stays
    chinese = client.post(
        url, {"action": "size"}, headers={"Accept-Language": "zh-hans"}
    ).content.decode()
    assert "训练" in chinese
    backwards = _size_form(
        params_b="37", active_params_b="671", tokens_b="100", runs_per_year="1", days_per_run="9"
    )
    page = client.post(url, {**backwards, "action": "size"}).content.decode()
    assert "Must not exceed the model&#x27;s parameters (37 billion)." in page


@pytest.mark.django_db
def test_the_sizing_page_sizes_a_mixture_of_experts_in_fp8_and_shows_why(client, unsized):
    from django.urls import reverse

    _assessment, edit, _view = unsized
    url = reverse("decider-size", args=[edit])
    typed = _size_form(
        params_b="671",
        active_params_b="37",
        precision="fp8",
        tokens_b="14800",
        runs_per_year="1",
        days_per_run="57",
    )
    shown = client.post(url, {**typed, "action": "size"}).content.decode()
    # The assessment's GPU model is the A100: no FP8 there, and the page says so.
    assert "has no FP8 tensor cores: sized in BF16" in shown
    assert "Share of the BF16 peak a run achieves (MFU)" in shown and "25.0 %" in shown
    assert "goodput" in shown and "90.0 %" in shown


def _service_form(**typed):
    return {f"inference-{k}": v for k, v in typed.items()}


@pytest.mark.django_db
def test_the_sizing_page_sizes_a_service_from_the_table_prompts_and_answers_apart(client, unsized):
    from django.urls import reverse

    _assessment, edit, _view = unsized
    url = reverse("decider-size", args=[edit])
    typed = _service_form(
        params_b="70",
        input_tokens_per_day_m="8000",
        output_tokens_per_day_m="2000",
        peak_to_average="2",
    )
    shown = client.post(url, {**typed, "action": "size"}).content.decode()
    # The assessment's GPU model is the A100: served in BF16, four to a replica.
    expected = size(
        gpu_model="a100",
        inference=Inference(
            params_b=70,
            input_tokens_per_day_m=8000,
            output_tokens_per_day_m=2000,
            peak_to_average=2,
        ),
    )
    assert f"{expected.gpus} GPUs at the peak" in shown
    assert "Llama 3.1 70B, A100, BF16, TP4" in shown and "TensorRT-LLM" in shown
    assert "Input tokens one GPU reads a second" in shown
    # FP8 asked of a GPU without it: sized in BF16, and said.
    fp8 = client.post(url, {**typed, "inference-precision": "fp8", "action": "size"})
    assert "has no FP8 tensor cores" in fp8.content.decode()


@pytest.mark.django_db
def test_the_sizing_page_asks_for_both_halves_or_the_total(client, unsized):
    from django.urls import reverse

    _assessment, edit, _view = unsized
    url = reverse("decider-size", args=[edit])
    half = _service_form(params_b="8", input_tokens_per_day_m="100", peak_to_average="2")
    page = client.post(url, {**half, "action": "size"}).content.decode()
    assert "Give input and output tokens both, or only the total below." in page
    assert 'value="100"' in page  # what was typed stays
    none = _service_form(params_b="8", peak_to_average="2")
    page = client.post(url, {**none, "action": "size"}).content.decode()
    assert "Give the tokens a day: input and output apart, or all of them here." in page
    clash = {**half, "inference-output_tokens_per_day_m": "100", "inference-tokens_per_day_m": "5"}
    page = client.post(url, {**clash, "action": "size"}).content.decode()
    assert "If both, this must be their sum." in page
    total = _service_form(params_b="8", tokens_per_day_m="200", peak_to_average="2")
    assert "GPUs at the peak" in client.post(url, {**total, "action": "size"}).content.decode()


@pytest.mark.django_db
def test_the_api_takes_input_and_output_tokens_apart_and_names_what_is_missing(client, rules):
    from tests.factories import make_answers

    base = {**_without_demand(make_answers("growth")), "gpu_model": "h100"}
    service = {"params_b": 8, "peak_to_average": 2}
    apart = {**service, "input_tokens_per_day_m": 900, "output_tokens_per_day_m": 100}
    data = _create(client, {**base, "work": {"inference": apart}}).json()
    lines = {line["key"]: line["value"] for line in data["sizing"]["lines"]}
    assert lines["infer_input_tokens_per_second"] == pytest.approx(900e6 / 86400)
    assert lines["infer_tokens_per_second"] == pytest.approx(1000e6 / 86400)
    assert "infer_average_gpus" in lines and "infer_decode_rate" in lines
    half = {**service, "input_tokens_per_day_m": 900}
    bad = _create(client, {**base, "work": {"inference": half}})
    assert bad.status_code == 400
    assert bad.json()["errors"] == {
        "work.inference.output_tokens_per_day_m": (
            "give output_tokens_per_day_m too, or tokens_per_day_m alone"
        )
    }
    clash = {**apart, "tokens_per_day_m": 5}
    bad = _create(client, {**base, "work": {"inference": clash}}).json()
    assert bad["errors"] == {
        "work.inference.tokens_per_day_m": "must equal input + output (1000), or be left out"
    }
    wrong = {**apart, "precision": "int4"}
    bad = _create(client, {**base, "work": {"inference": wrong}}).json()
    assert bad["errors"] == {"work.inference.precision": "must be one of bf16, fp8"}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_in_chromium_the_step_links_to_the_sizing_and_its_numbers_come_back(
    browser, live_server, rules
):
    from tests.conftest import new_page
    from tests.factories import make_answers, make_assessment

    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    page = new_page(browser)
    page.goto(f"{live_server.url}/a/{edit}/step/utilization/")
    page.click("#size-link a")
    for name, value in {"params_b": "70", "tokens_b": "2000", "runs_per_year": "4"}.items():
        page.fill(f"#id_training-{name}", value)
    page.fill("#id_training-days_per_run", "30")
    page.click("button[value=size]")
    heading = page.locator("#sized-title").inner_text()
    gpus = heading.split()[0]
    page.click("button[value=use]")
    page.wait_for_url("**/step/utilization/")
    assert page.input_value("#id_gpus") == gpus
    assert "Sized from the work" in page.locator(".messages").inner_text()
    assert page.errors == []


def test_every_series_of_the_throughput_table_is_fitted_within_its_rows():
    from decider.engine import throughput

    for key in throughput.TABLE:
        fitted = throughput.fit(key)
        assert fitted.rows >= 7 and fitted.worst < 0.12, key
        assert fitted.prefill > 0 and fitted.decode > 0


# --- a latency target, from published pairs of limits (engine/latency.py) ---------------

# MLPerf Inference: the same systems' output tokens/s under the interactive and the server
# limits (v5.0 Llama 2 70B on 8× H100: HPE, Dell; v5.1 Llama 3.1 8B on 8× H200: HPE, Quanta).
H100_70B_KEPT = (14_004.93 / 30_498.90 + 12_979.40 / 30_903.60) / 2  # at 40 ms a token
HOPPER_8B_KEPT = (53_475.2 / 64_914.6 + 54_117.6 / 57_970.4) / 2  # at 30 ms a token


@pytest.mark.parametrize(
    ("params_b", "tpot_ms", "published"), [(70, 40, H100_70B_KEPT), (8, 30, HOPPER_8B_KEPT)]
)
def test_an_interactive_target_keeps_the_share_the_published_pairs_measured(
    params_b, tpot_ms, published
):
    """10 billion tokens a day at the interactive limits: the GPUs' writing rate is the
    table's times the published share, where a bandwidth estimate kept 81 % (70B) and 99 %
    (8B) of it."""
    free = _served(params_b=params_b, tokens_per_day_m=10_000, peak_to_average=1)
    held = _served(
        params_b=params_b, tokens_per_day_m=10_000, peak_to_average=1, latency_ms=tpot_ms
    )
    assert held["latency_share"] == pytest.approx(published)
    reading = held["input_tokens_per_second"] / held["prefill_rate"]
    writing = held["output_tokens_per_second"] / held["decode_rate"]
    assert held["average_gpus"] == pytest.approx(reading + writing / published)
    assert held["average_gpus"] > free["average_gpus"] * 1.05
    shown = held["throughput"]["latency"]
    assert shown["tight_tpot_ms"] == tpot_ms and len(shown["pairs"]) == 2
    assert all("MLPerf Inference" in pair["source"] for pair in shown["pairs"])


def test_a_target_between_the_limits_keeps_a_share_between_theirs():
    at = {
        ms: _served(tokens_per_day_m=10_000, latency_ms=ms)["latency_share"]
        for ms in (20, 40, 89.44, 200, 500)
    }
    assert at[200] == at[500] == 1.0  # the server limits are the reference
    assert at[89.44] == pytest.approx((H100_70B_KEPT + 1) / 2, abs=1e-3)  # halfway in log
    assert at[20] == pytest.approx(H100_70B_KEPT / 2)  # beyond anything published
    shown = _served(tokens_per_day_m=10_000, latency_ms=20)["throughput"]["latency"]
    assert (
        shown["beyond_published"]
        and not _served(latency_ms=40)["throughput"]["latency"]["beyond_published"]
    )


def test_a_gpu_without_published_pairs_keeps_the_bandwidth_estimate():
    held = _served("a100", tokens_per_day_m=10_000, latency_ms=40)
    assert held["throughput"]["latency"] is None
    assert 0 < held["latency_share"] < 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "keeps 44 % of that rate"), ("zh-hans", "44 %")],
)
def test_the_sizing_page_says_which_published_figure_the_latency_target_read(
    client, rules, language, said
):
    from django.urls import reverse

    from tests.factories import make_answers, make_assessment

    answers = {**_without_demand(make_answers("growth")), "gpu_model": "h100", "gpus": 8}
    _assessment, edit, _view = make_assessment(answers={**answers, "utilization_pct": 40.0})
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    typed = {
        "inference-params_b": "70",
        "inference-tokens_per_day_m": "10000",
        "inference-peak_to_average": "1",
        "inference-latency_ms": "40",
    }
    page = client.post(reverse("decider-size", args=[edit]), {**typed, "action": "size"})
    shown = page.content.decode()
    assert page.status_code == 200 and 'id="latency-pairs"' in shown
    assert said in shown
    found = shown[shown.index('id="latency-pairs"') :][:1500]
    assert "HPE Cray XD670" in found and "14,005 / 30,499" in found, found
    assert "MLPerf Inference v5.0" in shown
