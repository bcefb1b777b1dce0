"""One registry of GPU models (decider/engine/gpus.py): a model added there, with its figures,
is offered, validated, sized, priced and planned, and nothing else needs to change."""

import pytest

from decider.engine import gpus, markets, questionnaire, sizing, validation
from decider.engine.evaluation import answers_evaluate, answers_plan
from decider.engine.figures import figures_select
from decider.engine.gpus import GPUS, Chip, GpuModel, PricePath
from decider.engine.sizing import Training
from tests.factories import make_answers, shipped_figure_rows, shipped_rulebook

MI300X = GpuModel(
    "mi300x",
    "AMD Instinct MI300X",
    markets=("global",),
    chip=Chip(1307, 192, 5.3, "AMD Instinct MI300X datasheet (BF16 dense)", "2024-06-01"),
    price_path=PricePath(15.0, 12.0, "Test: a second-year generation", "2026-12-06", "测试"),
)
# Its figures: a row for each figure a GPU model sets (as the B200's in the shipped set).
FIGURES = {
    "server_price": 270_000,
    "network_per_node": 25_000,
    "node_kw": 10.5,
    "gpu_hour_on_demand": 2.10,
    "gpu_hour_reserved_1y": 1.80,
    "gpu_hour_reserved_3y": 1.50,
    "gpu_hour_spot": 1.40,
    "perf_train_vs_h100": 1.1,
    "perf_infer_vs_h100": 1.4,
    "smallest_server_gpus": 8,
}


def rows_with_mi300x():
    rows = shipped_figure_rows("global")
    return rows + [
        {"name": name, "gpu_model": "mi300x", "value": value, "source": "test", "as_of": "2026-12"}
        for name, value in FIGURES.items()
    ]


@pytest.fixture
def mi300x(monkeypatch):
    """The one change adding a GPU model takes in code."""
    monkeypatch.setitem(GPUS, MI300X.key, MI300X)
    return MI300X


def test_it_is_offered_in_its_market_and_refused_elsewhere(mi300x):
    assert ("mi300x", "AMD Instinct MI300X") in questionnaire.GPU_MODELS
    assert "mi300x" in markets.MARKETS["global"].gpu_models
    assert "mi300x" not in markets.MARKETS["cn"].gpu_models

    assert validation.answers_validate(make_answers(gpu_model="mi300x"))[1] == {}
    refused = validation.answers_validate(make_answers(market="cn", gpu_model="mi300x"))[1]
    assert "AMD Instinct MI300X" in refused["gpu_model"]


def test_without_its_entry_it_is_not_a_gpu_model():
    assert "mi300x" not in dict(questionnaire.GPU_MODELS)
    assert "gpu_model" in validation.answers_validate(make_answers(gpu_model="mi300x"))[1]


def test_the_sizing_reads_its_datasheet(mi300x):
    work = Training(params_b=70, tokens_b=2_000, runs_per_year=4, days_per_run=30)
    on_it = sizing.train_size(work, sizing.CHIPS["mi300x"], per_node=8)
    on_h100 = sizing.train_size(work, sizing.CHIPS["h100"], per_node=8)
    # The same MFU on a faster dense peak: fewer GPU-hours by the ratio of the peaks.
    assert on_it["gpu_hours_per_run"] == pytest.approx(
        on_h100["gpu_hours_per_run"] * 989.5 / 1307, rel=1e-6
    )


def test_it_is_priced_with_its_figures_and_planned_on_its_price_path(mi300x):
    answers = make_answers(gpu_model="mi300x")
    figures = figures_select(rows=rows_with_mi300x(), gpu_model="mi300x")
    evaluation = answers_evaluate(answers=answers, rulebook=shipped_rulebook(), figures=figures)

    used = {name: row["value"] for name, row in evaluation.costs["assumptions"].items()}
    for name in ("server_price", "gpu_hour_on_demand", "perf_train_vs_h100"):
        assert used[name] == FIGURES[name]
    plan = answers_plan(answers=answers, figures=figures, excluded=evaluation.result.excluded)
    assert plan["wait"]["suggested"] == {
        "cloud_fall_pct_per_year": 15.0,
        "hardware_fall_pct_per_year": 12.0,
    }
    assert plan["generation"] is None  # no successor named: none is modelled


def test_every_offered_model_is_complete():
    """What the registry's readers rely on: a datasheet, a market that exists, a successor
    that has an entry of its own (for its price path)."""
    for model in gpus.offered():
        assert model.chip is not None, model.key
        assert set(model.markets) <= set(markets.MARKETS), model.key
        for generation in model.next.values():
            assert generation.successor in GPUS, (model.key, generation.successor)


def test_a_model_no_market_offers_any_more_still_prices_the_answers_saved_with_it(monkeypatch):
    from dataclasses import replace

    monkeypatch.setitem(GPUS, "h200", replace(GPUS["h200"], markets=()))
    assert "h200" not in dict(questionnaire.GPU_MODELS)
    assert "h200" not in markets.MARKETS["global"].gpu_models
    saved = make_answers(gpu_model="h200")
    assert "gpu_model" in validation.answers_validate(saved)[1]  # not for new answers

    figures = figures_select(rows=shipped_figure_rows("global"), gpu_model="h200")
    evaluation = answers_evaluate(answers=saved, rulebook=shipped_rulebook(), figures=figures)
    plan = answers_plan(answers=saved, figures=figures, excluded=evaluation.result.excluded)
    assert plan["wait"]["suggested"]["cloud_fall_pct_per_year"] == 15.0  # the H200's own path
    assert sizing.CHIPS["h200"].memory_gb == 141
