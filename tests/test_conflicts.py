"""Two people editing through the same edit link: nothing is lost silently."""

import json

import pytest
from django.urls import reverse

from tests.conftest import make_assessment
from tests.test_wizard import STEP_POSTS

pytestmark = pytest.mark.django_db


def _drawn_form(client, token: str, slug: str) -> dict:
    """What a browser holds after drawing a step: the saved answers plus the hidden version."""
    response = client.get(reverse("decider-step", args=[token, slug]))
    form = response.context["form"]
    return {
        **{
            key: str(value).lower() if isinstance(value, bool) else str(value)
            for key, value in form.base.items()
            if key != "costs"
        },
        "revision": str(form.revision),
        "base": json.dumps(form.base),
    }


@pytest.fixture
def assessment(rules):
    assessment, edit, _view = make_assessment()
    return assessment, edit


def test_a_second_save_over_a_changed_answer_is_refused_with_both_values(client, assessment):
    obj, edit = assessment
    url = reverse("decider-step", args=[edit, "utilization"])
    finance = _drawn_form(client, edit, "utilization")
    infra = _drawn_form(client, edit, "utilization")

    client.post(url, {**finance, "utilization_pct": "40", "next": "1"})
    response = client.post(url, {**infra, "utilization_pct": "85", "next": "1"})

    assert response.status_code == 200  # stays on the step, no redirect
    page = response.content.decode()
    assert "Someone else changed this to “40 %”" in page
    assert 'value="85"' in page  # the second person's answer is still in the field
    obj.refresh_from_db()
    assert obj.answers["utilization_pct"] == 40  # not overwritten silently


def test_submitting_again_after_the_conflict_keeps_the_second_answer(client, assessment):
    obj, edit = assessment
    url = reverse("decider-step", args=[edit, "utilization"])
    finance = _drawn_form(client, edit, "utilization")
    infra = _drawn_form(client, edit, "utilization")
    client.post(url, {**finance, "utilization_pct": "40", "next": "1"})
    response = client.post(url, {**infra, "utilization_pct": "85", "next": "1"})

    form = response.context["form"]
    again = {
        **infra,
        "utilization_pct": "85",
        "revision": str(form.revision),
        "base": json.dumps(form.base),
        "next": "1",
    }
    assert client.post(url, again).status_code == 302
    obj.refresh_from_db()
    assert obj.answers["utilization_pct"] == 85


def test_edits_to_different_answers_are_merged(client, assessment):
    obj, edit = assessment
    url = reverse("decider-step", args=[edit, "utilization"])
    finance = _drawn_form(client, edit, "utilization")
    infra = _drawn_form(client, edit, "utilization")
    client.post(url, {**finance, "utilization_pct": "40", "next": "1"})
    response = client.post(url, {**infra, "gpus": "128", "next": "1"})

    assert response.status_code == 302
    obj.refresh_from_db()
    assert obj.answers["utilization_pct"] == 40  # the first person's change survives
    assert obj.answers["gpus"] == 128  # and the second person's too


def test_an_unchanged_form_saved_late_does_not_undo_someone_elses_change(client, assessment):
    obj, edit = assessment
    url = reverse("decider-step", args=[edit, "utilization"])
    stale = _drawn_form(client, edit, "utilization")
    fresh = _drawn_form(client, edit, "utilization")
    client.post(url, {**fresh, "utilization_pct": "40", "next": "1"})
    assert client.post(url, {**stale, "next": "1"}).status_code == 302
    obj.refresh_from_db()
    assert obj.answers["utilization_pct"] == 40


def test_the_conflict_message_comes_back_in_the_htmx_swap(client, assessment):
    _obj, edit = assessment
    url = reverse("decider-step", args=[edit, "utilization"])
    first = _drawn_form(client, edit, "utilization")
    second = _drawn_form(client, edit, "utilization")
    client.post(url, {**first, "gpus": "16", "next": "1"}, headers={"HX-Request": "true"})
    response = client.post(
        url, {**second, "gpus": "32", "next": "1"}, headers={"HX-Request": "true"}
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="form-problems"' in page and "Someone else changed this to “16" in page


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


def test_submitting_again_after_a_conflict_keeps_the_others_untouched_answers(client, assessment):
    """A changes utilization and GPUs; B changes only GPUs. B's second submit must keep A's 40 %."""
    obj, edit = assessment
    url = reverse("decider-step", args=[edit, "utilization"])
    a = _drawn_form(client, edit, "utilization")
    b = _drawn_form(client, edit, "utilization")
    client.post(url, {**a, "utilization_pct": "40", "gpus": "16", "next": "1"})
    response = client.post(url, {**b, "gpus": "128", "next": "1"})

    form = response.context["form"]
    assert form["utilization_pct"].value() == 40  # shown as saved, not as B first saw it
    assert form["gpus"].value() == "128"  # B's own value, in conflict
    again = {
        key: str(form[key].value())
        for key in ("utilization_pct", "gpus", "gpu_model", "horizon_years")
    }
    again |= {"revision": str(form.revision), "base": json.dumps(form.base), "next": "1"}
    assert client.post(url, again).status_code == 302
    obj.refresh_from_db()
    assert obj.answers["utilization_pct"] == 40
    assert obj.answers["gpus"] == 128


def test_going_back_with_a_conflict_stays_on_the_step(client, assessment):
    obj, edit = assessment
    url = reverse("decider-step", args=[edit, "utilization"])
    a = _drawn_form(client, edit, "utilization")
    b = _drawn_form(client, edit, "utilization")
    client.post(url, {**a, "gpus": "16", "next": "1"})
    response = client.post(url, {**b, "gpus": "32", "back": "1"})
    assert response.status_code == 200
    assert "Someone else changed this" in response.content.decode()
    obj.refresh_from_db()
    assert obj.answers["gpus"] == 16


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
