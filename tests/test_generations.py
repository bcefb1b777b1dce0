"""This generation or the next: own this GPU model now, or rent and own the next one when
it can run; and what the GPUs owned now are worth against their speed-equivalent in the
cloud. Analytic cases first, then one test per direction, then the pages."""

from dataclasses import replace

import pytest

from decider.engine import gpus
from decider.engine.gpus import GPUS, Generation
from decider.engine.stages import Future, plan_compute
from decider.engine.text import Text
from tests.factories import make_cost_answers, shipped_figures

FIXED = {
    name: (1.0, 1.0)
    for name in ("utilization", "cloud_price", "hardware_price", "lead_time", "resale")
}
TWIN = Generation(
    "h100",
    Text("An H100 again", "又一块 H100"),
    0,
    train_speed=1.0,
    infer_speed=1.0,
    server_price=1.0,
    network_price=1.0,
    node_kw=1.0,
    cloud_price=1.0,
    source="test",
    source_zh="测试",
    as_of="2026-12-04",
)


def _next(monkeypatch=None, generation=None, *, answers=None, ranges=None, **figures):
    if generation is not None:
        monkeypatch.setitem(GPUS, "h100", replace(GPUS["h100"], next={"global": generation}))
    return plan_compute(
        answers=answers
        or make_cost_answers(gpus=64, utilization=0.8, horizon_months=60, team_fte=1.0),
        figures=shipped_figures("h100", **figures),
        future=Future(),
        ranges=ranges,
        seed=3,
    )["generation"]


def _switches(found):
    return [o for o in found["options"] if o["own"] == "successor"]


@pytest.mark.parametrize(
    ("model", "successor"), [("a100", "h100"), ("h100", "b200"), ("h200", "b200")]
)
def test_the_ratios_are_the_shipped_price_sets_own_where_both_models_are_in_it(model, successor):
    generation = gpus.next_generation("global", model)
    before, after = shipped_figures(model), shipped_figures(successor)

    def ratio(name):
        return after[name].value / before[name].value

    assert generation.successor == successor
    assert generation.server_price == pytest.approx(ratio("server_price"), rel=1e-3)
    assert generation.network_price == pytest.approx(ratio("network_per_node"), rel=1e-3)
    assert generation.node_kw == pytest.approx(ratio("node_kw"), rel=1e-3)
    assert generation.cloud_price == pytest.approx(ratio("gpu_hour_on_demand"), rel=1e-3)
    for term in ("gpu_hour_reserved_1y", "gpu_hour_reserved_3y", "gpu_hour_spot"):
        assert generation.cloud_price == pytest.approx(ratio(term), rel=0.12)  # one ratio
    assert generation.train_speed == pytest.approx(ratio("perf_train_vs_h100"), rel=1e-3)
    assert generation.infer_speed == pytest.approx(ratio("perf_infer_vs_h100"), rel=1e-3)


def test_a_next_generation_that_is_this_one_again_costs_the_same_as_owning_this_one(
    monkeypatch,
):
    found = _next(monkeypatch, TWIN, ranges=FIXED)
    now, first = found["options"][0], _switches(found)[0]
    assert now["own"] == "current" and first["month"] == now["month"]
    assert first["gpus"] == now["gpus"] == found["owned_gpus"]
    assert first["present_value"] == pytest.approx(now["present_value"], rel=1e-9)


def test_with_nothing_uncertain_the_odds_agree_with_the_plain_comparison(monkeypatch):
    for cloud_price in (0.6, 1.6):  # the successor's rentals cheaper, then dearer
        found = _next(
            monkeypatch, replace(TWIN, ships_month=6, cloud_price=cloud_price), ranges=FIXED
        )
        now = found["options"][0]["present_value"]
        for option in _switches(found):
            expected = 100.0 if option["present_value"] < now else 0.0
            assert option["cheaper_than_current_pct"] == expected


