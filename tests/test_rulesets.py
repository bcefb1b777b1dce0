"""Rule set documents: the checks, export and import (commands too), drafts and publishing."""

import io
import json

import pytest
from django.conf import settings
from django.core.management import call_command

from decider.models import RuleSet
from decider.rulesets import (
    RuleSetProblems,
    ruleset_draft,
    ruleset_export,
    ruleset_import,
    ruleset_problems,
    ruleset_publish,
)

FIXTURE = settings.BASE_DIR / "fixtures" / "ruleset.json"


def make_document(**changes):
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    document.update(changes)
    return document


def criterion(document, key):
    return next(c for c in document["criteria"] if c["key"] == key)


def without_version(document):
    return {key: value for key, value in document.items() if key != "version"}


def test_it_finds_no_problem_in_the_shipped_rule_set():
    assert ruleset_problems(make_document()) == []


def test_it_lists_every_problem_of_a_document_with_where_it_is():
    document = make_document()
    criterion(document, "stage")["options"][0]["scores"]["onprem"] = 3
    del criterion(document, "workload")["options"][0]["scores"]["cloud"]
    criterion(document, "direction")["options"][0]["reason"]["zh"] = ""
    criterion(document, "scale")["options"][0]["upper"] = 10
    criterion(document, "horizon")["options"][2]["upper"] = 10
    criterion(document, "demand")["options"].pop()
    criterion(document, "regions")["weight"] = -1
    document["constraints"][0]["outcome"] = "mainframe"
    assert [str(p) for p in ruleset_problems(document)] == [
        "criterion “stage”, option 1: The score must be from -2 to 2.",
        "criterion “workload”, option 1: Give a score for this outcome.",
        "criterion “direction”, option 1: The Chinese text is empty; fill in both languages.",
        "criterion “demand”: No option for the answer(s): peaky.",
        "criterion “regions”: The weight cannot be negative.",
        "criterion “scale”, option 2: Answers from 10 to 16 are not covered by any option.",
        "criterion “horizon”, option 3: Answers from 10 up are not covered by any option.",
        "constraint “residency-all”: The outcome must be one of: onprem, cloud, hybrid, api.",
    ]


def test_it_refuses_all_weights_zero():
    document = make_document()
    for item in document["criteria"]:
        item["weight"] = 0
    assert [str(p) for p in ruleset_problems(document)] == [
        "Every weight in the rule set is zero; at least one must be above zero."
    ]


def test_it_checks_bands_with_an_open_end_in_the_middle():
    document = make_document()
    criterion(document, "utilization")["options"][1]["upper"] = None
    assert "overlaps" in str(ruleset_problems(document)[0])


def test_it_refuses_a_document_that_is_not_a_rule_set():
    assert [str(p) for p in ruleset_problems({"criteria": []})] == [
        "Not a rule set document (expected format “decider-ruleset/1”)."
    ]


@pytest.mark.django_db
def test_importing_a_broken_document_saves_nothing():
    document = make_document()
    criterion(document, "stage")["options"][0]["scores"]["onprem"] = 3
    before = RuleSet.objects.count()
    with pytest.raises(RuleSetProblems):
        ruleset_import(document)
    assert RuleSet.objects.count() == before


def test_export_then_import_gives_an_identical_rule_set(rules, tmp_path):
    path = tmp_path / "v1.json"
    call_command("ruleset_export", "1", "-o", str(path), stderr=io.StringIO())
    out = io.StringIO()
    call_command("ruleset_import", str(path), stdout=out)
    assert out.getvalue() == f"Imported {RuleSet.objects.get(version=2)} as v2 (draft).\n"
    first, second = (ruleset_export(RuleSet.objects.get(version=v)) for v in (1, 2))
    assert without_version(first) == without_version(second)
    assert json.loads(path.read_text(encoding="utf-8")) == first


def test_the_export_command_writes_to_standard_output(rules):
    out = io.StringIO()
    call_command("ruleset_export", "1", stdout=out)
    assert json.loads(out.getvalue()) == ruleset_export(RuleSet.objects.get(version=1))


def test_the_import_command_can_publish(rules, tmp_path):
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(ruleset_export(RuleSet.objects.get(version=1))), encoding="utf-8")
    call_command("ruleset_import", str(path), "--publish", stdout=io.StringIO())
    assert RuleSet.current().version == 2


def test_the_import_command_refuses_a_broken_document(rules, tmp_path, capsys):
    document = make_document()
    criterion(document, "utilization")["options"][1]["lower"] = 35
    criterion(document, "stage")["label"]["en"] = ""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        call_command("ruleset_import", str(path))
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "criterion “stage”: The English text is empty; fill in both languages.",
        "criterion “utilization”, option 2: Answers from 30 to 35 are not covered by any option.",
    ]
    assert RuleSet.objects.count() == 1


