"""Sizing from the work: published training runs reproduced, and the demand it implies."""

import json
import math

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


def test_a_replica_holds_the_weights_in_a_power_of_two_of_gpus():
    def replica(params_b: float, chip: str) -> int:
        work = Inference(params_b=params_b, tokens_per_day_m=1, peak_to_average=2)
        return infer_size(work, CHIPS[chip], per_node=8)["gpus_per_replica"]

    assert replica(8, "h100") == 1  # 16 GB of weights
    assert replica(70, "h100") == 4  # 140 GB over 64 usable GB: 3 GPUs, split over 4
    assert replica(70, "h200") == 2  # 141 GB cards
    assert replica(405, "h100") == 16  # more than a node holds: flagged below
    work = Inference(params_b=405, tokens_per_day_m=1, peak_to_average=2)
    assert "memory" in infer_size(work, CHIPS["h100"], per_node=8)["problems"]


def test_a_latency_target_splits_a_replica_further():
    loose = Inference(params_b=70, tokens_per_day_m=100, peak_to_average=2, latency_ms=100)
    tight = Inference(params_b=70, tokens_per_day_m=100, peak_to_average=2, latency_ms=10)
    h100 = CHIPS["h100"]
    assert infer_size(loose, h100, per_node=8)["gpus_per_replica"] == 4
    # 140 GB read per token at 70 % of 3.35 TB/s in 10 ms: 6.0 GPUs' bandwidth, split over 8.
    assert infer_size(tight, h100, per_node=8)["gpus_per_replica"] == 8
    impossible = Inference(params_b=70, tokens_per_day_m=100, peak_to_average=2, latency_ms=5)
    assert "latency" in infer_size(impossible, h100, per_node=8)["problems"]


def test_inference_gpus_follow_the_arithmetic():
    # 8.64 billion tokens a day = 100,000 tokens/s; 2 × 8e9 FLOPs each = 1.6e15 FLOP/s;
    # an H100 at 25 % of 989.5 TFLOPS does 2.47e14: 6.47 GPUs at the average.
    work = Inference(params_b=8, tokens_per_day_m=8640, peak_to_average=3)
    served = infer_size(work, CHIPS["h100"], per_node=8)
    assert served["tokens_per_second"] == pytest.approx(100_000)
    assert served["average_gpus"] == pytest.approx(1.6e15 / (989.5e12 * 0.25))
    assert served["gpus"] == math.ceil(served["average_gpus"] * 3)
    assert served["base_gpus"] == math.ceil(served["average_gpus"] / 3)


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
    assert {"key": "infer_gpus_per_replica", "value": 4} in data["sizing"]["lines"]
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
    assert "has no FP8 tensor cores: the run is sized in BF16" in shown
    assert "Share of the BF16 peak a run achieves (MFU)" in shown and "25.0 %" in shown
    assert "goodput" in shown and "90.0 %" in shown


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