def test_a_faster_next_generation_at_the_same_price_is_the_one_to_own(monkeypatch):
    found = _next(monkeypatch, replace(TWIN, train_speed=2.0, infer_speed=2.0))
    assert found["best"]["own"] == "successor"
    assert found["successor_gpus"] == found["owned_gpus"] // 2  # its speed-equivalent
    assert all(o["cheaper_than_current_pct"] > 50 for o in _switches(found))


def test_a_dearer_next_generation_no_faster_keeps_this_one(monkeypatch):
    found = _next(monkeypatch, replace(TWIN, server_price=1.5, node_kw=1.3))
    assert found["best"] == {"own": "current", "month": found["options"][0]["month"]}
    assert all(o["cheaper_than_current_pct"] < 50 for o in _switches(found))


def test_it_cannot_be_owned_before_it_ships_and_arrives(monkeypatch):
    found = _next(monkeypatch, replace(TWIN, ships_month=9), lead_time_months=4)
    assert found["first_successor_month"] == 13  # ships in month 9, then the lead time
    assert min(o["month"] for o in _switches(found)) == 13
    assert found["options"][0]["month"] == 4  # this generation: the lead time only


def test_a_later_next_generation_outlives_the_gpus_owned_now_later(monkeypatch):
    cheap_rentals = replace(TWIN, train_speed=2.0, infer_speed=2.0)
    soon = _next(monkeypatch, replace(cheap_rentals, ships_month=12))
    late = _next(monkeypatch, replace(cheap_rentals, ships_month=36))
    assert 12 <= soon["outlived_month"] < late["outlived_month"]
    assert late["outlived_month"] >= 36
    # Before the next generation ships, renting their work costs more than running them.
    year = soon["worth"][0]
    assert year["cloud_equivalent"] > year["running"]


def test_the_gpus_owned_now_are_worth_their_speed_equivalent_in_the_cloud(monkeypatch):
    slow = _next(monkeypatch, replace(TWIN, ships_month=12, train_speed=1.5, infer_speed=1.5))
    fast = _next(monkeypatch, replace(TWIN, ships_month=12, train_speed=3.0, infer_speed=3.0))
    for s, f in zip(slow["worth"], fast["worth"], strict=True):
        assert s["running"] == f["running"]  # the same GPUs cost the same to run
        if s["year"] == 1:
            assert s["cloud_equivalent"] == f["cloud_equivalent"]  # the successor not out
        else:
            assert f["cloud_equivalent"] < s["cloud_equivalent"]


def test_cheaper_rentals_of_the_next_generation_do_not_decide_which_one_to_own(monkeypatch):
    # Both options rent above what they own on the cheaper generation per unit of work:
    # with the same hardware owned, they cost the same however cheap the new rentals are.
    for cloud_price in (0.5, 2.0):
        found = _next(monkeypatch, replace(TWIN, cloud_price=cloud_price), ranges=FIXED)
        now, first = found["options"][0], _switches(found)[0]
        assert first["present_value"] == pytest.approx(now["present_value"], rel=1e-9)


def test_owning_this_generation_now_rents_above_it_on_the_cheaper_one():
    plan = plan_compute(
        answers=make_cost_answers(gpus=64, utilization=0.8, horizon_months=60, team_fte=1.0),
        figures=shipped_figures("h100"),
        seed=3,
    )
    now = plan["generation"]["options"][0]
    # The B200 ships now, and rents for less per unit of work than the H100: owning H100s
    # now costs less than the wait's "now", which rents H100s above them.
    assert now["present_value"] < plan["wait"]["options"][0]["present_value"]
    assert plan["generation"]["successor"] == "b200"


def test_no_next_generation_when_data_may_not_leave():
    answers = make_cost_answers(gpus=64, utilization=0.8, horizon_months=60, cloud_share=0.5)
    found = _next(answers=answers)
    assert found["options"] == [] and found["best"] is None


def test_no_next_generation_where_none_can_be_bought():
    assert gpus.next_generation("cn", "h20") is None
    plan = plan_compute(
        answers=make_cost_answers(gpus=64, utilization=0.8, prices_in="CNY"),
        figures=shipped_figures("h20", market="cn"),
        gpu_model="h20",
        market="cn",
    )
    assert plan["generation"] is None


