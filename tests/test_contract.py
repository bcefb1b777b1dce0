"""The JSON that scripts read: every key `decide --format json` and the API print for the
personas, against tests/snapshots/json_keys.json.

A key printed there may not disappear or change its place: users' scripts read it. A new key
is added to the snapshot on purpose (UPDATE_SNAPSHOT=1 pytest tests/test_contract.py), so
that the review of a change sees what the contract gained.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from decider.personas import PRESETS
from tests.factories import make_answers
from tests.test_tokens import _service_answers
from tests.test_workloads import company

SNAPSHOT = Path(__file__).resolve().parent / "snapshots" / "json_keys.json"

pytestmark = pytest.mark.django_db


def key_paths(value: Any, prefix: str = "") -> set[str]:
    """Every key's path in a JSON value: `costs.totals.onprem`, `contributions[].reason`."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            found.add(path)
            found |= key_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            found |= key_paths(item, f"{prefix}[]")
    return found


def _printed(client, tmp_path, capsys) -> dict[str, set[str]]:
    printed: dict[str, set[str]] = {"decide": set(), "api_create": set(), "api_view": set()}
    # The personas as they are, and one priced at the providers (its keys under `provider`).
    cases = [(persona, make_answers(persona)) for persona in PRESETS]
    cases.append(("providers", make_answers("startup", providers={})))
    cases.append(("workloads", company()))
    cases.append(("served", _service_answers(8, 50, 2.0)))  # priced per token (issue 36)
    for persona, answers in cases:
        path = tmp_path / f"{persona}.json"
        path.write_text(json.dumps(answers), encoding="utf-8")
        call_command("decide", str(path), "--format", "json", "--seed", "7")
        printed["decide"] |= key_paths(json.loads(capsys.readouterr().out))
        created = client.post(
            reverse("decider-api-assessments"),
            data=json.dumps({"name": persona, "answers": answers}),
            content_type="application/json",
        )
        assert created.status_code == 201, created.content
        printed["api_create"] |= key_paths(created.json())
        printed["api_view"] |= key_paths(client.get(created.json()["view_json_url"]).json())
    return printed


def test_every_key_scripts_read_today_is_still_printed(client, rules, tmp_path, capsys):
    printed = _printed(client, tmp_path, capsys)
    if os.environ.get("UPDATE_SNAPSHOT"):
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(
            json.dumps({name: sorted(keys) for name, keys in printed.items()}, indent=1) + "\n",
            encoding="utf-8",
        )
    recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for name, keys in printed.items():
        gone = sorted(set(recorded[name]) - keys)
        assert not gone, f"{name}: keys scripts read are no longer printed: {gone}"
        new = sorted(keys - set(recorded[name]))
        assert not new, (
            f"{name}: new keys, not in the snapshot: {new}. If they are meant, record them: "
            "UPDATE_SNAPSHOT=1 pytest tests/test_contract.py"
        )


def test_key_paths_name_nested_keys_and_list_items():
    value = {"a": {"b": 1}, "c": [{"d": 2}, {"e": 3}], "f": []}
    assert key_paths(value) == {"a", "a.b", "c", "c[].d", "c[].e", "f"}
