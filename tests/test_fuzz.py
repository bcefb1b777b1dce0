"""Fuzzed input for the API, `manage.py decide` and the wizard's steps: never a 5xx or a traceback.

Each case starts from a valid answers document (or step form) and spoils some of it
with the values that used to break it: integers too long for Python to print,
1e308 and 1e-09 as cost figures, shares above 1, NaN, megabyte strings, JSON nested
a thousand deep. A short run (a few hundred cases) is part of `make test`; set
HYPOTHESIS_PROFILE=fuzz-long for a longer one.
"""

from __future__ import annotations

import json
import math
import os
import re
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.urls import reverse
from hypothesis import HealthCheck, event, given
from hypothesis import settings as profiles
from hypothesis import strategies as st

from decider.engine.figures import FIGURE_NAMES, FIGURES
from decider.engine.questionnaire import QUESTIONS, STEP_BY_SLUG
from decider.engine.validation import answers_validate
from decider.models import Assessment
from decider.services import evaluate_now
from tests.examples import examples
from tests.factories import STEP_POSTS, make_answers, make_assessment

pytestmark = pytest.mark.django_db

profiles.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", examples(80))),
    deadline=None,
    derandomize=True,  # the same cases on every run: a failure in CI reproduces here
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
profiles.register_profile(
    "fuzz-long", parent=profiles.get_profile("fuzz"), max_examples=1000, derandomize=False
)
profiles.register_profile("fuzz-explore", parent=profiles.get_profile("fuzz"), derandomize=False)
FUZZ = profiles.get_profile(
    {"fuzz-long": "fuzz-long", "explore": "fuzz-explore"}.get(
        os.environ.get("HYPOTHESIS_PROFILE", ""), "fuzz"
    )
)


@pytest.fixture(autouse=True)
def no_rate_limits(settings):
    """Hundreds of creates from one address: the limits are tested elsewhere."""
    settings.RATELIMIT_ENABLE = False


PERSONAS = ["growth", "research_lab", "startup"]

# The values that broke something once, and whatever hypothesis makes of numbers and text.
NASTY_NUMBERS = st.sampled_from(
    [
        10**12,
        -(10**12),
        10**4999,  # past Python's int-string limit once printed or read back
        10**400,  # too large for a float
        1e308,
        -1e308,
        1e300,
        1e-09,
        0,
        0.5,
        1.5,
        -1,
        math.nan,
        math.inf,
    ]
)
NUMBERS = st.one_of(
    NASTY_NUMBERS,
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
)
TEXT = st.one_of(st.text(max_size=20), st.just("x" * 100_000), st.just("\x00\ud800"))
VALUES = st.one_of(
    NUMBERS, TEXT, st.booleans(), st.none(), st.just([]), st.just({}), st.just({"a": [1, {"b": 2}]})
)
FIGURE_KEYS = st.one_of(st.sampled_from(FIGURE_NAMES), st.text(max_size=10))
# Mostly figures a user might set, so that many documents get as far as the cost model.
FIGURE_VALUES = st.one_of(
    st.floats(min_value=0, max_value=1), st.floats(min_value=0, max_value=1e7), NUMBERS
)
ANSWER_KEYS = st.one_of(st.sampled_from(list(QUESTIONS)), st.just("costs"), st.text(max_size=10))


@st.composite
def answers_documents(draw):
    """A persona's answers with some answers and cost figures spoiled."""
    document = make_answers(draw(st.sampled_from(PERSONAS)))
    for key, value in draw(st.dictionaries(ANSWER_KEYS, VALUES, max_size=2)).items():
        document[key] = value
    costs = draw(st.dictionaries(FIGURE_KEYS, FIGURE_VALUES, max_size=3))
    if costs:
        document["costs"] = costs
    for key in draw(st.lists(st.sampled_from(list(document)), max_size=1)):
        document.pop(key, None)
    if draw(st.booleans()):
        document = {"name": draw(st.one_of(TEXT, VALUES)), "answers": document}
    return document


@st.composite
def costed_documents(draw):
    """A persona's answers, valid, with cost figures set: these reach the cost model."""
    document = make_answers(draw(st.sampled_from(PERSONAS)))
    document["costs"] = draw(
        st.dictionaries(st.sampled_from(FIGURE_NAMES), FIGURE_VALUES, min_size=1, max_size=4)
    )
    return document


def _json(document) -> str:
    """As a careless client writes it: NaN and Infinity bare; too-long integers as digits."""
    try:
        return json.dumps(document)
    except ValueError:  # an integer past the int-string limit: write its digits by hand
        return json.dumps(_with_placeholders(document)).replace('"<huge>"', "9" * 5000)


def _with_placeholders(value):
    if isinstance(value, dict):
        return {k: _with_placeholders(v) for k, v in value.items()}
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**4000:
        return "<huge>"
    return value