@pytest.mark.django_db
def test_the_result_page_and_the_report_answer_this_generation_or_the_next(client, rules):
    from django.urls import reverse

    from tests.factories import make_answers, make_assessment

    # An inference service on 32 H100s: the B200 serves three times as fast.
    _assessment, edit, _view = make_assessment(answers=make_answers("inference"))
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    # The B200 ships now: the newer generation, not the next one.
    assert "NVIDIA H100 or the newer NVIDIA B200?" in page and 'id="generation-sentence"' in page
    assert "This generation or the next?" not in page
    # B200s rent for less than H100s per unit of this work: renting them beats owning either.
    assert "Neither: renting throughout, on whichever generation does the work for less" in page
    assert "Rent throughout, on the cheaper generation" in page
    assert "NVIDIA B200 can be bought now: The shipped price set" in page
    assert "What the NVIDIA H100 GPUs owned now are worth, year by year" in page
    assert page.count("Renting their work") == 1
    report = client.get(reverse("decider-edit-report", args=[edit])).content.decode()
    assert "NVIDIA H100 or the newer NVIDIA B200?" in report and "8 NVIDIA B200 GPUs" in report
    chinese = client.get(
        reverse("decider-result", args=[edit]), headers={"Accept-Language": "zh-hans"}
    ).content.decode()
    assert "NVIDIA H100 还是更新的 NVIDIA B200？" in chinese
    assert "DGX B200 自 2025 年初起供货" in chinese
    # The Rubin after the B200 does not ship yet: that one is the next generation.
    _b200, b200_edit, _v = make_assessment(answers=make_answers("inference", gpu_model="b200"))
    b200_page = client.get(reverse("decider-result", args=[b200_edit])).content.decode()
    assert "This generation or the next?" in b200_page


@pytest.mark.django_db
def test_decide_carries_this_generation_or_the_next(rules, tmp_path, capsys):
    import json

    from tests.factories import make_answers
    from tests.test_decide import run_decide

    code, out, err = run_decide(tmp_path, capsys, make_answers("inference"), "--format", "json")
    assert code == 0, err
    found = json.loads(out)["plan"]["generation"]
    assert found["model"] == "h100" and found["successor"] == "b200"
    assert found["speed"] == 3.0 and found["successor_gpus"] * 3 >= found["owned_gpus"]
    assert {o["own"] for o in found["options"]} == {"current", "successor"}
    assert [y["year"] for y in found["worth"]] == [1, 2, 3]


DEAR_CLOUD = {"gpu_hour_on_demand": 4.5, "gpu_hour_reserved_3y": 3.6}


@pytest.mark.parametrize(
    ("generation", "figures", "says"),
    [
        (
            replace(TWIN, server_price=1.5, node_kw=1.3),
            DEAR_CLOUD,
            "Own {gpus} NVIDIA H100 GPUs now:",
        ),
        (
            replace(TWIN, train_speed=2.0, infer_speed=2.0),
            DEAR_CLOUD,
            "Own {successor_gpus} An H100 again GPUs (2× as fast for this work) rather than "
            "{gpus} NVIDIA H100 GPUs, both from month 3:",
        ),
        (
            replace(TWIN, train_speed=2.0, infer_speed=2.0, ships_month=6),
            DEAR_CLOUD,
            "Rent until month 9, then own {successor_gpus} An H100 again GPUs",
        ),
        (TWIN, {"gpu_hour_reserved_3y": 1.2}, "Neither: renting throughout"),
    ],
)
def test_the_sentence_names_the_cheapest_choice(monkeypatch, generation, figures, says):
    from django.utils.translation import override

    from decider.summary import generation_summary

    found = _next(monkeypatch, generation, **figures)
    with override("en"):
        shown = generation_summary(found, "USD")
    says = says.format(gpus=found["owned_gpus"], successor_gpus=found["successor_gpus"])
    assert shown["sentence"].startswith(says), shown["sentence"]
    assert len(shown["options"]) == len(found["options"]) + 1  # and renting throughout
