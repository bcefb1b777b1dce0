"""Two people editing one assessment: a three-way merge of answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def answers_merge(
    *, base: Mapping[str, Any], mine: Mapping[str, Any], stored: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Three-way merge of one person's answers into what is saved now.

    `base` is what the person saw when the form was drawn, `mine` what they
    submit, `stored` what is saved now (someone else may have saved since).
    Returns (the answers to write, the conflicts as {key: the stored answer}):
    answers only this person changed are written, answers only the other
    person changed are kept, and an answer both changed differently is a
    conflict and is not written.
    """
    changed = {key: value for key, value in mine.items() if base.get(key) != value}
    conflicts = {
        key: stored.get(key)
        for key, value in changed.items()
        if stored.get(key) != base.get(key) and stored.get(key) != value
    }
    return {k: v for k, v in changed.items() if k not in conflicts}, conflicts