BODIES = st.one_of(
    answers_documents().map(_json),
    costed_documents().map(_json),
    costed_documents().map(_json),
    st.integers(min_value=500, max_value=5000).map(lambda n: "[" * n + "]" * n),
    st.integers(min_value=500, max_value=5000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.just('{"gpus": ' + "9" * 5000 + "}"),
    st.just('{"answers": {"costs": {"server_price": 1e999}}}'),
    st.text(max_size=50),
)


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def _strict_json(text: str):
    def refuse(constant):
        raise AssertionError(f"bare {constant} in the JSON")

    return json.loads(text, parse_constant=refuse)


@FUZZ
@given(body=BODIES)
def test_the_api_answers_any_body_with_json_and_never_a_5xx(client, rules, body):
    before = Assessment.objects.count()
    response = client.post(
        reverse("decider-api-assessments"), data=body, content_type="application/json"
    )
    event(f"status {response.status_code}")
    assert response.status_code < 500, response.content[:500]
    document = _strict_json(response.content.decode())
    if response.status_code == 201:
        assert _finite(document)
        assert Assessment.objects.count() == before + 1
        assert client.get(document["view_json_url"]).status_code == 200
    else:
        assert set(document) == {"errors"} and document["errors"]
        assert all(
            len(key) < 100 and len(message) < 2000 for key, message in document["errors"].items()
        )
        assert Assessment.objects.count() == before, "a refused document left a row"


def test_a_body_over_the_limit_is_refused_naming_the_size(client, rules):
    body = json.dumps({"name": "x" * 100_000, "answers": make_answers()})
    response = client.post(
        reverse("decider-api-assessments"), data=body, content_type="application/json"
    )
    assert response.status_code == 413
    assert "64 KB" in response.json()["errors"]["_"]


@FUZZ
@given(body=BODIES, output=st.sampled_from(["json", "text"]))
def test_decide_exits_0_or_2_with_one_line_per_problem(
    rules, tmp_path_factory, capsys, body, output
):
    path = tmp_path_factory.mktemp("decide") / "answers.json"
    path.write_text(body, encoding="utf-8")
    code = 0
    try:
        call_command("decide", str(path), "--format", output)
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    event(f"exit {code}")
    assert "Traceback" not in out + err
    if code == 0 and output == "json":
        assert _finite(_strict_json(out))
    elif code == 0:
        assert out.startswith("Recommendation:")
        assert not re.search(r"\b(nan|inf)\b", out, re.IGNORECASE)
    else:
        assert code == 2
        lines = err.strip().splitlines()
        assert lines and all(": " in line and len(line) < 2000 for line in lines)


FORM_VALUES = st.one_of(
    st.sampled_from(["1e308", "-1e308", "1e-09", "nan", "inf", "9" * 5000, "0", "1.5", "-1", ""]),
    st.text(max_size=20),
    st.just("x" * 20_000),
    st.integers().map(str),
    st.floats().map(str),
)
HIDDEN_VALUES = st.one_of(
    FORM_VALUES,
    st.just("[" * 5000 + "]" * 5000),
    st.just('{"gpus": ' + "9" * 5000 + "}"),
    st.just(json.dumps({"gpus": 10**12, "costs": {"server_price": 1e308}})),
    st.just("99999999999999999999"),
)


@st.composite
def step_posts(draw):
    slug = draw(st.sampled_from(list(STEP_BY_SLUG)))
    data = dict(STEP_POSTS[slug])
    keys = list(STEP_BY_SLUG[slug].keys)
    if slug == "budget":
        keys += [f"cost_{name}" for name in FIGURE_NAMES]
    for key in draw(st.lists(st.sampled_from(keys), max_size=4)):
        data[key] = draw(FORM_VALUES)
    for key in draw(st.lists(st.sampled_from(["revision", "base"]), max_size=2)):
        data[key] = draw(HIDDEN_VALUES)
    if draw(st.booleans()):  # drawn from an older version: the answers are merged
        data["revision"] = draw(st.sampled_from(["0", "1", "2"]))
        base = draw(st.dictionaries(st.sampled_from(keys + ["costs"]), VALUES, max_size=3))
        data["base"] = _json(base)
    if draw(st.booleans()):
        data[draw(st.sampled_from(["back", "finish"]))] = ""
    return slug, data, draw(st.booleans())


@FUZZ
@given(post=step_posts())
def test_a_wizard_step_answers_any_post_and_its_result_still_opens(client, rules, post):
    slug, data, htmx = post
    _assessment, token, _view = make_assessment()
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.post(reverse("decider-step", args=[token, slug]), data, headers=headers)
    event(f"status {response.status_code}")
    assert response.status_code < 500
    saved = response.status_code == 302 or "HX-Redirect" in response
    if saved:  # every page of the assessment still opens
        assert client.get(reverse("decider-result", args=[token])).status_code == 200
        assert client.get(reverse("decider-edit-json", args=[token])).status_code == 200


def _bounds(name):
    spec = FIGURES[name]
    middle = (spec.min + spec.max) / 2
    return st.sampled_from([spec.min, spec.max, math.floor(middle) if spec.whole else middle])


EXTREMES = {
    "gpus": st.sampled_from([1, 100_000]),
    "horizon_years": st.sampled_from([1, 10]),
    "dataset_tb": st.sampled_from([0.0, 1_000_000.0]),
    "ops_fte": st.sampled_from([0.0, 1000.0]),
    "utilization_pct": st.sampled_from([0.0, 100.0]),
}


@profiles(parent=FUZZ, max_examples=min(FUZZ.max_examples, 8))  # 100,000 GPUs: slow to cost
@given(
    figures=st.fixed_dictionaries({name: _bounds(name) for name in FIGURE_NAMES}),
    extremes=st.fixed_dictionaries(EXTREMES),
    persona=st.sampled_from(PERSONAS),
)
def test_every_figure_at_its_bounds_gives_finite_totals(rules, figures, extremes, persona):
    answers, errors = answers_validate(make_answers(persona, costs=figures, **extremes))
    assert errors == {}
    _ruleset, evaluation = evaluate_now(answers)
    json.dumps(evaluation.costs, allow_nan=False)
    assert all(math.isfinite(total) for total in evaluation.costs["totals"].values())


@pytest.mark.parametrize(
    ("slug", "field", "value"),
    [
        ("budget", "cost_server_price", "1e308"),
        ("budget", "cost_gpus_per_node", "0.5"),
        ("budget", "cost_gpus_per_node", "0"),
        ("budget", "cost_gpus_per_node", "1e-09"),
        ("budget", "cost_residual_value", "1e300"),
        ("budget", "cost_spot_share", "9" * 5000),
        ("utilization", "gpus", "999999999999"),
        ("ops", "ops_fte", "999999999999"),
    ],
)
def test_the_wizard_refuses_values_that_once_broke_an_assessment_for_good(
    client, rules, slug, field, value
):
    assessment, token, _view = make_assessment()
    before = dict(assessment.answers)
    response = client.post(
        reverse("decider-step", args=[token, slug]), STEP_POSTS[slug] | {field: value}
    )
    assert response.status_code == 200
    assert "enter a" in response.content.decode()  # "<label>: enter a number from … to …"
    assessment.refresh_from_db()
    assert assessment.answers == before
    assert client.get(reverse("decider-result", args=[token])).status_code == 200


@pytest.mark.parametrize(
    ("field", "value"),
    [("revision", "9" * 5000), ("revision", "9" * 30), ("base", "[" * 5000 + "]" * 5000)],
    ids=["5000-digit revision", "30-digit revision", "base nested 5000 deep"],
)
def test_a_spoilt_hidden_field_is_ignored_and_the_step_saves(client, rules, field, value):
    _assessment, token, _view = make_assessment()
    data = STEP_POSTS["utilization"] | {field: value}
    response = client.post(reverse("decider-step", args=[token, "utilization"]), data)
    assert response.status_code == 302


# --- query parameters: paper, language, currency, compare tokens -------------------------


def printed(number: float) -> str:
    """A number as a query string carries it; Python refuses str() past 4,300 digits."""
    if isinstance(number, int) and abs(number) > 10**4000:
        return "9" * 5000
    return str(number)


PARAM_VALUES = st.one_of(
    st.sampled_from(["a4", "letter", "USD", "CNY", "zh-hans", "en", "", "A4", "usd"]),
    st.text(max_size=30),
    st.just("x" * 10_000),
    st.just("\x00"),
    st.just("%ff%fe"),
    NASTY_NUMBERS.map(printed),
)
PARAM_NAMES = st.sampled_from(["paper", "currency", "language", "lang", "a", "next", "page"])
PAGES = st.sampled_from(
    [
        "decider-view",
        "decider-view-report",
        "decider-view-pdf",
        "decider-view-json",
        "decider-view-what-if",
        "decider-compare",
        "decider-home",
        "decider-mine",
        "decider-method",
    ]
)


@pytest.fixture
def shared_pair(rules):
    return make_assessment(), make_assessment(answers=make_answers("startup"))


@FUZZ
@given(page=PAGES, params=st.lists(st.tuples(PARAM_NAMES, PARAM_VALUES), max_size=6))
def test_any_query_string_gets_a_page_and_never_a_5xx(
    client, shared_pair, monkeypatch, page, params
):
    from decider import pdf

    monkeypatch.setattr(pdf, "html_to_pdf", lambda html, **kwargs: b"%PDF-1.4 fuzz")
    (_a, _edit_a, view_a), (_b, edit_b, view_b) = shared_pair
    # Real tokens (view and edit) among the fuzzed ones, so compare sees every kind.
    params = [*params, ("a", view_a), ("a", edit_b)] if page == "decider-compare" else params
    url = reverse(page, args=[view_b]) if page.startswith("decider-view") else reverse(page)
    query = "&".join(f"{quote(name)}={quote(value, safe='')}" for name, value in params)
    response = client.get(f"{url}?{query}")
    event(f"{page} {response.status_code}")
    assert response.status_code < 500, (page, params)
    if response.status_code == 200 and page == "decider-view-json":
        _strict_json(response.content.decode())
    for name in ("language", "currency"):  # choosing them: the same bounds
        chosen = dict(params).get(name, "")
        target = "set_language" if name == "language" else "decider-currency"
        answer = client.post(reverse(target), {name: chosen, "next": dict(params).get("next", "/")})
        assert answer.status_code < 500, (name, chosen)
