"""Logs never carry a link token: a link is the access, and logs travel further than the data."""

from __future__ import annotations

import logging
import re

# /a/<token>, /v/<token> (and their .json, /report/...): see TokenConverter in urls.py. A
# longer run of token characters is redacted whole, so no part of it survives.
_LINK = re.compile(r"/([av])/[A-Za-z0-9_-]{16,}")
# The compare page's ?a=<token>&a=<token> (view links), in a request line or a bare query string.
_COMPARE = re.compile(r"(^|[?&;\s])a=[A-Za-z0-9_-]{16,}")


def redact(text: str) -> str:
    return _COMPARE.sub(r"\1a=<token>", _LINK.sub(r"/\1/<token>", text))


class RedactLinks(logging.Filter):
    """Rewrites each record's message with link tokens replaced (Django logs request paths)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


class CacheUnreachable(logging.Filter):
    """django-redis logs every command it ignores (IGNORE_EXCEPTIONS) at ERROR, with a
    traceback. Redis away is a degraded cache, not an error: one warning line naming what
    failed, which neither floods the log nor reaches Sentry as an event."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and (error := record.exc_info[1]) is not None:
            cause = error.__cause__ or error
            record.msg = "cache unreachable, computing instead: %s: %s"
            record.args = (type(cause).__name__, cause)
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


class RedactingFormatter(logging.Formatter):
    """The whole formatted line redacted, traceback included: a filter only sees the message."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def _gunicorn_logger() -> type:
    from gunicorn.glogging import Logger

    class GunicornLogger(Logger):
        """gunicorn's logs with link tokens redacted (`--logger-class`)."""

        def setup(self, cfg):  # type: ignore[no-untyped-def]
            super().setup(cfg)
            # "Error handling request /a/<token>/..." and friends.
            self.error_log.addFilter(RedactLinks())

        def atoms(self, resp, req, environ, request_time):  # type: ignore[no-untyped-def]
            # Every atom, not only the request line, path and referer: a custom
            # --access-logformat may name the query string, a Location or any header.
            atoms = super().atoms(resp, req, environ, request_time)
            return {k: redact(v) if isinstance(v, str) else v for k, v in atoms.items()}

    return GunicornLogger


def __getattr__(name: str) -> type:
    # Built on first use, so importing this module (the logging filter) needs no gunicorn.
    if name == "GunicornLogger":
        return _gunicorn_logger()
    raise AttributeError(name)
