"""Impact preview: batch re-scoring equals answers_score row by row, and the ORM wrapper."""

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from decider import services
from decider.engine.batch import Impact, Transition, impact_compute, recommendations_batch
from decider.engine.outcomes import OUTCOMES
from decider.engine.scoring import Band, HardConstraint, Rule, RuleBook, answers_score
from decider.engine.text import Text
from decider.models import Assessment, Criterion, RuleSet
from decider.personas import PRESETS
from decider.rulesets import ruleset_export, ruleset_import, ruleset_rulebook
from decider.services import assessment_score
from tests.examples import examples
from tests.factories import make_answers, make_assessment, shipped_rulebook, varied_answers

SHIPPED = shipped_rulebook()


def one_by_one(rows, rulebook):
    return [answers_score(answers=row, rulebook=rulebook).recommendation for row in rows]


def test_it_matches_answers_score_on_thousands_of_persona_variations():
    rng = random.Random(5)
    rows = [varied_answers(rng) for _ in range(3000)]
    assert recommendations_batch(answers_rows=rows, rulebook=SHIPPED) == one_by_one(rows, SHIPPED)


def test_it_matches_with_zero_weights_and_reweighted_rules():
    rng = random.Random(7)
    rows = [varied_answers(rng) for _ in range(500)]
    for _ in range(20):
        book = replace(
            SHIPPED,
            rules=tuple(
                replace(r, weight=rng.choice([0, 0, 0.1, 0.5, 1, 1.5, 2, 3, rng.random() * 5]))
                for r in SHIPPED.rules
            ),
        )
        assert recommendations_batch(answers_rows=rows, rulebook=book) == one_by_one(rows, book)


def test_all_weights_zero_gives_the_first_allowed_outcome():
    book = replace(SHIPPED, rules=tuple(replace(r, weight=0) for r in SHIPPED.rules))
    rows = [make_answers("growth"), make_answers("startup"), {}]
    assert recommendations_batch(answers_rows=rows, rulebook=book) == one_by_one(rows, book)
    assert recommendations_batch(answers_rows=rows, rulebook=book) == ["onprem", "onprem", "onprem"]


def test_an_empty_batch_is_empty():
    assert recommendations_batch(answers_rows=[], rulebook=SHIPPED) == []


# Small random rule books: values, numeric bands, constraints that can exclude everything.
def band(draw_scores, **where):
    return Band(scores=draw_scores, reason=Text("r", "r"), label=Text("l", "l"), **where)


scores_st = st.fixed_dictionaries({o: st.integers(-2, 2) for o in OUTCOMES})
weights_st = st.one_of(
    st.sampled_from([0, 0.0, 1, 2, 3, 0.5, 1.5, 0.1, 0.7]),
    st.floats(0, 10, allow_nan=False, allow_infinity=False),
)


@st.composite
def rulebooks(draw):
    rules = []
    for i in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            values = draw(st.lists(st.sampled_from(["a", "b", "c", "true", "1"]), unique=True))
            bands = [band(draw(scores_st), value=v) for v in values]
        else:
            cuts = sorted(draw(st.lists(st.integers(0, 10), min_size=1, max_size=3, unique=True)))
            edges = [None, *cuts, None]
            bands = [
                band(draw(scores_st), lower=lo, upper=hi)
                for lo, hi in zip(edges, edges[1:], strict=False)
            ]
        rules.append(Rule(f"r{i}", f"q{i % 4}", Text("x", "x"), draw(weights_st), tuple(bands)))
    constraints = [
        HardConstraint(
            f"c{j}",
            f"q{draw(st.integers(0, 3))}",
            draw(st.sampled_from(["a", "b", "true", "None"])),
            draw(st.sampled_from([*OUTCOMES, "nowhere"])),
            Text("c", "c"),
            excludes=draw(st.booleans()),
        )
        for j in range(draw(st.integers(0, 4)))
    ]
    return RuleBook(version=1, rules=tuple(rules), constraints=tuple(constraints))


