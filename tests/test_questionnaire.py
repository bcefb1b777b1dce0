"""The questionnaire and the registries: each fact defined once, and every list drawn from them."""

import pytest
from django.utils.translation import override

from decider.charts import COLORS
from decider.engine import questionnaire, validation
from decider.engine.figures import ADJUSTABLE_NAMES, FIGURES, overrides_validate
from decider.engine.outcomes import (
    COST_OPTION_LABELS,
    COST_OPTIONS,
    OUTCOME_NAMES,
    OUTCOME_SUMMARIES,
    OUTCOMES,
)
from decider.forms import STEP_FORMS, FiguresStepForm, _step_form_class, question_field
from decider.personas import PRESETS
from tests.factories import make_answers, shipped_figures


def _asked(form_class) -> set[str]:
    return set(form_class.base_fields) & set(questionnaire.QUESTIONS)


def test_every_question_is_asked_by_exactly_one_step():
    asked = [key for form_class in STEP_FORMS.values() for key in _asked(form_class)]
    assert sorted(asked) == sorted(questionnaire.QUESTIONS)
    assert len(asked) == len(set(asked))
    for step in questionnaire.STEPS:
        assert _asked(STEP_FORMS[step.slug]) == set(step.keys) != set()
    assert {q.step for q in questionnaire.QUESTIONS.values()} == set(questionnaire.STEP_BY_SLUG)


def test_a_new_question_needs_only_its_entry_in_the_registry():
    question = questionnaire.Question(
        "gpu_interconnect",
        "choice",
        "Which interconnect?",
        choices=(("ib", "InfiniBand"), ("roce", "RoCE")),
        step="utilization",
    )
    step = questionnaire.Step("utilization", "Utilization", "", ("gpus", "gpu_interconnect"))
    registry = {**questionnaire.QUESTIONS, question.key: question}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(questionnaire, "QUESTIONS", registry)
        form = _step_form_class(step)(
            {"gpus": "8", "gpu_interconnect": "roce"}, saved={}, revision=0
        )
        assert form.is_valid(), form.errors
        assert form.answers() == {"gpus": 8, "gpu_interconnect": "roce"}
    assert question.problem("nvlink").startswith("Select a valid choice.")


def test_only_the_last_step_carries_the_figures():
    figures_steps = [s for s, f in STEP_FORMS.items() if issubclass(f, FiguresStepForm)]
    assert figures_steps == [questionnaire.FIGURES_STEP] == [questionnaire.STEPS[-1].slug]


def test_every_persona_answers_every_question_validly():
    for persona, preset in PRESETS.items():
        answers, errors = validation.answers_validate(preset["answers"])
        assert errors == {}, persona
        assert answers == preset["answers"]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("stage", "space_agency"),
        ("stage", ""),
        ("gpus", 0),
        ("gpus", 100_001),
        ("utilization_pct", 100.5),
        ("ops_fte", -1),
        ("dataset_tb", -0.5),
    ],
)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_document_gets_the_message_the_wizard_field_gives(key, value, language):
    question = questionnaire.QUESTIONS[key]
    with override(language):
        problem = question.problem(value)
        allowed = question.allowed()
        field = question_field(question)
        try:
            field.clean(question.to_form_value(value))
        except Exception as error:  # noqa: BLE001 - the field's ValidationError
            shown = " ".join(error.messages)
        else:
            pytest.fail("the wizard accepted it")
        label = str(field.label)
    assert shown.startswith(f"{label}: ") or shown.startswith(f"{label}：")  # names the field
    if question.kind in ("int", "float"):
        assert allowed in shown  # and the range the API and `decide` give
    assert problem.endswith((f"(allowed: {allowed})", f"（允许：{allowed}）"))


def test_a_figure_override_is_held_to_the_registry_bounds():
    costs, errors = overrides_validate({"spot_share": 1.5, "gpus_per_node": 0.5, "pue": 1.2})
    assert costs == {"pue": 1.2}
    assert errors == {
        "costs.spot_share": "must be at most 1, got 1.5",
        "costs.gpus_per_node": "must be at least 1, got 0.5",
    }


def test_the_budget_step_offers_the_adjustable_figures_with_their_bounds():
    form = STEP_FORMS["budget"](saved=make_answers(), revision=0, figures=shipped_figures())
    offered = [name.removeprefix("cost_") for name in form.fields if name.startswith("cost_")]
    assert offered == list(ADJUSTABLE_NAMES)
    assert form.fields["cost_spot_share"].max_value == 1
    assert form.fields["cost_gpus_per_node"].min_value == 1
    with override("zh-hans"):
        zh = STEP_FORMS["budget"](saved=make_answers(), revision=0, figures=shipped_figures())
    assert zh.fields["cost_server_price"].label == FIGURES["server_price"].label.zh


def test_every_outcome_and_cost_option_has_its_name_and_colour():
    assert set(OUTCOME_NAMES) == set(OUTCOME_SUMMARIES) == set(OUTCOMES)
    # The per-token outcome is named beside the cost options; its colour is its own chart's.
    assert set(COST_OPTION_LABELS) == {*COST_OPTIONS, "api"}
    assert set(COST_OPTIONS) <= set(COLORS)


def test_every_figure_has_a_maximum_and_the_shipped_figures_are_inside_their_bounds():
    assert all(spec.max is not None and spec.min < spec.max for spec in FIGURES.values())
    for figure in shipped_figures().values():
        assert figure.spec.problem(figure.value) is None, figure.name


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (10**5000, "got an integer of about 5,001 digits"),
        ("x" * 1000, 'got "' + "x" * 58 + "…"),
        ("a\nb", 'got "a\\nb"'),
        ({"a": [1]}, "got {…}"),
    ],
    ids=["5000 digits", "long text", "newline", "object"],
)
def test_a_message_shows_the_value_short_and_on_one_line(value, shown):
    problem = questionnaire.QUESTIONS["utilization_pct"].problem(value)
    assert shown in problem
    assert "\n" not in problem and len(problem) < 200


def test_an_integer_too_large_for_a_float_is_out_of_range_not_an_error():
    _answers, errors = validation.answers_validate(make_answers(utilization_pct=10**400))
    assert "must be a number from 0 to 100 %" in errors["utilization_pct"]
    _costs, errors = overrides_validate({"fte_cost": -(10**400)})
    assert errors == {"costs.fte_cost": "must not be negative, got an integer of about 401 digits"}
