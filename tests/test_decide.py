"""`manage.py decide FILE.json`: the scorer for scripts and checks."""

import json

import pytest
from django.core.management import call_command

from tests.factories import make_answers


def run_decide(tmp_path, capsys, content, *args):
    path = tmp_path / "answers.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    code = 0
    try:
        call_command("decide", str(path), *args)
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def test_it_prints_the_documented_json_shape(rules, tmp_path, capsys):
    code, out, _err = run_decide(tmp_path, capsys, make_answers("startup"), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["recommendation"] == "cloud"
    assert set(data["scores"]) == {"onprem", "cloud", "hybrid"}
    # 8 GPUs at 25 %: the cheapest mix owns nothing, so a hybrid is no real choice.
    assert data["excluded"] == {
        "hybrid": "The cheapest mix owns no GPUs: a hybrid is plain cloud here."
    }
    assert data["margin"] > 0
    assert data["ruleset_version"] == 1
    first = data["contributions"][0]
    assert set(first) == {"criterion", "outcome", "points", "reason"}
    sizes = [abs(c["points"]) for c in data["contributions"]]
    assert sizes == sorted(sizes, reverse=True)
    assert set(data["costs"]["totals"]) == {
        "onprem",
        "cloud_on_demand",
        "cloud_reserved",
        "cloud_committed",
        "hybrid",
    }


def test_it_names_the_excluded_outcome_with_the_reason(rules, tmp_path, capsys):
    answers = make_answers("research_lab", residency="all")
    _code, out, _err = run_decide(tmp_path, capsys, answers, "--format", "json")
    data = json.loads(out)
    assert "leave" in data["excluded"]["cloud"]


def test_it_gives_reasons_in_chinese_on_request(rules, tmp_path, capsys):
    answers = make_answers("research_lab", residency="all")
    _code, out, _err = run_decide(
        tmp_path, capsys, answers, "--format", "json", "--lang", "zh-hans"
    )
    assert "出域" in json.loads(out)["excluded"]["cloud"]


def test_text_output_reads_as_a_summary(rules, tmp_path, capsys):
    code, out, _err = run_decide(tmp_path, capsys, make_answers("research_lab"))
    assert code == 0
    assert out.startswith("Recommendation: On-premises GPU cluster (onprem)")


def test_it_applies_cost_overrides(rules, tmp_path, capsys):
    answers = make_answers("growth", costs={"server_price": 0, "network_per_node": 0})
    _code, out, _err = run_decide(tmp_path, capsys, answers, "--format", "json")
    costs = json.loads(out)["costs"]
    assert costs["assumptions"]["server_price"]["value"] == 0


BAD_FILES = [
    ("missing key", {k: v for k, v in make_answers().items() if k != "gpus"}, "gpus: missing"),
    ("unknown key", make_answers(colour="blue"), "colour: unknown key"),
    ("wrong type int", make_answers(gpus="8"), "gpus: must be a whole number"),
    ("float for int", make_answers(gpus=8.5), "gpus: must be a whole number"),
    ("bool as string", make_answers(ops_hardware="yes"), "ops_hardware: must be true | false"),
    ("number as bool", make_answers(utilization_pct=True), "utilization_pct: must be a number"),
    ("bad choice", make_answers(stage="space_agency"), "stage: Select a valid choice"),
    (
        "above range",
        make_answers(utilization_pct=101),
        "utilization_pct: Ensure this value is less",
    ),
    ("below range", make_answers(gpus=0), "gpus: Ensure this value is greater"),
    ("horizon range", make_answers(horizon_years=11), "horizon_years: Ensure this value is less"),
    ("negative fte", make_answers(ops_fte=-1), "ops_fte: Ensure this value is greater"),
    ("negative tb", make_answers(dataset_tb=-1), "dataset_tb: Ensure this value is greater"),
    ("unknown cost", make_answers(costs={"gold_price": 1}), "costs.gold_price: unknown cost"),
    ("negative cost", make_answers(costs={"pue": -1}), "costs.pue: must not be negative"),
    ("not an object", [1, 2], "the answers must be a JSON object"),
    ("not json", "{ this is not json", "not valid JSON"),
]


@pytest.mark.parametrize(("case", "content", "message"), BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_bad_input_exits_2_with_one_clear_line_per_problem(
    rules, tmp_path, capsys, case, content, message
):
    code, out, err = run_decide(tmp_path, capsys, content)
    assert code == 2
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_every_problem_gets_its_own_line(rules, tmp_path, capsys):
    content = make_answers(gpus=0, stage="x", colour="blue")
    _code, _out, err = run_decide(tmp_path, capsys, content)
    lines = err.strip().splitlines()
    assert len(lines) == 3
    assert {line.split(":")[0] for line in lines} == {"gpus", "stage", "colour"}


def test_a_missing_file_exits_2(rules, capsys):
    with pytest.raises(SystemExit) as exit:
        call_command("decide", "/nonexistent/answers.json")
    assert exit.value.code == 2
    assert "cannot read" in capsys.readouterr().err


def _levels(**changes):
    """Answers that give the demand as a steady base and bursts instead of an average."""
    answers = make_answers("inference", gpus=96, base_gpus=64, peak_share_pct=20.0)
    del answers["utilization_pct"], answers["demand_shape"]
    return answers | changes


def test_the_steady_base_and_time_at_the_peak_replace_the_average(rules, tmp_path, capsys):
    code, out, err = run_decide(tmp_path, capsys, _levels(), "--format", "json")
    assert code == 0, err
    demand = json.loads(out)["costs"]["demand"]
    # 64 always busy, 32 more a fifth of the time: 70.4 of 96 GPUs on average.
    assert demand == {
        "peak_gpus": 96,
        "base_gpus": 64,
        "peak_share_pct": 20.0,
        "utilization_pct": 73.33,
    }


def test_an_average_that_agrees_with_the_levels_may_be_given_too(rules, tmp_path, capsys):
    code, _out, err = run_decide(tmp_path, capsys, _levels(utilization_pct=73.0))
    assert code == 0, err


def test_an_average_that_disagrees_with_the_levels_names_both_keys(rules, tmp_path, capsys):
    code, out, err = run_decide(tmp_path, capsys, _levels(utilization_pct=50.0))
    assert code == 2 and out == ""
    assert err.startswith("utilization_pct: 50 % disagrees with “base_gpus” and “peak_share_pct”")
    assert "73.3 %" in err


@pytest.mark.parametrize(
    ("changes", "key", "message"),
    [
        ({"peak_share_pct": None}, "peak_share_pct", "together with “base_gpus”"),
        ({"base_gpus": 97}, "base_gpus", "must not exceed “gpus” (96), got 97"),
        ({"base_gpus": 6.5}, "base_gpus", ""),
        ({"peak_share_pct": 101}, "peak_share_pct", ""),
    ],
)
def test_bad_demand_levels_exit_2_naming_the_key(rules, tmp_path, capsys, changes, key, message):
    answers = {k: v for k, v in (_levels() | changes).items() if v is not None}
    code, _out, err = run_decide(tmp_path, capsys, answers)
    assert code == 2
    line = next(line for line in err.splitlines() if line.startswith(f"{key}: "))
    assert message in line


def test_without_the_levels_the_average_is_still_required(rules, tmp_path, capsys):
    answers = _levels()
    del answers["base_gpus"], answers["peak_share_pct"]
    code, _out, err = run_decide(tmp_path, capsys, answers)
    assert code == 2
    assert "utilization_pct" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"gpus": ' + "9" * 5000 + "}", "not valid JSON"),
        ("[" * 5000 + "]" * 5000, "nested more than 8 levels deep"),
        ('{"stage": "\\ud800"}', "unpaired surrogate"),
    ],
    ids=["5000-digit integer", "nested 5000 deep", "lone surrogate"],
)
def test_a_file_no_parser_should_take_exits_2_on_one_line(
    rules, tmp_path, capsys, content, message
):
    code, out, err = run_decide(tmp_path, capsys, content)
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and message in err