answer_st = st.one_of(
    st.sampled_from(["a", "b", "c", "true", "1", True, False, None]),
    st.integers(-2, 12),
    st.floats(-1, 12, allow_nan=False),
    st.just(float("nan")),
)
rows_st = st.lists(
    st.dictionaries(st.sampled_from(["q0", "q1", "q2", "q3"]), answer_st), max_size=40
)


@settings(max_examples=examples(300), deadline=None)
@given(rulebook=rulebooks(), rows=rows_st)
def test_it_matches_answers_score_on_generated_rule_books(rulebook, rows):
    assert recommendations_batch(answers_rows=rows, rulebook=rulebook) == one_by_one(rows, rulebook)


def zero_band(**scores):
    return band({"onprem": 0, "cloud": 0, "hybrid": 0} | scores, value="x")


def test_it_rounds_as_python_does_not_as_numpy_does():
    # onprem = 50 + 1.5/250 * 25 = 50.15, which is stored as 50.1499..: Python's round
    # gives 50.1 and cloud (50.2) wins; np.round would give 50.2 and a tie won by onprem.
    rules = (
        Rule("a", "a", Text("a", "a"), 1.5, (zero_band(onprem=1),)),
        Rule("b", "b", Text("b", "b"), 2, (zero_band(cloud=1),)),
        Rule("c", "c", Text("c", "c"), 246.5, (zero_band(),)),
    )
    book = RuleBook(version=1, rules=rules)
    row = {"a": "x", "b": "x", "c": "x"}
    assert answers_score(answers=row, rulebook=book).recommendation == "cloud"
    assert recommendations_batch(answers_rows=[row], rulebook=book) == ["cloud"]


def test_equal_scores_go_to_the_first_outcome():
    rules = (Rule("a", "a", Text("a", "a"), 1, (zero_band(cloud=1, hybrid=1),)),)
    book = RuleBook(version=1, rules=rules)
    rows = [{"a": "x"}, {}]
    assert recommendations_batch(answers_rows=rows, rulebook=book) == ["cloud", "onprem"]
    assert one_by_one(rows, book) == ["cloud", "onprem"]


def test_impact_counts_match_rescoring_one_by_one():
    rng = random.Random(11)
    answer_sets = [varied_answers(rng) for _ in range(1000)]
    old = one_by_one(answer_sets, SHIPPED)
    draft = replace(
        SHIPPED,
        rules=tuple(
            replace(r, weight=r.weight * 3) if r.key == "utilization" else r for r in SHIPPED.rules
        ),
    )
    new = one_by_one(answer_sets, draft)
    rows = [(i, a, o) for i, (a, o) in enumerate(zip(answer_sets, old, strict=True))]

    result = impact_compute(rows=rows, rulebook=draft)

    expected: dict = {}
    for i, (o, n) in enumerate(zip(old, new, strict=True)):
        if o != n:
            expected.setdefault((o, n), []).append(i)
    assert result.total == 1000
    assert result.changed == sum(len(ids) for ids in expected.values()) > 0
    assert result.unchanged == 1000 - result.changed
    assert {(t.from_outcome, t.to_outcome): t.count for t in result.transitions} == {
        pair: len(ids) for pair, ids in expected.items()
    }
    for t in result.transitions:
        assert list(t.example_ids) == expected[(t.from_outcome, t.to_outcome)][:5]
    counts = [t.count for t in result.transitions]
    assert counts == sorted(counts, reverse=True)


def test_impact_of_the_same_rule_book_is_no_change():
    rng = random.Random(3)
    answer_sets = [varied_answers(rng) for _ in range(200)]
    rows = [
        (i, a, o)
        for i, (a, o) in enumerate(zip(answer_sets, one_by_one(answer_sets, SHIPPED), strict=True))
    ]
    assert impact_compute(rows=rows, rulebook=SHIPPED) == Impact(
        total=200, changed=0, unchanged=200, transitions=()
    )


