"""Fuzzed form posts and query strings on the pages that take them: never a 5xx.

The workloads page, the sizing page, the what-if and its scenario, the compare page, a
rename and the admin's rule-set import each get a bounded run of hostile input: values that
are not numbers, numbers at and past their bounds, megabyte strings, NUL bytes, odd
Unicode, a formset's management form tampered with, rule-set documents with leaves swapped
for the wrong type. Most cases stay close to a valid post, so that they get past the form
into the engine. Whatever a post saved is opened again: a saved answer that breaks a page
later is as much a 5xx as one at once.
"""

from __future__ import annotations

import copy
import json
import math
import os
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import HealthCheck, event, given
from hypothesis import settings as profiles
from hypothesis import strategies as st

from decider.engine import sizing
from decider.engine.validation import answers_validate
from decider.forms import WORK_INPUTS
from decider.models import RuleSet
from decider.rulesets import ruleset_export
from tests.examples import examples
from tests.factories import make_answers, make_assessment
from tests.test_fuzz import FUZZ

pytestmark = pytest.mark.django_db

# test_fuzz.py's profile (derandomized, explore and long runs too), at this file's budget:
# every case here posts to a page and may open what it saved.
PAGES_FUZZ = profiles(
    parent=FUZZ,
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", min(FUZZ.max_examples, examples(30)))),
    suppress_health_check=[*FUZZ.suppress_health_check, HealthCheck.data_too_large],
)


# --- values a form field may be sent ---------------------------------------------------

# Text as a browser (or a script) may post it; the test client cannot encode a lone
# surrogate, which no HTTP form data holds anyway.
ODD_TEXT = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "a\x00b",
        "\t\n\r",
        "\u202eevil",  # right-to-left override
        "\ufeff",  # byte-order mark
        "e\u0301" * 50,  # combining accents
        "\U0001f600" * 30,  # emoji (4 bytes in UTF-8)
        "\u200b\u200c\u200d",  # zero-width
        "<script>alert(1)</script>",
        "{{ 7*7 }}{% now 'Y' %}",
        "%s%d%(name)s",
        "../../etc/passwd",
        "١٢٣",  # Arabic-Indic digits: int() reads them
        "²",  # a digit int() does not read
        "null",
        "undefined",
    ]
)
TEXT = st.one_of(ODD_TEXT, st.text(max_size=30), st.just("x" * 20_000))
NUMBER_TEXT = st.sampled_from(
    [
        "0",
        "-0",
        "-1",
        "1.5",
        "1e308",
        "-1e308",
        "1e-09",
        "1e999",
        "nan",
        "NaN",
        "inf",
        "-inf",
        "Infinity",
        "9" * 5000,
        "99999999999999999999",
        "0x10",
        "1_000",
        " 7 ",
        "7,5",
        "12 %",
    ]
)
JUNK = st.one_of(
    NUMBER_TEXT,
    TEXT,
    st.integers().map(str),
    st.floats().map(str),
)


# Every case is asked in one of the app's languages: a translated message is formatted too.
LANGUAGES = st.sampled_from(["en", "zh-hans"])


def speaking(client, language: str) -> None:
    """The client asks for pages in `language` from now on."""
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language


def valid_or_junk(*valid: str) -> st.SearchStrategy[str]:
    """Mostly a value the field takes (so the post gets further), sometimes junk."""
    return st.one_of(st.sampled_from(valid), st.sampled_from(valid), JUNK)


def number_text(low: float, high: float) -> st.SearchStrategy[str]:
    """A number at, between or just past its bounds, as a browser posts it."""
    middle = (low + high) / 2
    inside = [low, high, middle, low + (high - low) / 1000]
    outside = [low - 1, high * 1.0001 + 1]
    return st.one_of(
        st.sampled_from([f"{x:g}" for x in inside] + [repr(float(x)) for x in inside]),
        st.sampled_from([f"{x:g}" for x in outside]),
        st.floats(min_value=low, max_value=high).map(repr),
        JUNK,
    )


def _opened(client, response) -> None:
    """A post that saved and moved on: the page it went to still opens."""
    if response.status_code == 302:
        target = client.get(response.url)
        assert target.status_code < 500, response.url


