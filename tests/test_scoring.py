"""The rule engine on its own (plain data), then with the shipped rule set."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from decider.engine.scoring import HardConstraint, RuleBook, answers_score
from decider.engine.text import Text
from decider.services import evaluate_now
from tests.examples import examples
from tests.factories import make_answers, make_band, make_rule, shipped_figures, shipped_rulebook


def test_it_averages_weighted_scores_onto_0_to_100():
    book = RuleBook(
        version=1,
        rules=(
            make_rule("a", 3, [make_band(onprem=2, cloud=-2, value="x")]),
            make_rule("b", 1, [make_band(onprem=-2, cloud=2, hybrid=1, value="y")]),
        ),
    )
    result = answers_score(answers={"a": "x", "b": "y"}, rulebook=book)
    # onprem: (3*2 + 1*-2) / 4 = 1 -> 75; cloud: -1 -> 25; hybrid: 0.25 -> 56.25
    assert result.scores == {"onprem": 75.0, "cloud": 25.0, "hybrid": 56.2}
    assert result.recommendation == "onprem"
    assert result.margin == pytest.approx(18.8)


def test_it_sorts_contributions_by_size_and_they_add_up_to_the_score():
    book = RuleBook(
        version=1,
        rules=(
            make_rule("a", 1, [make_band(onprem=1, value="x")]),
            make_rule("b", 2, [make_band(onprem=2, cloud=-1, value="y")]),
        ),
    )
    result = answers_score(answers={"a": "x", "b": "y"}, rulebook=book)
    sizes = [abs(c.points) for c in result.contributions]
    assert sizes == sorted(sizes, reverse=True)
    assert result.contributions[0].criterion == "b"
    onprem_points = sum(c.points for c in result.contributions if c.outcome == "onprem")
    assert 50 + onprem_points == pytest.approx(result.scores["onprem"], abs=0.05)


def test_it_matches_numeric_bands_lower_inclusive_upper_exclusive():
    rule = make_rule(
        "u",
        bands=[
            make_band(cloud=2, upper=30),
            make_band(hybrid=1, lower=30, upper=70),
            make_band(onprem=2, lower=70),
        ],
    )
    book = RuleBook(version=1, rules=(rule,))
    assert answers_score(answers={"u": 29.9}, rulebook=book).recommendation == "cloud"
    assert answers_score(answers={"u": 30}, rulebook=book).recommendation == "hybrid"
    assert answers_score(answers={"u": 70}, rulebook=book).recommendation == "onprem"


def test_a_constraint_removes_an_outcome_even_when_it_scores_best():
    book = RuleBook(
        version=1,
        rules=(make_rule("r", bands=[make_band(cloud=2, value="all")]),),
        constraints=(
            HardConstraint("no-cloud", "r", "all", "cloud", Text("stays home", "不出域")),
        ),
    )
    result = answers_score(answers={"r": "all"}, rulebook=book)
    assert result.scores["cloud"] == 100
    assert result.recommendation != "cloud"
    assert result.excluded["cloud"].zh == "不出域"


def test_a_warning_constraint_keeps_the_outcome():
    book = RuleBook(
        version=1,
        rules=(make_rule("r", bands=[make_band(hybrid=2, value="partial")]),),
        constraints=(
            HardConstraint(
                "h", "r", "partial", "hybrid", Text("keep core", "核心"), excludes=False
            ),
        ),
    )
    result = answers_score(answers={"r": "partial"}, rulebook=book)
    assert result.recommendation == "hybrid"
    assert result.warnings["hybrid"][0].en == "keep core"


def test_it_reads_booleans_as_true_false_options():
    rule = make_rule(
        "b", bands=[make_band(cloud=2, value="false"), make_band(onprem=2, value="true")]
    )
    book = RuleBook(version=1, rules=(rule,))
    assert answers_score(answers={"b": False}, rulebook=book).recommendation == "cloud"
    assert answers_score(answers={"b": True}, rulebook=book).recommendation == "onprem"


# The shipped rule set: each persona of the source's §六 gets its outcome.
PERSONAS = [
    ("research_lab", {}, "onprem"),
    ("startup", {}, "cloud"),
    ("growth", {}, "hybrid"),
    ("inference", {}, "onprem"),
    (
        "inference",
        {
            "latency_critical": False,
            "demand_shape": "peaky",
            "multi_region": True,
            "capacity_lead_time": "minutes",
            "utilization_pct": 25.0,
        },
        "cloud",
    ),
]


@pytest.mark.parametrize(("persona", "changes", "expected"), PERSONAS)
def test_each_persona_gets_the_outcome_the_source_implies(rules, persona, changes, expected):
    _ruleset, evaluation = evaluate_now(make_answers(persona, **changes))
    assert evaluation.result.recommendation == expected


@pytest.mark.parametrize("persona", ["research_lab", "startup", "growth", "inference"])
def test_residency_all_never_yields_cloud(rules, persona):
    _ruleset, evaluation = evaluate_now(make_answers(persona, residency="all"))
    assert evaluation.result.recommendation != "cloud"
    assert "cloud" in evaluation.result.excluded


def test_partial_residency_keeps_hybrid_with_a_warning(rules):
    _ruleset, evaluation = evaluate_now(make_answers("growth", residency="partial"))
    assert "cloud" in evaluation.result.excluded
    assert "hybrid" not in evaluation.result.excluded
    assert evaluation.result.warnings["hybrid"]


def test_the_cost_verdict_shows_among_the_contributions(rules):
    _ruleset, evaluation = evaluate_now(make_answers("research_lab"))
    assert any(c.criterion == "cost" for c in evaluation.result.contributions)


@pytest.fixture(scope="module")
def rulebook():
    return shipped_rulebook(), shipped_figures("h100")


@settings(max_examples=examples(60), deadline=None)
@given(
    persona=st.sampled_from(["research_lab", "startup", "growth", "inference"]),
    low=st.floats(0, 100),
    high=st.floats(0, 100),
)
def test_raising_utilization_never_lowers_the_onprem_score(rulebook, persona, low, high):
    """The rules alone: with the cost verdict held fixed, more utilization never hurts on-prem.

    (The cost verdict itself may move either way: above ~75 % utilization in
    colocation, 3-year reserved cloud can undercut owning, and the verdict says so.)
    """
    book, _assumptions = rulebook
    low, high = sorted((low, high))
    scores = [
        answers_score(
            answers={**make_answers(persona, utilization_pct=u), "cost_verdict": "hybrid_slight"},
            rulebook=book,
        ).scores["onprem"]
        for u in (low, high)
    ]
    assert scores[1] >= scores[0]
