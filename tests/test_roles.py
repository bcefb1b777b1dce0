"""Admin roles (issue 35): who drafts, who publishes, who only looks; every path that makes a
rule set current checks the right to publish, and a second pair of eyes when asked for."""

import json

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from decider.models import Criterion, Publication, RuleSet
from decider.roles import ROLES
from decider.rulesets import ruleset_draft, ruleset_export
from tests.adminforms import change_form_data, change_url

pytestmark = pytest.mark.django_db
PASSWORD = "pw-Decider-1"


def _staff(django_user_model, name: str, *groups: str):
    user = django_user_model.objects.create_user(name, password=PASSWORD, is_staff=True)
    user.groups.add(*Group.objects.filter(name__in=groups))
    return user


@pytest.fixture
def people(django_user_model, rules):
    return {
        name: _staff(django_user_model, name, role)
        for name, role in (
            ("erin", "editors"),
            ("paul", "publishers"),
            ("petra", "publishers"),
            ("vic", "viewers"),
        )
    }


def _as(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def draft(rules):
    return ruleset_draft(RuleSet.objects.get(version=1))


def _upload() -> SimpleUploadedFile:
    """Version 1 exported, as a file an admin uploads to import it as a new version."""
    document = ruleset_export(RuleSet.objects.get(version=1))
    return SimpleUploadedFile("v.json", json.dumps(document).encode(), "application/json")


def _publish(client, ruleset):
    return client.post(
        reverse("admin:decider_ruleset_publish", args=[ruleset.pk]), {"confirm": "yes"}
    )


def _edit_a_weight(client, ruleset) -> None:
    """The user edits the draft in the admin, as one does: a criterion's weight."""
    criterion = Criterion.objects.filter(ruleset=ruleset).order_by("order").first()
    page = client.get(change_url(criterion))
    data = change_form_data(page) | {"weight": str(criterion.weight + 0.5)}
    response = client.post(change_url(criterion), data)
    assert response.status_code == 302, response.content.decode()[:2000]


# --- the groups ----------------------------------------------------------------------------


def test_load_defaults_makes_the_three_groups_on_a_fresh_database(db):
    call_command("load_defaults", verbosity=0)
    groups = {g.name: g for g in Group.objects.all()}
    assert set(groups) >= {"editors", "publishers", "viewers"}
    perms = {
        name: set(g.permissions.values_list("codename", flat=True)) for name, g in groups.items()
    }
    assert "publish_ruleset" in perms["publishers"] and "publish_ruleset" not in perms["editors"]
    assert {"add_ruleset", "change_criterion", "change_option"} <= perms["editors"]
    # Both may change a live figure: an editor's change waits for a publisher (issue 49).
    assert {"change_assumption", "add_tokenprice"} <= perms["editors"] & perms["publishers"]
    assert "view_figurechange" in perms["viewers"]
    assert all(codename.startswith("view_") for codename in perms["viewers"])
    assert {"view_ruleset", "view_assessment", "view_assumption"} <= perms["viewers"]


def test_load_defaults_puts_a_group_changed_by_hand_back_as_shipped(rules):
    editors = Group.objects.get(name="editors")
    editors.permissions.clear()
    call_command("load_defaults", verbosity=0)
    assert editors.permissions.filter(codename="change_criterion").exists()


def test_each_group_says_what_it_is_for_in_both_languages(client, django_user_model, rules):
    boss = django_user_model.objects.create_superuser("boss", "b@example.com", PASSWORD)
    page = _as(client, boss).get(reverse("admin:auth_group_changelist")).content.decode()
    assert all(role.description.en[:40] in page for role in ROLES)
    chinese = client.get(
        reverse("admin:auth_group_changelist"), headers={"Accept-Language": "zh-hans"}
    ).content.decode()
    assert all(role.description.zh[:12] in chinese for role in ROLES)


# --- every path that publishes -------------------------------------------------------------


def test_an_editor_drafts_and_previews_but_the_publish_page_refuses(client, people, draft):
    editor = _as(client, people["erin"])
    _edit_a_weight(editor, draft)
    preview = editor.get(reverse("admin:decider_ruleset_impact", args=[draft.pk]))
    assert preview.status_code == 200
    assert "publish rule sets (the publishers group)" in preview.content.decode()
    assert "Yes, publish" not in preview.content.decode()
    assert "A publisher publishes it" in editor.get(change_url(draft)).content.decode()
    assert _publish(editor, draft).status_code == 403
    assert RuleSet.current().version == 1


def test_a_publisher_publishes_and_the_history_says_who_and_what_they_saw(client, people, draft):
    _edit_a_weight(_as(client, people["erin"]), draft)
    publisher = _as(client, people["paul"])
    page = publisher.post(reverse("admin:decider_ruleset_publish", args=[draft.pk]))
    assert "Last edited by erin" in page.content.decode()  # who edited it last
    assert _publish(publisher, draft).status_code == 302
    assert RuleSet.current() == RuleSet.objects.get(pk=draft.pk)
    publication = Publication.objects.get(ruleset=draft)
    assert publication.published_by == people["paul"] and publication.previous_version == 1
    assert publication.impact is not None and publication.impact["total"] == 0  # the preview seen
    changes = publisher.get(reverse("admin:decider_ruleset_changes", args=[draft.pk]))
    text = changes.content.decode()
    assert "erin" in text and "Published by paul" in text  # who edited, who published
    assert "The impact preview they saw: 0 of 0 saved recommendations would change." in text


def test_an_import_with_publish_at_once_is_kept_as_a_draft_for_an_editor(client, people):
    upload = _upload()
    response = _as(client, people["erin"]).post(
        reverse("admin:decider_ruleset_import"), {"file": upload, "publish": "on"}, follow=True
    )
    assert "Imported as a draft. Publishing needs the right to publish" in response.content.decode()
    assert RuleSet.current().version == 1
    assert not RuleSet.objects.get(version=2).is_published


def test_a_publisher_s_import_with_publish_at_once_is_current(client, people):
    upload = _upload()
    _as(client, people["paul"]).post(
        reverse("admin:decider_ruleset_import"), {"file": upload, "publish": "on"}
    )
    assert RuleSet.current().version == 2
    assert Publication.objects.get(ruleset__version=2).published_by == people["paul"]


def test_the_bulk_action_publishes_nothing_for_an_editor_and_asks_a_publisher(
    client, people, draft
):
    action = {"action": "publish_draft", "_selected_action": [draft.pk], "index": 0}
    url = reverse("admin:decider_ruleset_changelist")
    editor = _as(client, people["erin"])
    assert "publish_draft" not in editor.get(url).content.decode()  # not offered
    editor.post(url, action)
    assert RuleSet.current().version == 1
    # A publisher's action opens the "Publish?" page with the impact; nothing is published yet.
    page = _as(client, people["paul"]).post(url, action)
    assert page.status_code == 200 and "Yes, publish v2" in page.content.decode()
    assert RuleSet.current().version == 1


def test_a_command_publishes_as_the_operator_and_the_history_says_so(rules, tmp_path):
    path = tmp_path / "v.json"
    path.write_text(json.dumps(ruleset_export(RuleSet.objects.get(version=1))))
    call_command("ruleset_import", str(path), "--publish", verbosity=0)
    published = RuleSet.objects.get(version=2)
    assert RuleSet.current() == published
    assert (
        Publication.objects.get(ruleset=published).operator == "manage.py ruleset_import --publish"
    )
    reasons = set(published.history.values_list("history_change_reason", flat=True))
    assert "published by the operator (manage.py ruleset_import --publish)" in reasons


# --- a second pair of eyes -----------------------------------------------------------------


def test_with_a_second_pair_of_eyes_the_last_editor_cannot_publish(client, people, settings):
    settings.DECIDER_PUBLISH_REVIEW = True
    draft = ruleset_draft(RuleSet.objects.get(version=1))
    paul = _as(client, people["paul"])
    _edit_a_weight(paul, draft)
    refused = _publish(paul, draft)
    assert refused.status_code == 403
    assert "You edited this draft last" in refused.content.decode()
    assert RuleSet.current().version == 1
    # Another publisher may.
    assert _publish(_as(client, people["petra"]), draft).status_code == 302
    assert RuleSet.current().pk == draft.pk


def test_with_a_second_pair_of_eyes_an_import_is_never_published_at_once(client, people, settings):
    settings.DECIDER_PUBLISH_REVIEW = True
    upload = _upload()
    response = _as(client, people["paul"]).post(
        reverse("admin:decider_ruleset_import"), {"file": upload, "publish": "on"}, follow=True
    )
    assert "someone else must publish it" in response.content.decode()
    assert RuleSet.current().version == 1


def test_without_it_one_publisher_edits_and_publishes_alone(client, people, draft):
    paul = _as(client, people["paul"])
    _edit_a_weight(paul, draft)
    assert _publish(paul, draft).status_code == 302
    assert RuleSet.current().pk == draft.pk


# --- viewers change nothing ----------------------------------------------------------------


def test_a_viewer_reads_every_admin_page_and_every_change_is_refused(client, people, draft):
    viewer = _as(client, people["vic"])
    refused = []
    for model in admin.site._registry:
        if model._meta.app_label != "decider":
            continue
        name = model._meta.model_name
        changelist = reverse(f"admin:decider_{name}_changelist")
        assert viewer.get(changelist).status_code == 200, name
        obj = model.objects.first()
        if obj is None:
            continue
        url = reverse(f"admin:decider_{name}_change", args=[obj.pk])
        assert viewer.get(url).status_code == 200, name
        if viewer.post(url, {}).status_code != 403:
            refused.append(name)
    assert refused == []
    assert _publish(viewer, draft).status_code == 403
    assert viewer.post(reverse("admin:decider_ruleset_draft", args=[draft.pk])).status_code == 403