# --- 1. the workloads page -------------------------------------------------------------

# A row as a person fills it in; each post then spoils a few of its places.
WORKLOAD_ROW = {
    "workload": st.sampled_from(["training", "finetuning", "inference", "mixed"]),
    "gpus": st.one_of(
        st.sampled_from(["1", "8", "48", "64", "100000"]),
        st.integers(min_value=1, max_value=100_000).map(str),
    ),
    "utilization_pct": st.one_of(
        st.sampled_from(["0", "100", "55", "33.3"]), st.floats(min_value=0, max_value=100).map(repr)
    ),
    "demand_shape": st.sampled_from(["steady", "moderate", "peaky"]),
    "residency": st.sampled_from(["none", "partial", "all"]),
}
WORKLOAD_EXTRAS = {
    "separate": st.sampled_from(["on", "on", ""]),
    "growth_pct": st.sampled_from(["-50", "0", "40", "1000", ""]),
    "latency_critical": st.sampled_from(["true", "false", ""]),
}
WORKLOAD_SPOILS = {
    "name": st.one_of(st.sampled_from(["serving", "", "w0", "x" * 61]), TEXT),
    "workload": valid_or_junk("training", "finetuning", "inference", "mixed", ""),
    "gpus": number_text(1, 100_000),
    "utilization_pct": number_text(0, 100),
    "demand_shape": valid_or_junk("steady", "moderate", "peaky", ""),
    "residency": valid_or_junk("none", "partial", "all", ""),
    "separate": valid_or_junk("on", "", "false", "true"),
    "growth_pct": number_text(-50, 1000),
    "latency_critical": valid_or_junk("true", "false", ""),
}
MANAGEMENT = ("TOTAL_FORMS", "INITIAL_FORMS", "MIN_NUM_FORMS", "MAX_NUM_FORMS")
MANAGEMENT_VALUES = st.one_of(
    st.sampled_from(["0", "1", "2", "3", "8", "9", "-1", "1000", "1e9", "abc", "", "٣", " 3 "]),
    NUMBER_TEXT,
)
# Row fields past the rows, at odd indices, or a formset's own fields this one has not.
STRAY_KEYS = st.sampled_from(
    [
        "form-99-name",
        "form-7-gpus",
        "form--1-gpus",
        "form-00-gpus",
        "form-0-DELETE",
        "form-0-ORDER",
        "form-0-id",
        "form-0-base_gpus",
        "form-0-peak_share_pct",
        "form-x-name",
        "workloads",
    ]
)
ACTIONS = st.one_of(
    st.sampled_from(["use", "use", "use", "add", "remove"]),
    st.sampled_from(["use", "add"]),
    st.sampled_from(["", "USE", "delete", "size", None, ["add", "use"], ["remove", "use"]]),
    TEXT,
)
FEW = st.sampled_from([0, 0, 0, 1, 1, 2, 3])  # how many places a post spoils
RARE = st.sampled_from([0, 0, 0, 0, 0, 1, 2])  # … of the places a person does not type in


@st.composite
def workloads_posts(draw) -> dict[str, Any]:
    count = draw(st.sampled_from([0, 1, 2, 3, 3, 4, 8, 9]))
    rows = [
        {"name": f"w{number}"} | draw(st.fixed_dictionaries(WORKLOAD_ROW, optional=WORKLOAD_EXTRAS))
        for number in range(count)
    ]
    for _ in range(draw(FEW) if rows else 0):
        row = draw(st.sampled_from(rows))
        key = draw(st.sampled_from(sorted(WORKLOAD_SPOILS)))
        row[key] = draw(WORKLOAD_SPOILS[key])
    data: dict[str, Any] = {
        "form-TOTAL_FORMS": str(max(0, count + draw(st.sampled_from([0, 0, 1, 2, -1])))),
        "form-INITIAL_FORMS": "0",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "8",
    }
    for number, row in enumerate(rows):
        data |= {f"form-{number}-{key}": value for key, value in row.items()}
    for _ in range(draw(RARE)):
        key = f"form-{draw(st.sampled_from(MANAGEMENT))}"
        if draw(st.booleans()):
            data[key] = draw(MANAGEMENT_VALUES)
        else:
            data.pop(key, None)
    for _ in range(draw(RARE)):
        data[draw(STRAY_KEYS)] = draw(JUNK)
    action = draw(ACTIONS)
    if action is not None:
        data["action"] = action
    return data


