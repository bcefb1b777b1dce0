"""The step forms never lose what was typed: messages, the error summary, Back, switching,
and "Save and see the result" (server side, without a browser)."""

import re

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils.translation import override

from decider.engine import questionnaire
from decider.forms import STEP_FORMS, FiguresStepForm
from tests.factories import STEP_POSTS, make_answers, make_assessment

GPUS_MESSAGE = "GPUs needed at peak: enter a whole number from 1 to 100,000 GPUs."
PCT_MESSAGE = "Expected average GPU utilization (%): enter a number from 0 to 100 %."


def step_url(token, slug):
    return reverse("decider-step", args=[token, slug])


def field_html(page: str, name: str) -> str:
    return page.split(f'id="field-{name}"')[1].split('class="field')[0]


def input_tag(page: str, name: str) -> str:
    return re.search(rf'<input type="text" name="{name}"[^>]*>', page).group(0)


@pytest.fixture
def growth(rules):
    assessment, token, _view = make_assessment(answers=make_answers("growth"))
    return assessment, token


@pytest.mark.parametrize(
    ("field", "typed", "message"),
    [
        ("utilization_pct", "150", PCT_MESSAGE),
        ("utilization_pct", "150 %", PCT_MESSAGE),
        ("gpus", "1e9", GPUS_MESSAGE),  # a number, but out of range: the range is said
        ("gpus", "8.5", GPUS_MESSAGE),
        ("gpus", "12,5", GPUS_MESSAGE),
        ("gpus", "", GPUS_MESSAGE),
        (
            "horizon_years",
            "0",
            "Planning horizon (years): enter a whole number from 1 to 10 years.",
        ),
    ],
)
def test_it_gives_back_what_was_typed_with_a_message_naming_field_range_and_unit(
    client, growth, field, typed, message
):
    assessment, token = growth
    before = dict(assessment.answers)
    data = STEP_POSTS["utilization"] | {field: typed, "next": "1"}
    response = client.post(step_url(token, "utilization"), data)
    assert response.status_code == 200
    page = response.content.decode()
    tag = input_tag(page, field)
    assert (f'value="{typed}"' in tag) if typed else ("value=" not in tag)
    assert 'aria-invalid="true"' in tag
    assert message in field_html(page, field)
    assessment.refresh_from_db()
    assert assessment.answers == before


def test_a_figure_gets_its_range_in_the_message(client, growth):
    _assessment, token = growth
    data = STEP_POSTS["budget"] | {"cost_spot_share": "1.5", "next": "1"}
    page = client.post(step_url(token, "budget"), data).content.decode()
    assert 'value="1.5"' in input_tag(page, "cost_spot_share")
    assert "enter a number from 0 to 1." in field_html(page, "cost_spot_share")


@pytest.mark.django_db  # the GPU models' labels carry their speeds, from the figures
def test_the_messages_come_from_the_questions_declared_bounds_and_units():
    for key, question in questionnaire.QUESTIONS.items():
        if question.kind not in ("int", "float"):
            continue
        step_form = STEP_FORMS[question.step]
        # The figures step offers the cost figures too: none here, its own questions alone.
        extra = {"figures": {}} if issubclass(step_form, FiguresStepForm) else {}
        form = step_form({key: "999999999"}, saved={}, revision=0, **extra)
        assert not form.is_valid()
        assert form.errors[key] == [f"{question.label}: enter {question.allowed()}."]
        assert questionnaire.grouped_text(question.max) in question.allowed()
        if question.unit:
            assert question.allowed().endswith(question.unit)


@pytest.mark.django_db  # the GPU models' labels carry their speeds, from the figures
def test_the_message_reads_in_chinese_too():
    with override("zh-hans"):
        form = STEP_FORMS["utilization"]({"gpus": "0"}, saved={}, revision=0)
        form.is_valid()
        message = form.errors["gpus"][0]
    assert "100,000" in message and "1" in message
    assert "GPUs needed at peak" not in message  # the label is the Chinese one


def test_the_error_summary_links_to_each_field_in_error(client, growth):
    _assessment, token = growth
    data = STEP_POSTS["utilization"] | {"gpus": "0", "utilization_pct": "150", "next": "1"}
    page = client.post(step_url(token, "utilization"), data).content.decode()
    summary = page.split('id="error-summary"')[1].split("</div>")[0]
    links = re.findall(r'<a href="#([^"]+)">([^<]+)</a>', summary)
    assert links == [("id_utilization_pct", PCT_MESSAGE), ("id_gpus", GPUS_MESSAGE)]
    for target, _text in links:
        assert f'id="{target}"' in page
    # Each field in error is described by its message, and the message is there.
    described = re.search(r'aria-describedby="([^"]+)"', input_tag(page, "gpus")).group(1)
    assert "id_gpus_error" in described.split()
    for target in described.split():
        assert f'id="{target}"' in page
    assert "autofocus" in page.split('id="error-summary"')[1].split(">")[0]


