"""Cash-flow lines: a one-off amount in a month, or an amount per month over a span.

The cost model writes every formula once as such lines. Searches only add
them up (`lines_total`); the monthly table spreads the very same lines over
the months (`lines_monthly`), and present value and yearly sums are read off
that table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


class Line(NamedTuple):
    name: str
    amount: float  # USD, once or per month
    start: float  # per-month lines run over months (start, end]; may be fractional
    end: float  # one-off lines are paid in month `end`
    monthly: bool


def once(name: str, amount: float, month: float = 0) -> Line:
    return Line(name, amount, month, month, False)


def per_month(name: str, amount: float, start: float, end: float) -> Line:
    return Line(name, amount, start, end, True)


def lines_total(lines: list[Line]) -> float:
    return sum(
        line.amount * max(0.0, line.end - line.start) if line.monthly else line.amount
        for line in lines
    )


def lines_monthly(
    lines: list[Line], months: int, *, path: Mapping[str, np.ndarray] | None = None
) -> np.ndarray:
    """Amounts per line (rows) and month 0..months (columns). `path`: by line name, a
    factor per month on today's amount (a cloud price that falls over the horizon)."""
    month = np.arange(months + 1, dtype=float)
    amount = np.array([line.amount for line in lines], dtype=float)[:, None]
    start = np.array([line.start for line in lines], dtype=float)[:, None]
    end = np.array([line.end for line in lines], dtype=float)[:, None]
    monthly = np.array([line.monthly for line in lines], dtype=bool)[:, None]
    # Month m covers the time (m-1, m]: its share of a line is the overlap.
    share = np.clip(np.minimum(end, month) - np.maximum(start, month - 1), 0.0, None)
    # A line paid once falls in the month its end does (the odds spread thousands of lines
    # at once: the test and the price path only where they apply).
    once = ~monthly[:, 0]
    if once.any():
        share[once] = np.isclose(month, np.ceil(end[once]))
    amounts: np.ndarray = amount * share
    if path and (rows := [row for row, line in enumerate(lines) if line.name in path]):
        amounts[rows] *= np.array([path[lines[row].name] for row in rows])
    return amounts


def cashflow_frame(
    lines_by_option: Mapping[str, list[Line]],
    months: int,
    *,
    path: Mapping[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """Monthly cash flow (rows: months 0..H) per option and line (MultiIndex columns);
    lines of one name (a cost that changes when the hardware arrives) are one column."""
    rows: dict[tuple[str, str], np.ndarray] = {}
    for option, lines in lines_by_option.items():
        for line, amounts in zip(lines, lines_monthly(lines, months, path=path), strict=True):
            key = (option, line.name)
            rows[key] = rows[key] + amounts if key in rows else amounts
    return _frame(np.vstack(list(rows.values())), list(rows), months)


def amounts_frame(amounts_by_option: Mapping[str, Mapping[str, np.ndarray]]) -> pd.DataFrame:
    """The same table from amounts already spread over months 0..H, by option and line
    (engine/stages.py's plans over a growing future)."""
    columns = [(option, line) for option, lines in amounts_by_option.items() for line in lines]
    rows = np.vstack([amounts_by_option[option][line] for option, line in columns])
    return _frame(rows, columns, rows.shape[1] - 1)


def _frame(rows: np.ndarray, columns: list[tuple[str, str]], months: int) -> pd.DataFrame:
    # pandas (0.2 s to import) loads with the first table, not with the engine:
    # commands and processes that never price an assessment do not pay for it.
    import pandas as pd

    return pd.DataFrame(
        rows.T,
        index=pd.RangeIndex(months + 1, name="month"),
        columns=pd.MultiIndex.from_tuples(columns, names=["option", "line"]),
    )


def by_option(frame: pd.DataFrame) -> pd.DataFrame:
    """Monthly totals per option (columns)."""
    return frame.T.groupby(level="option", sort=False).sum().T


def present_values(monthly: pd.DataFrame, rate: float) -> dict[str, float]:
    """Each option's cash flow discounted to month 0 at `rate` a year."""
    months = monthly.index.to_numpy(dtype=float)
    factor = (1.0 + rate) ** (-months / 12)
    return {str(option): float((monthly[option].to_numpy() * factor).sum()) for option in monthly}


def yearly(monthly: pd.DataFrame) -> dict[str, list[float]]:
    """Each option's spending per year: year k holds months 12(k-1)+1 .. 12k (month 0 in year 1)."""
    sums = yearly_sums(monthly.to_numpy(dtype=float), monthly.index.to_numpy(dtype=float))
    return {str(option): [float(v) for v in sums[:, i]] for i, option in enumerate(monthly)}


def yearly_sums(values: np.ndarray, months: np.ndarray | None = None) -> np.ndarray:
    """The rows of `values` (months 0..H, or `months`) summed by year, as `yearly` counts
    them: year k holds months 12(k-1)+1 .. 12k, month 0 in year 1."""
    month = np.arange(len(values), dtype=float) if months is None else months
    years = np.maximum(np.ceil(month / 12), 1).astype(int)
    # The months of a year are consecutive rows: sum each run (pandas' groupby on an array
    # key formats the whole array into an error message it then discards).
    starts = np.flatnonzero(np.r_[True, years[1:] != years[:-1]])
    sums: np.ndarray = np.add.reduceat(values, starts, axis=0)
    return sums