def company_answers() -> dict[str, Any]:
    """Answers with three workloads saved already (as tests/test_workloads.py's company)."""
    answers = make_answers("growth", residency="none", horizon_years=5, has_datacenter=True)
    for key in ("gpus", "utilization_pct", "demand_shape", "base_gpus", "peak_share_pct"):
        answers.pop(key, None)
    answers["workloads"] = [
        {"name": "serving", "workload": "inference", "gpus": 48, "utilization_pct": 90,
         "demand_shape": "steady"},
        {"name": "training", "workload": "training", "gpus": 64, "base_gpus": 0,
         "peak_share_pct": 33.3},
        {"name": "research", "workload": "training", "gpus": 8, "utilization_pct": 30,
         "demand_shape": "peaky", "separate": True},
    ]  # fmt: skip
    checked, errors = answers_validate(answers)
    assert errors == {}, errors
    return checked


def levels_answers() -> dict[str, Any]:
    """A demand given as a steady base and bursts (what the what-if asks then)."""
    answers = make_answers("inference", gpus=96, base_gpus=64, peak_share_pct=20.0)
    del answers["utilization_pct"], answers["demand_shape"]
    return answers


STARTS = {
    "growth": lambda: make_answers("growth"),
    "startup": lambda: make_answers("startup"),
    "company": company_answers,
    "levels": levels_answers,
    "china": lambda: make_answers("growth", market="cn", gpu_model="ascend_910b"),
    "blank": dict,  # nothing answered yet
}


@PAGES_FUZZ
@given(start=st.sampled_from(sorted(STARTS)), language=LANGUAGES, data=workloads_posts())
def test_the_workloads_page_answers_any_post_without_a_5xx(client, rules, start, language, data):
    speaking(client, language)
    _assessment, edit, _view = make_assessment(answers=STARTS[start]())
    response = client.post(reverse("decider-workloads", args=[edit]), data)
    event(f"{str(data.get('action'))[:8]!r}: {response.status_code}")
    assert response.status_code < 500
    _opened(client, response)
    assert client.get(reverse("decider-result", args=[edit])).status_code < 500
    assert client.get(reverse("decider-workloads", args=[edit])).status_code < 500


# --- 2. the sizing page ----------------------------------------------------------------

WORK_FIELDS: dict[str, st.SearchStrategy[str]] = {
    f"{part}-{name}": number_text(*(sizing.TRAINING_INPUTS if part == "training" else
                                    sizing.INFERENCE_INPUTS)[name])
    for part, name in WORK_INPUTS
}  # fmt: skip
WORK_FIELDS["training-precision"] = valid_or_junk("bf16", "fp8", "")
WORK_FIELDS["inference-precision"] = valid_or_junk("bf16", "fp8", "")
# A plan and a service that size, for the fuzzed values to spoil.
TRAINING = {
    "training-params_b": "70",
    "training-tokens_b": "1000",
    "training-runs_per_year": "4",
    "training-days_per_run": "30",
}
INFERENCE = {
    "inference-params_b": "70",
    "inference-tokens_per_day_m": "500",
    "inference-peak_to_average": "2.5",
}
SIZING_MODELS = st.sampled_from(["h100", "a100", "b200", "l40s", "h20", "ascend_910b", "h800"])


@st.composite
def sizing_posts(draw) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if draw(st.booleans()):
        data |= TRAINING
    if draw(st.booleans()):
        data |= INFERENCE
    for _ in range(draw(FEW)):
        key = draw(st.sampled_from(sorted(WORK_FIELDS)))
        data[key] = draw(WORK_FIELDS[key])
    action = draw(st.one_of(st.sampled_from(["use", "use", "size", None]), TEXT))
    if action is not None:
        data["action"] = action
    return data