def test_a_choice_in_error_links_to_its_first_radio(client, growth):
    _assessment, token = growth
    data = STEP_POSTS["workload"] | {"stage": "", "next": "1"}
    page = client.post(step_url(token, "workload"), data).content.decode()
    assert '<a href="#id_stage_0">Which describes you best?: choose one of the answers.</a>' in page
    assert 'aria-describedby="id_stage_error id_stage_helptext"' in page


def test_next_is_the_step_forms_first_submit_button_so_enter_means_next(client, growth):
    """The default button (the one Enter presses) is the first in the page that sends the form:
    before the switcher's buttons in the header and Back."""
    _assessment, token = growth
    for slug in ("utilization", "budget"):
        page = client.get(step_url(token, slug)).content.decode()
        before_form, inside = page.split('id="step-form"')
        buttons = [
            *re.findall(r'<button type="submit"[^>]*form="step-form"[^>]*>', before_form),
            *re.findall(r'<button type="submit"[^>]*>', inside.split("</form>")[0]),
        ]
        assert 'name="next"' in buttons[0]
        assert any('name="back"' in b for b in buttons)
        assert any('name="language"' in b for b in buttons)


def test_going_back_with_a_typed_bad_value_stays_and_says_why(client, growth):
    assessment, token = growth
    data = STEP_POSTS["utilization"] | {"gpus": "1e9", "utilization_pct": "42", "back": "1"}
    response = client.post(step_url(token, "utilization"), data)
    page = response.content.decode()
    assert response.status_code == 200
    assert "Not saved yet: correct these answers, or clear them, to go back." in page
    assert 'value="1e9"' in input_tag(page, "gpus")
    assert GPUS_MESSAGE in field_html(page, "gpus")
    assessment.refresh_from_db()
    assert assessment.answers["utilization_pct"] == 42  # the valid one is saved
    assert assessment.answers["gpus"] == 64
    # The re-shown form carries the new version: correcting it and going back saves it.
    form = response.context["form"]
    again = {
        name: "" if form[name].value() is None else str(form[name].value()) for name in form.fields
    }
    response = client.post(step_url(token, "utilization"), again | {"gpus": "96", "back": "1"})
    assert response.status_code == 302
    assessment.refresh_from_db()
    assert assessment.answers["gpus"] == 96


def test_going_back_from_a_step_left_empty_does_not_ask_for_it(client, rules):
    _assessment, token, _view = make_assessment(answers=make_answers("growth"))
    response = client.post(step_url(token, "ops"), {"back": "1"})
    assert response.status_code == 302
    assert response.url == step_url(token, "utilization")


def test_a_completed_assessment_offers_save_and_see_the_result_on_every_step(client, growth):
    _assessment, token = growth
    for step in questionnaire.STEPS[:-1]:
        page = client.get(step_url(token, step.slug)).content.decode()
        assert 'name="finish"' in page and "Save and see the result" in page, step.slug
    # The last step's Next already leads to the result.
    assert 'name="finish"' not in client.get(step_url(token, "budget")).content.decode()


def test_an_unfinished_assessment_has_no_shortcut_to_the_result(client, rules):
    answers = make_answers("growth")
    del answers["dataset_tb"]
    _assessment, token, _view = make_assessment(answers=answers)
    assert 'name="finish"' not in client.get(step_url(token, "workload")).content.decode()


def test_save_and_see_the_result_saves_the_change_and_goes_to_the_result(client, growth):
    assessment, token = growth
    data = STEP_POSTS["utilization"] | {"gpus": "128", "finish": "1"}
    response = client.post(step_url(token, "utilization"), data)
    assert response.url == reverse("decider-result", args=[token])
    assessment.refresh_from_db()
    assert assessment.answers["gpus"] == 128
    htmx = client.post(
        step_url(token, "ops"), STEP_POSTS["ops"] | {"finish": "1"}, HTTP_HX_REQUEST="true"
    )
    assert htmx["HX-Redirect"] == reverse("decider-result", args=[token])


