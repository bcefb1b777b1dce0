"""How many examples a property test draws, by the Hypothesis profile the run loaded.

`make test` loads `ci` (the counts as written), `make test-fast` loads `dev` (a fifth of
them): the quick loop still draws each property, CI draws it fully. `explore` draws the full
counts afresh on every run. The profiles are registered in tests/conftest.py, which pytest
imports before any test module, so the count is known when a decorator asks for it.
"""

from hypothesis import settings

FULL = 100  # max_examples of the `ci` and `explore` profiles: the counts as written


def examples(full: int) -> int:
    """`full` under `ci`, scaled down with the profile under `dev`; never fewer than 5."""
    return max(5, full * settings.default.max_examples // FULL)