@PAGES_FUZZ
@given(gpu_model=SIZING_MODELS, blank=st.booleans(), language=LANGUAGES, data=sizing_posts())
def test_the_sizing_page_answers_any_post_without_a_5xx(
    client, rules, gpu_model, blank, language, data
):
    speaking(client, language)
    market = "cn" if gpu_model in ("h20", "ascend_910b", "h800") else "global"
    answers = {} if blank else make_answers("growth", gpu_model=gpu_model, market=market)
    _assessment, edit, _view = make_assessment(answers=answers)
    response = client.post(reverse("decider-size", args=[edit]), data)
    event(f"{str(data.get('action'))[:8]!r}: {response.status_code}")
    assert response.status_code < 500
    _opened(client, response)
    assert client.get(reverse("decider-result", args=[edit])).status_code < 500


# --- 3. the what-if and its scenario -----------------------------------------------------

WHAT_IF_FIELDS = {
    "gpus": st.one_of(st.sampled_from(["8", "64", "256"]), number_text(1, 100_000)),
    "utilization_pct": number_text(0, 100),
    "base_gpus": st.one_of(st.sampled_from(["0", "8", "64"]), number_text(0, 100_000)),
    "peak_share_pct": number_text(0, 100),
    "horizon_years": number_text(1, 10),
    "gpu_hour_on_demand": st.one_of(st.sampled_from(["2.5", "4", "0"]), number_text(0, 1000)),
    "currency": valid_or_junk("USD", "CNY"),
}


@st.composite
def what_if_values(draw) -> dict[str, Any]:
    """Every field of the form, some spoilt, some left out, some given twice."""
    data: dict[str, Any] = {"gpus": "64", "utilization_pct": "55", "horizon_years": "3"}
    data |= {"base_gpus": "32", "peak_share_pct": "20", "gpu_hour_on_demand": "2.5"}
    for _ in range(draw(FEW)):
        key = draw(st.sampled_from(sorted(WHAT_IF_FIELDS)))
        data[key] = draw(WHAT_IF_FIELDS[key])
    for _ in range(draw(FEW)):
        key = draw(st.sampled_from(sorted(data)))
        if draw(st.booleans()):
            data.pop(key, None)
        else:
            data[key] = [data.get(key, ""), draw(JUNK)]
    return data


@pytest.fixture
def tried(rules):
    """Assessments whose what-if forms differ: one average, levels, saved workloads, yuan."""
    return {
        start: make_assessment(answers=STARTS[start]())
        for start in ("growth", "levels", "company", "china")
    }


@PAGES_FUZZ
@given(
    start=st.sampled_from(["growth", "levels", "company", "china"]),
    kind=st.sampled_from(["edit", "view"]),
    language=LANGUAGES,
    values=what_if_values(),
)
def test_the_what_if_answers_any_query_without_a_5xx(client, tried, start, kind, language, values):
    speaking(client, language)
    _assessment, edit, view = tried[start]
    token = edit if kind == "edit" else view
    response = client.get(reverse(f"decider-{kind}-what-if", args=[token]), values)
    tried_out = response.context and response.context.get("trial")
    event(f"{kind} what-if: {response.status_code}{' tried' if tried_out else ''}")
    assert response.status_code < 500


@PAGES_FUZZ
@given(
    start=st.sampled_from(["growth", "levels", "company", "china"]),
    kind=st.sampled_from(["edit", "view"]),
    language=LANGUAGES,
    values=what_if_values(),
)
def test_saving_a_what_if_as_a_scenario_answers_any_post_without_a_5xx(
    client, tried, start, kind, language, values
):
    speaking(client, language)
    _assessment, edit, view = tried[start]
    token = edit if kind == "edit" else view
    response = client.post(reverse(f"decider-{kind}-scenario", args=[token]), values)
    event(f"{kind} scenario: {response.status_code}")
    assert response.status_code < 500
    _opened(client, response)


# --- 4. compare ------------------------------------------------------------------------

