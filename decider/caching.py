"""What only a re-score or a publish changes, kept in the cache instead of rebuilt per GET.

Two kinds of entries, both in the `scored` cache (Redis in production, shared by every
worker; local memory otherwise):

- **Per scored result** (`scored_key`). A saved result does not change until it is scored
  again, so its costs, chart figures, sensitivity and the page fragments drawn from them are
  kept under the assessment, its revision, when it was scored and when it was last saved
  (a rename shows on the page too), and the code that drew them. A what-if trial (never
  saved) or a result older than its answers has no key: it is computed every time.
- **Per basis generation** (`basis_cached`). The current rule set and rule books change
  only when a rule set, criterion, option or constraint is saved or deleted (publishing
  included); every such write draws a new generation, and entries of older generations are
  never read again. Price sets are not kept: prices are changed in place, with no version
  to key them by, and reading one is a single query.

The cache only saves work: when Redis is away everything is computed as before, with a
line in the log, never an error on the page (django-redis's IGNORE_EXCEPTIONS, in
config/settings.py).
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.contrib import messages
from django.core.cache import caches
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils import translation

T = TypeVar("T")

CACHE = "scored"
SCORED_TIMEOUT_S = 24 * 3600
GENERATION = "basis:generation"
# Bounds how long a process without a shared cache (local memory, several workers) can show
# a rule set another process has replaced.
BASIS_TIMEOUT_S = 300


# What a kept page is drawn from: the code, the templates, the translations and the static
# files whose hashed names it links (a deploy that changes only CSS or JS still starts afresh).
CODE = ("config/**/*.py", "decider/**/*.py", "templates/**/*.html", "locale/**/*.mo", "static/**/*")


@functools.cache
def code_version() -> str:
    """A digest of the code, templates and static files that draw a page: a deploy starts
    afresh. Read once per process (plotly.js included, some 10 ms)."""
    root = settings.BASE_DIR
    digest = hashlib.sha256()
    for pattern in CODE:
        for path in sorted(root.glob(pattern)):
            if path.is_file():
                digest.update(path.relative_to(root).as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def scored_key(assessment: Any, *variant: str) -> str | None:
    """The key of what a saved result shows in `variant` (language, currency...), or None
    when there is nothing saved to key it by (a trial, or answers changed since scoring)."""
    if assessment.pk is None or assessment.scored_at is None or assessment.needs_scoring():
        return None
    parts = [code_version(), assessment.pk, assessment.revision]
    parts += [assessment.scored_at.isoformat(), assessment.updated_at.isoformat(), *variant]
    return "result:" + ":".join(str(part) for part in parts)


def keep(key: str | None, value: Any) -> None:
    """Keep `value` under `key` as `scored` would have computed it (nothing without a key)."""
    if key is not None and value is not None:
        caches[CACHE].set(key, value, SCORED_TIMEOUT_S)


def scored(key: str | None, compute: Callable[[], T]) -> T:
    """`compute()`, kept under `key` once per scored result (computed every time without one)."""
    if key is None:
        return compute()
    cache = caches[CACHE]
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, SCORED_TIMEOUT_S)
    return value


class Kept:
    """The page fragments drawn from one scored result (`{% kept %}` in the templates),
    read in one cache get per page; a fragment drawn anew is added and written back.
    Without a key (a what-if trial) nothing is read or kept."""

    def __init__(self, key: str | None) -> None:
        self.key = key
        self.fragments: dict[str, str] = {}
        if key is not None:
            self.fragments = caches[CACHE].get(f"{key}:fragments") or {}

    def get(self, name: str) -> str | None:
        return self.fragments.get(name)

    def put(self, name: str, html: str) -> None:
        if self.key is None:
            return
        self.fragments[name] = html
        caches[CACHE].set(f"{self.key}:fragments", self.fragments, SCORED_TIMEOUT_S)


# --- rule books and price sets -------------------------------------------------------


def basis_generation() -> str:
    cache = caches[CACHE]
    generation = cache.get(GENERATION)
    if generation is None:
        cache.add(GENERATION, secrets.token_hex(8), timeout=None)
        generation = cache.get(GENERATION) or "unkept"
    return generation


def basis_cached(parts: tuple[Any, ...], compute: Callable[[], T]) -> T:
    """`compute()`, kept until the next rule or price write (or BASIS_TIMEOUT_S).

    Read fresh, and not kept, inside a transaction that has work waiting for its commit
    (a rule or price written, say): what it reads may yet be rolled back.
    """
    if connection.run_on_commit:
        return compute()
    cache = caches[CACHE]
    key = "basis:" + ":".join(str(part) for part in (basis_generation(), *parts))
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, BASIS_TIMEOUT_S)
    return value


def basis_changed(**_signal: Any) -> None:
    """A rule or a price was written: a new generation now, and again once it commits (a
    request in between may have kept what it read before the write under the new one)."""

    def renew() -> None:
        caches[CACHE].set(GENERATION, secrets.token_hex(8), timeout=None)

    renew()
    transaction.on_commit(renew)


# --- whole pages ---------------------------------------------------------------------

HOLE = "[kept-page-hole-{}]"


def kept_page(
    request: HttpRequest,
    parts: tuple[Any, ...] | None,
    draw: Callable[[dict[str, Any]], HttpResponse],
    *,
    links: Iterable[str] = (),
) -> HttpResponse:
    """The page `draw(context)` renders, kept under `parts`: everything it shows besides
    the request's path, language and code (the key adds those; the query string is not
    read: what it changes on the page must be in `parts`). `None`: drawn every time.

    What must never sit in the cache is kept as holes, filled in per request: the CSRF token
    (`draw` gets the context entry with the one it shows; each reader gets a token of its
    own) and the link tokens the page shows (`links`, which the caller knows without drawing
    the page: the database keeps no working link, and neither does the cache). A request with
    messages waiting to be shown draws the page, and only a 200 is kept.
    """
    if parts is None or request.method != "GET" or len(messages.get_messages(request)):
        return draw({})
    token = get_token(request)
    filled = {HOLE.format(n): value for n, value in enumerate([token, *links]) if value}
    cache = caches[CACHE]
    key = _page_key(request, parts)
    if (html := cache.get(key)) is not None:
        for hole, value in filled.items():
            html = html.replace(hole, value)
        return HttpResponse(html)
    response = draw({"csrf_token": token})
    if response.status_code == 200 and not response.streaming:
        html = response.content.decode()
        for hole, value in filled.items():
            html = html.replace(value, hole)
        cache.set(key, html, SCORED_TIMEOUT_S)
    return response


def _page_key(request: HttpRequest, parts: tuple[Any, ...]) -> str:
    """A digest, so that no link token is written into a key.

    The page is keyed on what it shows (`parts`: the assessment, its version, the currency,
    the rule set and prices...), its path and language, never on the raw query string: what
    a query asks that changes the page (`?currency=`, `?lang=`, `?paper=`) is in `parts` or
    the language, and any other parameter is ignored, so `?junk=1`, `?junk=2`... add no
    entry (issue 49: each once kept a 115 KB page for a day)."""
    address = (request.scheme, request.get_host(), request.path)
    htmx = request.headers.get("HX-Request") == "true"
    whole = (code_version(), translation.get_language(), address, htmx, *parts)
    return "page:" + hashlib.sha256(repr(whole).encode()).hexdigest()


def digest(*parts: Any) -> str:
    """A short digest of what a kept page shows (rows of figures, say)."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]
