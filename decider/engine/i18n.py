"""Translation without Django: the app installs its translator at start-up.

Module-level texts are marked with `gettext_noop` (so `makemessages` finds
them) and translated where they are shown. Messages built at run time go
through `gettext`, which is the identity until `install` connects Django's.
"""

from __future__ import annotations

from collections.abc import Callable

_translate: Callable[[str], str] = str


def gettext_noop(message: str) -> str:
    return message


def gettext(message: str) -> str:
    return _translate(message)


def install(translate: Callable[[str], str]) -> None:
    global _translate
    _translate = translate
