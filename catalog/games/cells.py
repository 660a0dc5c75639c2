"""A card CSV's cells read one at a time: integers with bounds, ``|`` lists, and every bad cell
of a row collected (:class:`FieldError`, :class:`RowErrors`) so that an import reports them all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from catalog.errors import Message


@dataclass(frozen=True)
class FieldError(Exception):
    """One bad cell: the CSV column and what is wrong with it."""

    column: str
    message: Message


class RowErrors(Exception):
    """Every bad cell of one row."""

    def __init__(self, errors: list[FieldError]):
        super().__init__("; ".join(f"{e.column}: {e.message.zh}" for e in errors))
        self.errors = errors


def collect(errors: list[FieldError], fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call ``fn``; on a :class:`FieldError` record it and return ``None``."""
    try:
        return fn(*args, **kwargs)
    except FieldError as error:
        errors.append(error)
        return None


def bad(column: str, zh: str, en: str) -> FieldError:
    return FieldError(column, Message(zh, en))


def parse_int(row: Mapping[str, str], column: str, *, low: int | None = None, high: int | None = None) -> int | None:
    """An optional integer cell, with bounds."""
    raw = (row.get(column) or "").strip()
    if raw == "":
        return None
    if raw.isascii() and raw.isdigit():
        value = int(raw)
        if (low is None or value >= low) and (high is None or value <= high):
            return value
    raw = raw.translate(str.maketrans("０１２３４５６７８９－", "0123456789-"))
    if not re.fullmatch(r"-?\d+", raw):
        raise bad(column, f"「{raw}」不是整数", f"'{raw}' is not a whole number")
    value = int(raw)
    if low is not None and value < low:
        raise bad(column, f"{value} 小于下限 {low}", f"{value} is below the minimum {low}")
    if high is not None and value > high:
        raise bad(column, f"{value} 大于上限 {high}", f"{value} is above the maximum {high}")
    return value


def parse_list(row: Mapping[str, str], column: str) -> list[str]:
    """A ``|``-separated cell into its trimmed, non-empty parts, order kept."""
    raw = (row.get(column) or "").strip()
    if not raw:
        return []
    return [part.strip() for part in re.split(r"[|｜]", raw) if part.strip()]


def written(value: int | None) -> str:
    """A whole number as a CSV cell (empty for none): the inverse of :func:`parse_int`."""
    return "" if value is None else str(value)


def cell(row: Mapping[str, str], column: str) -> str:
    return (row.get(column) or "").strip()