def test_impact_sorts_transitions_by_count():
    book = RuleBook(
        version=1,
        rules=(
            Rule(
                "a",
                "a",
                Text("a", "a"),
                1,
                (band({"onprem": 0, "cloud": 2, "hybrid": 0}, value="x"),),
            ),
        ),
    )
    rows = [
        (1, {"a": "x"}, "hybrid"),
        (2, {"a": "x"}, "onprem"),
        (3, {"a": "x"}, "onprem"),
        (4, {"a": "x"}, "cloud"),
    ]
    assert impact_compute(rows=rows, rulebook=book).transitions == (
        Transition("onprem", "cloud", 2, (2, 3)),
        Transition("hybrid", "cloud", 1, (1,)),
    )


# --- ORM ---------------------------------------------------------------------


def draft_with(changes: dict[str, float]) -> RuleSet:
    document = ruleset_export(RuleSet.current())
    for criterion in document["criteria"]:
        criterion["weight"] = changes.get(criterion["key"], criterion["weight"])
    return ruleset_import(document, publish=False)


def test_ruleset_impact_over_saved_assessments_matches_one_by_one(rules):
    rng = random.Random(2)
    saved = []
    for _ in range(40):
        assessment, _edit, _view = make_assessment(answers=varied_answers_for_the_cost_model(rng))
        assessment_score(assessment)
        saved.append(assessment)
    make_assessment()  # never scored: skipped
    draft = draft_with({"utilization": 12, "stage": 0})

    result = services.ruleset_impact(draft)

    book = ruleset_rulebook(draft)
    expected = {}
    for a in saved:
        a.refresh_from_db()
        new = answers_score(answers={**a.answers, **a.derived}, rulebook=book)
        if new.recommendation != a.recommendation:
            pair = (a.recommendation, new.recommendation)
            expected[pair] = expected.get(pair, 0) + 1
    assert result.total == 40
    assert result.skipped == 1
    assert result.stale == 0
    assert result.changed == sum(expected.values()) > 0
    assert {(t.from_outcome, t.to_outcome): t.count for t in result.transitions} == expected
    assert not RuleSet.objects.get(pk=draft.pk).is_published


def test_an_unchanged_draft_changes_nothing(rules):
    for persona in PRESETS:
        assessment, _e, _v = make_assessment(answers=make_answers(persona))
        assessment_score(assessment)
    result = services.ruleset_impact(draft_with({}))
    assert (result.total, result.changed, result.unchanged) == (4, 0, 4)


def test_results_saved_before_derived_answers_count_as_stale(rules):
    assessment, _e, _v = make_assessment(answers=make_answers("research_lab"))
    assessment_score(assessment)
    # As migration 0006 leaves a result saved before derived answers were kept.
    Assessment.objects.filter(pk=assessment.pk).update(derived={})
    draft = draft_with({})
    Criterion.objects.filter(ruleset=draft, key="cost").update(weight=0)

    outcome = services.ruleset_impact(draft)

    assert (outcome.total, outcome.stale, outcome.skipped) == (1, 1, 0)


def test_answers_edited_since_scoring_are_not_counted_as_impact(rules):
    """An unchanged draft changes nothing, even when someone edited answers after scoring."""
    assessment, _e, _v = make_assessment(answers=make_answers("growth"))
    assessment_score(assessment)
    Assessment.objects.filter(pk=assessment.pk).update(
        answers={**assessment.answers, "stage": "startup", "utilization_pct": 10},
        revision=assessment.revision + 1,
    )
    outcome = services.ruleset_impact(draft_with({}))
    assert (outcome.total, outcome.changed, outcome.skipped) == (0, 0, 1)


def varied_answers_for_the_cost_model(rng: random.Random) -> dict:
    """Persona answers with choices changed, all keys kept (the cost model needs them)."""
    answers = make_answers(rng.choice(list(PRESETS)))
    answers["utilization_pct"] = float(rng.choice([10, 29.9, 30, 50, 69, 70, 90]))
    answers["gpus"] = rng.choice([4, 16, 64, 255, 256, 512])
    answers["horizon_years"] = rng.randint(1, 7)
    answers["demand_shape"] = rng.choice(["steady", "moderate", "peaky"])
    answers["residency"] = rng.choice(["none", "partial", "all", "none"])
    answers["has_datacenter"] = rng.choice([True, False])
    answers["ops_hardware"] = rng.choice([True, False])
    return answers