def test_save_and_see_the_result_with_a_bad_value_stays_on_the_step(client, growth):
    _assessment, token = growth
    data = STEP_POSTS["utilization"] | {"gpus": "0", "finish": "1"}
    response = client.post(step_url(token, "utilization"), data)
    assert response.status_code == 200
    assert GPUS_MESSAGE in response.content.decode()


@pytest.mark.parametrize("htmx", [False, True])
def test_switching_language_on_a_step_keeps_what_was_typed_and_saves_nothing(client, growth, htmx):
    assessment, token = growth
    before = dict(assessment.answers)
    url = step_url(token, "utilization")
    data = STEP_POSTS["utilization"] | {"gpus": "96", "horizon_years": "99", "language": "zh-hans"}
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client.post(url, data, **headers)
    assert (response["HX-Redirect"] if htmx else response.url) == url
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    assessment.refresh_from_db()
    assert assessment.answers == before  # switching is not saving

    page = client.get(url).content.decode()
    assert '<html lang="zh-Hans">' in page
    assert 'value="96"' in input_tag(page, "gpus")
    assert 'value="99"' in input_tag(page, "horizon_years")
    assert 'class="field has-error" id="field-horizon_years"' in page  # with its message
    assert 'class="field has-error" id="field-gpus"' not in page
    # Shown once: the next visit draws the step as saved.
    assert 'value="64"' in input_tag(client.get(url).content.decode(), "gpus")


def test_switching_currency_on_a_step_keeps_what_was_typed(client, growth):
    _assessment, token = growth
    url = step_url(token, "budget")
    data = STEP_POSTS["budget"] | {"cost_server_price": "123456", "currency": "CNY"}
    assert client.post(url, data).url == url
    page = client.get(url).content.decode()
    assert 'value="123456"' in input_tag(page, "cost_server_price")
    assert re.search(r'value="CNY"[^>]*aria-pressed="true"', page)


def test_the_switcher_on_a_step_sends_the_step_form(client, growth):
    _assessment, token = growth
    page = client.get(step_url(token, "utilization")).content.decode()
    for value in ("en", "zh-hans", "USD", "CNY"):
        button = re.search(rf'<button type="submit" name="\w+" value="{value}"[^>]*>', page).group(
            0
        )
        assert 'form="step-form"' in button
    # Elsewhere the switcher posts to its own views, as before.
    home = client.get(reverse("decider-home")).content.decode()
    assert 'form="step-form"' not in home


def test_every_page_starts_with_a_skip_link_to_its_content(client, growth):
    _assessment, token = growth
    urls = [
        reverse("decider-home"),
        step_url(token, "workload"),
        reverse("decider-mine"),
        reverse("decider-compare"),
        reverse("decider-result", args=[token]),
        reverse("decider-edit-report", args=[token]),
        "/a/no-such-link-at-all-0000/",
    ]
    for url in urls:
        body = client.get(url).content.decode().split("<body", 1)[1].split(">", 1)[1]
        first = re.search(r"<(a|button|input|select|textarea)\b[^>]*>", body).group(0)
        target = re.fullmatch(r'<a class="skip-link" href="#([\w-]+)">', first)
        assert target, (url, first)
        assert f'id="{target.group(1)}"' in body, url


def _without_csrf(html: str) -> str:
    html = re.sub(r"\"X-CSRFToken\": \"[^\"]*\"", "csrf", html)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "csrf", html)


@pytest.mark.parametrize("step", questionnaire.STEPS, ids=lambda s: s.slug)
def test_the_form_renderer_draws_what_djangos_templates_draw(growth, client, settings, step):
    """decider.renderers draws inputs and radio options without a template each: every step,
    as first drawn and with errors, must come out byte for byte as Django's templates draw
    it, the result page's what-if form too."""
    _assessment, token = growth
    bad = {name: "not a number" for name in STEP_POSTS.get(step.slug, {})}
    bad |= {"gpus": "0", "utilization_pct": "150", "stage": "nope"}

    def pages() -> list[str]:
        got = [client.get(step_url(token, step.slug)).content.decode()]
        got.append(client.post(step_url(token, step.slug), bad).content.decode())
        got.append(client.get(reverse("decider-result", args=[token])).content.decode())
        return [_without_csrf(page) for page in got]

    ours = pages()
    settings.FORM_RENDERER = "django.forms.renderers.DjangoTemplates"
    assert pages() == ours
    assert '<input type="radio"' in ours[0] or '<input type="text"' in ours[0]
    assert 'aria-invalid="true"' in ours[1]
