"""Logs never carry a link token: a link is the access, and logs travel further than the data."""

from __future__ import annotations

import logging
import re

# /a/<token>, /v/<token> (and their .json, /report/...): see TokenConverter in urls.py.
_LINK = re.compile(r"/([av])/[A-Za-z0-9_-]{16,64}")


def redact(text: str) -> str:
    return _LINK.sub(r"/\1/<token>", text)


class RedactLinks(logging.Filter):
    """Rewrites each record's message with link tokens replaced (Django logs request paths)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def _gunicorn_logger() -> type:
    from gunicorn.glogging import Logger

    class GunicornLogger(Logger):
        """gunicorn's access log with link tokens redacted (`--logger-class`)."""

        def atoms(self, resp, req, environ, request_time):  # type: ignore[no-untyped-def]
            atoms = super().atoms(resp, req, environ, request_time)
            for key in ("r", "U", "f"):  # request line, path, referer
                if isinstance(atoms.get(key), str):
                    atoms[key] = redact(atoms[key])
            return atoms

    return GunicornLogger


def __getattr__(name: str) -> type:
    # Built on first use, so importing this module (the logging filter) needs no gunicorn.
    if name == "GunicornLogger":
        return _gunicorn_logger()
    raise AttributeError(name)