TOKEN_LIKE = st.one_of(
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
            min_size=16, max_size=64),
    st.just("A" * 64),
    st.just("A" * 65),
    st.just("x" * 10_000),
    TEXT,
)  # fmt: skip


@pytest.fixture
def shared(rules):
    """Tokens to compare: finished assessments (one with workloads, one in yuan), an
    unfinished one and one whose view link was revoked, by their view and edit links."""
    made = [
        make_assessment(),
        make_assessment(answers=make_answers("startup")),
        make_assessment(answers=company_answers()),
        make_assessment(answers=STARTS["china"]()),
        make_assessment(answers={}),
        make_assessment(answers=levels_answers()),
    ]
    made[-1][0].view_link_revoke()
    return [token for _assessment, edit, view in made for token in (view, edit)]


@PAGES_FUZZ
@given(
    picks=st.lists(st.one_of(st.integers(min_value=0, max_value=11), TOKEN_LIKE), max_size=8),
    currency=st.one_of(st.none(), valid_or_junk("USD", "CNY")),
    language=LANGUAGES,
)
def test_compare_answers_any_tokens_without_a_5xx(client, shared, picks, currency, language):
    speaking(client, language)
    tokens = [shared[pick] if isinstance(pick, int) else pick for pick in picks]
    query: dict[str, Any] = {"a": tokens}
    if currency is not None:
        query["currency"] = currency
    response = client.get(reverse("decider-compare"), query)
    event(f"compare: {response.status_code}")
    assert response.status_code < 500
    if response.status_code == 302:  # an edit token swapped for its view link
        assert client.get(response.url).status_code < 500


# --- 5. rename -------------------------------------------------------------------------

NAMES = st.one_of(
    TEXT,
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=300),
    st.text(st.characters(whitelist_categories=("Cc", "Cf", "Zl", "Zp", "Mn")), max_size=50),
    st.sampled_from(["x" * 200, "x" * 201, "语" * 200, "\U0001f600" * 200, "\x00" * 300]),
    st.lists(TEXT, min_size=2, max_size=3),  # the field given more than once
)


@PAGES_FUZZ
@given(name=st.one_of(NAMES, st.none()), language=LANGUAGES)
def test_renaming_answers_any_name_without_a_5xx(client, rules, name, language):
    speaking(client, language)
    _assessment, edit, view = make_assessment()
    data = {} if name is None else {"name": name}
    response = client.post(reverse("decider-rename", args=[edit]), data)
    assert response.status_code < 500
    _opened(client, response)
    for page in ("decider-view", "decider-view-report", "decider-view-json"):
        assert client.get(reverse(page, args=[view])).status_code < 500, page
    assert client.get(reverse("decider-mine")).status_code < 500
    assert client.get(reverse("decider-compare"), {"a": [view, view]}).status_code < 500


# --- 6. the admin's rule-set import ----------------------------------------------------


class Raw:
    """JSON text put in a document as it is: what json.dumps cannot or will not write."""

    def __init__(self, text: str) -> None:
        self.text = text


HOSTILE_LEAVES = st.one_of(
    st.sampled_from(
        [
            None,
            True,
            False,
            0,
            -1,
            -(10**12),
            10**12,
            10**400,
            -(10**400),
            0.5,
            1e308,
            -1e308,
            1e-300,
            math.nan,
            math.inf,
            -math.inf,
            "",
            " ",
            "NaN",
            "nan",
            "Infinity",
            "-1",
            "1e999",
            "\x00",
            "\u202e",
            "x" * 100_000,
            [],
            {},
            [None],
            {"": None},
            {"en": 1, "zh": None},
        ]
    ).map(copy.deepcopy),  # a list or object put in a document is its own
    st.just(Raw("9" * 5000)),  # past Python's int-string limit
    st.just(Raw("-" + "9" * 5000)),
    st.just(Raw("1e99999")),
    st.just(Raw("[" * 3000 + "]" * 3000)),
    st.just(Raw('{"a":' * 3000 + "1" + "}" * 3000)),
    st.integers(min_value=1, max_value=60).map(lambda n: json.loads("[" * n + "]" * n)),
    st.integers(),
    st.floats(),
    st.text(max_size=20),
)


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every place in a document: its leaves and the objects and lists holding them."""
    found = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


def _dumps(document: Any) -> str:
    """The document as JSON, a Raw value written as its text."""
    raws: list[str] = []

    def placeholders(value: Any) -> Any:
        if isinstance(value, Raw):
            raws.append(value.text)
            return f"@@raw{len(raws) - 1}@@"
        if isinstance(value, dict):
            return {key: placeholders(item) for key, item in value.items()}
        if isinstance(value, list):
            return [placeholders(item) for item in value]
        return value

    text = json.dumps(placeholders(document))
    for number, raw in enumerate(raws):
        text = text.replace(f'"@@raw{number}@@"', raw, 1)
    return text


class Shipped:
    """The shipped rule set's export; named, not printed, when a case fails."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def __repr__(self) -> str:
        return "<the shipped rule set v1, exported>"