@pytest.mark.parametrize(
    ("costs", "line"),
    [
        ({"residual_value": 1e300}, "costs.residual_value: must be at most 1, got 1e+300"),
        ({"server_price": 1e308}, "costs.server_price: must be at most 10000000"),
        ({"gpus_per_node": 1e-09}, "costs.gpus_per_node: must be at least 1"),
        ({"server_price": 10**400}, "costs.server_price: must be at most 10000000, got an integer"),
        ({"\n": 1}, "costs.\\n: unknown cost assumption"),
    ],
)
def test_out_of_range_cost_figures_exit_2_naming_the_key(rules, tmp_path, capsys, costs, line):
    code, _out, err = run_decide(tmp_path, capsys, make_answers(costs=costs))
    assert code == 2
    assert err.strip() == line or err.startswith(line)
    assert len(err.strip().splitlines()) == 1


def test_answers_the_cost_model_refuses_exit_2_not_a_traceback(
    rules, tmp_path, capsys, monkeypatch
):
    from decider.management.commands import decide

    def refuse(*_args, **_kwargs):
        raise ValueError("cloud_share must be within 0..1, got 2")

    monkeypatch.setattr(decide, "evaluate_now", refuse)
    code, _out, err = run_decide(tmp_path, capsys, make_answers())
    assert code == 2
    assert err.strip() == "these answers cannot be costed: cloud_share must be within 0..1, got 2"


def test_a_file_far_larger_than_an_answers_document_exits_2(rules, tmp_path, capsys):
    content = json.dumps(make_answers() | {"padding": "x" * 100_000})
    code, _out, err = run_decide(tmp_path, capsys, content)
    assert code == 2
    assert "larger than 64 KB" in err and len(err.strip().splitlines()) == 1


def test_yuan_is_the_dollar_computation_converted(rules, tmp_path, capsys):
    """`decide --currency CNY` computes in USD once and converts where it prints (as a page
    in yuan does: decider/conversion.py): every amount is the dollar one times the rate, and
    the recommendation, the odds' shares and the plan's GPUs are the same."""
    answers = make_answers("research_lab")
    runs = {}
    for currency in ("USD", "CNY"):
        code, out, _err = run_decide(
            tmp_path, capsys, answers, "--format", "json", "--currency", currency
        )
        assert code == 0
        runs[currency] = json.loads(out)
    usd, cny = runs["USD"], runs["CNY"]
    rate = cny["costs"]["assumptions"]["usd_cny"]["value"]
    assert cny["costs"]["currency"] == cny["plan"]["currency"] == "CNY"
    assert cny["recommendation"] == usd["recommendation"]
    assert cny["odds"]["cheapest_probability"] == usd["odds"]["cheapest_probability"]
    assert cny["plan"]["chosen"] == usd["plan"]["chosen"]
    for option, value in usd["costs"]["present_value"].items():
        ratio = cny["costs"]["present_value"][option] / value
        assert ratio == pytest.approx(rate, rel=1e-6)