def test_the_import_command_refuses_a_file_that_is_not_json(rules, tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text("{nope", encoding="utf-8")
    with pytest.raises(SystemExit):
        call_command("ruleset_import", str(path))
    assert capsys.readouterr().err.startswith("The file is not JSON:")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: criterion(d, "stage").update(question=["stage"]),
            "criterion “stage”: “question” must be text.",
        ),
        (
            lambda d: criterion(d, "stage")["options"][0].update(value={"a": 1}),
            "criterion “stage”, option 1: “value” must be text.",
        ),
        (
            lambda d: d["constraints"][0].update(question=["x"]),
            "“question” must be text.",
        ),
        (
            lambda d: d["constraints"][0].update(excludes="yes"),
            "“excludes” must be true or false.",
        ),
        (lambda d: d.update(notes=["a", "list"]), "“notes” must be text."),
        (lambda d: d.update(name="x" * 201), "“name” is longer than 200 characters."),
        (
            lambda d: criterion(d, "stage").update(label="Stage"),
            "criterion “stage”: “label” must be an object with “en” and “zh” texts.",
        ),
        (
            lambda d: criterion(d, "stage").update(key="a key with spaces"),
            "“key” may hold only letters, digits, “-” and “_”.",
        ),
        (
            lambda d: criterion(d, "stage").update(key=7),
            "criterion “#1”: “key” must be text.",
        ),
    ],
)
def test_the_import_command_names_the_key_of_a_wrong_type(rules, tmp_path, capsys, change, message):
    document = make_document()
    change(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        call_command("ruleset_import", str(path))
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err.splitlines()[0]
    assert RuleSet.objects.count() == 1


def test_a_document_without_notes_imports_with_empty_notes(rules):
    ruleset = ruleset_import(make_document(notes=None), publish=False)
    assert ruleset.notes == ""


def test_the_import_command_refuses_a_file_nested_too_deeply(rules, tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(SystemExit):
        call_command("ruleset_import", str(path))
    assert capsys.readouterr().err.strip() == "The file is nested too deeply to be read."


def test_the_import_command_refuses_a_file_that_is_not_utf8(rules, tmp_path, capsys):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"name": "Règles"}'.encode("latin-1"))
    with pytest.raises(SystemExit):
        call_command("ruleset_import", str(path))
    assert capsys.readouterr().err.strip() == f"{path}: the file is not UTF-8 text."


def test_the_export_command_says_when_it_cannot_write(rules, tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No such file or directory"):
        call_command("ruleset_export", "1", "-o", str(tmp_path / "missing" / "v1.json"))


def test_a_draft_becomes_current_only_when_published(rules):
    v1 = RuleSet.objects.get(version=1)
    draft = ruleset_draft(v1)
    assert RuleSet.current() == v1
    assert draft.history.first().history_change_reason == "draft made from v1"
    ruleset_publish(draft)
    assert RuleSet.current() == draft


def test_publishing_an_older_draft_gives_it_the_newest_version(rules):
    v1 = RuleSet.objects.get(version=1)
    older, newer = ruleset_draft(v1), ruleset_draft(v1)
    ruleset_publish(newer)
    published = ruleset_publish(older)
    assert published.version == 4
    assert RuleSet.current() == published


def test_a_saved_assessment_keeps_the_version_it_was_scored_with(rules):
    from decider.services import assessment_score
    from tests.factories import make_assessment

    v1 = RuleSet.objects.get(version=1)
    assessment, _edit, _view = make_assessment()
    assessment_score(assessment)
    result = assessment.result
    draft = ruleset_draft(v1)
    draft.criteria.filter(key="utilization").update(weight=20)
    ruleset_publish(draft)
    assessment.refresh_from_db()
    assert (assessment.ruleset, assessment.result) == (v1, result)


def test_ensure_admin_creates_the_first_account_from_the_environment(db, monkeypatch):
    from django.contrib.auth import get_user_model

    monkeypatch.setenv("DJANGO_SUPERUSER_USERNAME", "boss")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "pw-Decider-1")
    monkeypatch.setenv("DJANGO_SUPERUSER_EMAIL", "boss@example.com")
    out = io.StringIO()
    call_command("ensure_admin", stdout=out)
    call_command("ensure_admin", stdout=out)
    user = get_user_model().objects.get(username="boss")
    assert user.is_superuser and user.check_password("pw-Decider-1")
    assert out.getvalue().splitlines() == [
        "Admin: created account 'boss'; sign in at /admin/.",
        "Admin: account 'boss' already exists; left as it is.",
    ]


def test_ensure_admin_says_how_to_create_one_without_the_environment(db, monkeypatch):
    monkeypatch.delenv("DJANGO_SUPERUSER_USERNAME", raising=False)
    monkeypatch.delenv("DJANGO_SUPERUSER_PASSWORD", raising=False)
    out = io.StringIO()
    call_command("ensure_admin", stdout=out)
    assert "createsuperuser" in out.getvalue()
    assert "DJANGO_SUPERUSER_USERNAME" in out.getvalue()