@pytest.fixture
def shipped(rules) -> Shipped:
    return Shipped(ruleset_export(RuleSet.objects.get(version=1)))


RAW_FILES = st.one_of(
    st.binary(max_size=200),
    st.sampled_from(
        [
            b"",
            b"\xff\xfe{\x00}\x00",
            b"\x00",
            b"{",
            b"[]",
            b"[1]",
            b"[null]",
            b"[[]]",
            b'[{}, "x"]',
            b"null",
            b"1",
            b'"a rule set"',
            b"NaN",
            b"[" * 100_000,
            b"\xc3\x28",  # not UTF-8
        ]
    ),
)
FILE_NAMES = st.sampled_from(
    ["ruleset.json", "v1.json", ".json", "x" * 300, "../../etc/passwd", "语.json", "a\x00b.json"]
)


@st.composite
def import_files(draw, document: dict[str, Any]) -> bytes:
    """The shipped rule set with some places swapped for hostile values, dropped, or given
    an unknown key; or the file cut short, wrapped in a list, in UTF-16, or not JSON."""
    kind = draw(st.sampled_from(["spoilt", "spoilt", "spoilt", "spoilt", "several", "raw"]))
    if kind == "raw":
        return draw(RAW_FILES)
    spoilt = copy.deepcopy(document)
    paths = _paths(spoilt)
    for path in draw(st.lists(st.sampled_from(paths), max_size=draw(FEW) + 1)):
        *parents, last = path
        try:
            holder = spoilt
            for step in parents:
                holder = holder[step]
            how = draw(st.sampled_from(["swap", "swap", "swap", "drop", "extra"]))
            if how == "swap":
                holder[last] = draw(HOSTILE_LEAVES)
            elif how == "drop":
                del holder[last]
            elif isinstance(holder, dict):
                holder[draw(st.text(max_size=10))] = draw(HOSTILE_LEAVES)
            else:
                holder.append(draw(HOSTILE_LEAVES))
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change took this place away
    if kind == "several":
        text = _dumps([spoilt, draw(st.sampled_from([document, spoilt, {}, None, 1]))])
    else:
        text = _dumps(spoilt)
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16"]))
    raw = text.encode(encoding)
    if draw(st.integers(min_value=0, max_value=9)) == 0:
        raw = raw[: draw(st.integers(min_value=0, max_value=len(raw)))]
    return raw


@PAGES_FUZZ
@given(data=st.data())
def test_the_admin_rule_set_import_answers_any_upload_without_a_5xx(admin_client, shipped, data):
    speaking(admin_client, data.draw(LANGUAGES, label="language"))
    content = data.draw(import_files(shipped.document), label="file")
    name = data.draw(FILE_NAMES, label="name")
    post: dict[str, Any] = {"file": SimpleUploadedFile(name, content, "application/json")}
    if data.draw(st.booleans(), label="publish"):
        post["publish"] = "on"
    response = admin_client.post(reverse("admin:decider_ruleset_import"), post)
    event(f"import: {response.status_code}")
    assert response.status_code < 500
    if response.status_code == 302:  # imported: its page, and the list, still open
        assert admin_client.get(response.url).status_code < 500
        assert admin_client.get(reverse("admin:decider_ruleset_changelist")).status_code < 500
