"""Weight sensitivity: the reported factors really are where the recommendation changes."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from decider.engine.outcomes import OUTCOMES
from decider.engine.scoring import Band, HardConstraint, Rule, RuleBook, answers_score
from decider.engine.sensitivity import Sensitivity, weight_sensitivity
from decider.engine.text import Text
from decider.personas import PRESETS
from tests.examples import examples
from tests.factories import VERDICTS, make_answers, shipped_rulebook, varied_answers

SHIPPED = shipped_rulebook()

EPSILON = 1e-9


def rescored(answers, rulebook, key, factor):
    rules = tuple(
        replace(r, weight=r.weight * factor) if r.key == key else r for r in rulebook.rules
    )
    return answers_score(answers=answers, rulebook=replace(rulebook, rules=rules)).recommendation


def check(answers, rulebook, factors=(0, 3), scan=60):
    """Every reported change holds in the engine, and a scan finds none nearer."""
    now = answers_score(answers=answers, rulebook=rulebook).recommendation
    low, high = factors
    for s in weight_sensitivity(answers=answers, rulebook=rulebook, factors=factors):
        for factor, to, end, ahead in (
            (s.down_factor, s.down_to, low, -1),
            (s.up_factor, s.up_to, high, 1),
        ):
            if factor is None:
                assert to is None
                limit = end
            else:
                assert to != now
                assert (
                    rescored(answers, rulebook, s.criterion, factor * (1 + ahead * EPSILON)) == to
                )
                if factor != 0:
                    assert (
                        rescored(answers, rulebook, s.criterion, factor * (1 - ahead * EPSILON))
                        == now
                    )
                limit = factor
            # Nothing changes between the current weight and the reported factor (or the end).
            if s.weight:
                for j in range(1, scan + 1):
                    # Off the round factors: where two outcomes tie exactly on a rounding
                    # boundary, the engine's last-bit noise decides at that one point.
                    f = 1 + (limit - 1) * (j - 0.3183) / scan
                    assert rescored(answers, rulebook, s.criterion, f) == now, (s, f)


@pytest.mark.parametrize("persona", list(PRESETS))
@pytest.mark.parametrize("verdict", VERDICTS)
def test_it_reports_where_each_persona_would_change(persona, verdict):
    check(make_answers(persona, cost_verdict=verdict), SHIPPED)


def test_it_holds_on_many_persona_variations():
    rng = random.Random(17)
    flips = 0
    for _ in range(100):
        answers = varied_answers(rng)
        check(answers, SHIPPED, scan=15)
        flips += sum(
            s.down_factor is not None or s.up_factor is not None
            for s in weight_sensitivity(answers=answers, rulebook=SHIPPED)
        )
    assert flips > 100  # the checks above were not all about "no change"


def test_it_lists_the_criteria_the_answers_hit_in_rule_order():
    answers = make_answers("growth", cost_verdict="hybrid_slight")
    del answers["gpus"]
    found = weight_sensitivity(answers=answers, rulebook=SHIPPED)
    # Neither the GPUs nor a decisive cost gap is answered.
    unanswered = ("scale", "cost_decisive")
    assert [s.criterion for s in found] == [r.key for r in SHIPPED.rules if r.key not in unanswered]
    assert isinstance(found[0], Sensitivity)
    assert found[0].label == SHIPPED.rules[0].label
    assert found[0].weight == SHIPPED.rules[0].weight


def zero_band(value="x", **scores):
    return Band(
        scores={"onprem": 0, "cloud": 0, "hybrid": 0} | scores,
        reason=Text("r", "r"),
        label=Text("l", "l"),
        value=value,
    )


def rule(key, weight, **scores):
    return Rule(key, key, Text(key, key), weight, (zero_band(**scores),))


def test_it_finds_the_crossing_of_two_criteria():
    # onprem 50 + 25w/(w+1) and cloud 50 + 50/(w+1) meet at w = 2 for a and w = 0.5 for b;
    # the rounded scores tie a little earlier, and a tie goes to onprem (listed first).
    book = RuleBook(version=1, rules=(rule("a", 1, onprem=1), rule("b", 1, cloud=2)))
    answers = {"a": "x", "b": "x"}
    assert answers_score(answers=answers, rulebook=book).recommendation == "cloud"
    a, b = weight_sensitivity(answers=answers, rulebook=book)
    assert (a.down_factor, a.down_to) == (None, None)
    assert 1.99 < a.up_factor < 2
    assert a.up_to == "onprem"
    assert 0.5 < b.down_factor < 0.51
    assert b.down_to == "onprem"
    assert (b.up_factor, b.up_to) == (None, None)
    check(answers, book)


def test_a_criterion_that_cannot_flip_reports_none():
    # Cloud wins on every criterion: no weight change helps another outcome.
    book = RuleBook(version=1, rules=(rule("a", 1, cloud=2), rule("b", 2, cloud=1, onprem=-1)))
    answers = {"a": "x", "b": "x"}
    for s in weight_sensitivity(answers=answers, rulebook=book):
        assert (s.down_factor, s.down_to, s.up_factor, s.up_to) == (None, None, None, None)


def test_a_criterion_with_zero_weight_reports_none():
    book = RuleBook(version=1, rules=(rule("a", 0, onprem=2), rule("b", 1, cloud=1)))
    answers = {"a": "x", "b": "x"}
    a, b = weight_sensitivity(answers=answers, rulebook=book)
    assert (a.weight, a.down_factor, a.up_factor) == (0, None, None)
    # b alone decides: at weight 0 nothing is scored and onprem wins the all-neutral tie.
    assert (b.down_factor, b.down_to, b.up_factor) == (0, "onprem", None)
    check(answers, book)


def test_an_excluded_outcome_is_never_the_new_recommendation():
    book = RuleBook(
        version=1,
        rules=(rule("a", 1, onprem=2), rule("b", 1, cloud=1), rule("c", 1, hybrid=1)),
        constraints=(HardConstraint("no-onprem", "c", "x", "onprem", Text("n", "n")),),
    )
    answers = {"a": "x", "b": "x", "c": "x"}
    found = {s.criterion: s for s in weight_sensitivity(answers=answers, rulebook=book)}
    assert answers_score(answers=answers, rulebook=book).recommendation == "cloud"
    assert (found["a"].down_factor, found["a"].up_factor) == (None, None)
    assert found["c"].up_to == "hybrid"
    check(answers, book)


def test_a_single_allowed_outcome_cannot_change():
    book = RuleBook(
        version=1,
        rules=(rule("a", 1, onprem=2), rule("b", 1, cloud=1)),
        constraints=tuple(
            HardConstraint(f"no-{o}", "a", "x", o, Text("n", "n")) for o in ("onprem", "hybrid")
        ),
    )
    for s in weight_sensitivity(answers={"a": "x", "b": "x"}, rulebook=book):
        assert (s.down_factor, s.up_factor) == (None, None)


def test_it_honours_other_factor_limits():
    book = RuleBook(version=1, rules=(rule("a", 1, onprem=1), rule("b", 1, cloud=2)))
    answers = {"a": "x", "b": "x"}
    a, b = weight_sensitivity(answers=answers, rulebook=book, factors=(0.6, 1.5))
    assert (a.up_factor, b.down_factor) == (None, None)
    check(answers, book, factors=(0.6, 1.5))


scores_st = st.fixed_dictionaries({o: st.integers(-2, 2) for o in OUTCOMES})


@st.composite
def books_and_answers(draw):
    n = draw(st.integers(1, 7))
    rules = tuple(
        Rule(
            f"r{i}",
            f"q{i}",
            Text("x", "x"),
            draw(st.one_of(st.sampled_from([0, 1, 2, 3, 0.5, 1.5]), st.floats(1e-3, 5))),
            (Band(draw(scores_st), Text("r", "r"), Text("l", "l"), value="x"),),
        )
        for i in range(n)
    )
    constraints = tuple(
        HardConstraint(f"c{o}", "q0", "x", o, Text("c", "c"))
        for o in draw(st.lists(st.sampled_from(OUTCOMES), max_size=2, unique=True))
    )
    answers = {f"q{i}": "x" for i in range(n) if draw(st.integers(0, 5))}
    return RuleBook(version=1, rules=rules, constraints=constraints), answers


@settings(max_examples=examples(150), deadline=None)
@given(books_and_answers())
def test_it_holds_on_generated_rule_books(book_answers):
    book, answers = book_answers
    check(answers, book, scan=30)
