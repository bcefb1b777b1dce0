"""Text in both interface languages, for data that carries its own translation."""

from __future__ import annotations

import json
from dataclasses import dataclass


def is_chinese(language: str | None) -> bool:
    """Whether a language code ("zh-hans", "zh-CN", None...) reads Chinese: the one test of
    it, wherever a page, a chart or a figure picks its words."""
    return (language or "").startswith("zh")


@dataclass(frozen=True)
class Text:
    """A string in both interface languages."""

    en: str
    zh: str

    def get(self, language: str) -> str:
        return self.zh if is_chinese(language) else self.en

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
