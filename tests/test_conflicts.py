"""Two people editing through the same edit link: nothing is lost silently."""

import html
import json
import re
from dataclasses import dataclass

import pytest
from django.urls import reverse

from decider.models import Assessment
from tests.factories import STEP_POSTS, make_assessment

pytestmark = pytest.mark.django_db


def _hidden(page: str, name: str) -> str:
    return html.unescape(re.search(rf'name="{name}" value="([^"]*)"', page).group(1))


def _drawn_form(client, token: str, slug: str) -> dict:
    """What a browser holds after drawing a step: the saved answers plus the hidden version
    (read from the page: a kept page is served without a template context)."""
    page = client.get(reverse("decider-step", args=[token, slug])).content.decode()
    base = json.loads(_hidden(page, "base"))
    return {
        **{
            key: str(value).lower() if isinstance(value, bool) else str(value)
            for key, value in base.items()
            if key != "costs"
        },
        "revision": _hidden(page, "revision"),
        "base": _hidden(page, "base"),
    }


@pytest.fixture
def assessment(rules):
    assessment, edit, _view = make_assessment()
    return assessment, edit


@dataclass
class Editors:
    """Two people who opened the utilization step of one assessment before either saved."""

    assessment: Assessment
    url: str
    first: dict
    second: dict

    def saved(self, key: str):
        self.assessment.refresh_from_db()
        return self.assessment.answers[key]


@pytest.fixture
def editors(client, assessment) -> Editors:
    obj, edit = assessment
    first = _drawn_form(client, edit, "utilization")
    second = _drawn_form(client, edit, "utilization")
    return Editors(obj, reverse("decider-step", args=[edit, "utilization"]), first, second)


def _resubmit(form, **changes) -> dict:
    """Submit a re-shown step as it stands, with its new hidden version (revision, base)."""
    values = {key: form[key].value() for key in form.fields}
    return {key: "" if v is None else str(v) for key, v in values.items()} | changes


def test_a_second_save_over_a_changed_answer_is_refused_with_both_values(client, editors):
    client.post(editors.url, {**editors.first, "utilization_pct": "40", "next": "1"})
    response = client.post(editors.url, {**editors.second, "utilization_pct": "85", "next": "1"})

    assert response.status_code == 200  # stays on the step, no redirect
    page = response.content.decode()
    assert "Someone else changed this to “40 %”" in page
    assert 'value="85"' in page  # the second person's answer is still in the field
    assert editors.saved("utilization_pct") == 40  # not overwritten silently


def test_submitting_again_after_the_conflict_keeps_the_second_answer(client, editors):
    client.post(editors.url, {**editors.first, "utilization_pct": "40", "next": "1"})
    response = client.post(editors.url, {**editors.second, "utilization_pct": "85", "next": "1"})

    again = _resubmit(response.context["form"], next="1")
    assert client.post(editors.url, again).status_code == 302
    assert editors.saved("utilization_pct") == 85


def test_submitting_again_after_a_conflict_keeps_the_others_untouched_answers(client, editors):
    """The first changes utilization and GPUs, the second only GPUs: the 40 % must survive."""
    client.post(editors.url, {**editors.first, "utilization_pct": "40", "gpus": "16", "next": "1"})
    response = client.post(editors.url, {**editors.second, "gpus": "128", "next": "1"})

    form = response.context["form"]
    assert form["utilization_pct"].value() == 40  # shown as saved, not as first seen
    assert form["gpus"].value() == "128"  # the second person's own value, in conflict
    assert client.post(editors.url, _resubmit(form, next="1")).status_code == 302
    assert editors.saved("utilization_pct") == 40
    assert editors.saved("gpus") == 128


def test_edits_to_different_answers_are_merged(client, editors):
    client.post(editors.url, {**editors.first, "utilization_pct": "40", "next": "1"})
    response = client.post(editors.url, {**editors.second, "gpus": "128", "next": "1"})

    assert response.status_code == 302
    assert editors.saved("utilization_pct") == 40  # the first person's change survives
    assert editors.saved("gpus") == 128  # and the second person's too


def test_an_unchanged_form_saved_late_does_not_undo_someone_elses_change(client, editors):
    client.post(editors.url, {**editors.second, "utilization_pct": "40", "next": "1"})
    assert client.post(editors.url, {**editors.first, "next": "1"}).status_code == 302
    assert editors.saved("utilization_pct") == 40


def test_the_conflict_message_comes_back_in_the_htmx_swap(client, editors):
    htmx = {"HX-Request": "true"}
    client.post(editors.url, {**editors.first, "gpus": "16", "next": "1"}, headers=htmx)
    response = client.post(editors.url, {**editors.second, "gpus": "32", "next": "1"}, headers=htmx)
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="form-problems"' in page and "Someone else changed this to “16" in page


def test_going_back_with_a_conflict_stays_on_the_step(client, editors):
    client.post(editors.url, {**editors.first, "gpus": "16", "next": "1"})
    response = client.post(editors.url, {**editors.second, "gpus": "32", "back": "1"})
    assert response.status_code == 200
    assert "Someone else changed this" in response.content.decode()
    assert editors.saved("gpus") == 16


def test_step_posts_without_a_version_still_save(client, assessment):
    """A client that sends no version (an old page, a script) gets last-write-wins."""
    obj, edit = assessment
    response = client.post(
        reverse("decider-step", args=[edit, "utilization"]),
        {**STEP_POSTS["utilization"], "next": "1"},
    )
    assert response.status_code == 302
    obj.refresh_from_db()
    assert obj.answers["utilization_pct"] == 25


@pytest.mark.parametrize("base", ["1", "[]", '"x"', "{not json"])
def test_a_tampered_version_field_is_not_a_500(client, assessment, base):
    _obj, edit = assessment
    response = client.post(
        reverse("decider-step", args=[edit, "utilization"]),
        {**STEP_POSTS["utilization"], "revision": "0", "base": base, "next": "1"},
    )
    assert response.status_code == 302


def test_a_save_that_keeps_losing_the_race_says_so_instead_of_failing(
    client, assessment, monkeypatch
):
    from django.db.models.query import QuerySet

    _obj, edit = assessment
    monkeypatch.setattr(QuerySet, "update", lambda self, **kwargs: 0)  # someone always got in first
    response = client.post(
        reverse("decider-step", args=[edit, "utilization"]),
        {**STEP_POSTS["utilization"], "next": "1"},
    )
    assert response.status_code == 200
    assert "try again" in response.content.decode()
