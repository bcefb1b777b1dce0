"""Text in both interface languages, for data that carries its own translation."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    """A string in both interface languages."""

    en: str
    zh: str

    def get(self, language: str) -> str:
        return self.zh if language.startswith("zh") else self.en

    def as_dict(self) -> dict[str, str]:
        return {"en": self.en, "zh": self.zh}

    @classmethod
    def from_dict(cls, data: dict[str, str]) -> Text:
        return cls(en=data["en"], zh=data["zh"])


def json_repr(value: object) -> str:
    """A value as it was written in JSON, for messages about it."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def number_text(number: float | None) -> str:
    """1.0 -> "1", 0.5 -> "0.5"; for bounds in messages."""
    if number is None:
        return ""
    return str(int(number)) if float(number).is_integer() else str(number)
