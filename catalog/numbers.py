"""One strict integer parser for every number a person types.

Form field names and values, query arguments, JSON values and CLI options all come through
:func:`parse_int`: ASCII digits only (``int()`` takes ``"1_0"``, ``"²"`` fails, ``"１"`` passes:
all three are refused here), an optional leading ``-`` where the range allows it, and a value
bounded by the column it is stored in (PostgreSQL's ``integer`` by default, 2³¹−1), so no
number reaches the database that the database would refuse with a 500.
"""

from __future__ import annotations

import re
from typing import Any

from catalog.errors import LunzangError, Message

INT32 = 2**31 - 1  # an ``Integer`` column (PostgreSQL ``integer``)
INT64 = 2**63 - 1  # a ``BigInteger`` column (seeds)

_DIGITS = re.compile(r"-?[0-9]+")  # re's [0-9] is ASCII whatever the flags: no ², no １


class BadNumber(LunzangError):
    """A value that is not a whole number within its field's range."""

    code = "bad_number"
    status = 400

    def __init__(self, message: Message, field: str) -> None:
        super().__init__(message)
        self.field = field

    def extra_json(self) -> dict[str, Any]:
        return {"field": self.field}


def parse_int(raw: Any, *, field: str, low: int = 0, high: int = INT32) -> int:
    """``raw`` (text, or an int from JSON) as an int in ``low..high``, else :class:`BadNumber`.

    Text: surrounding whitespace is ignored; the rest must be ASCII digits with at most a
    leading ``-``. A bool is not a number. The length is checked before converting, so a
    million-digit value costs nothing.
    """
    if isinstance(raw, bool) or not isinstance(raw, (int, str)):
        raise _bad(field, low, high)
    if isinstance(raw, str):
        text = raw.strip()
        digits = text.removeprefix("-").lstrip("0")
        if not _DIGITS.fullmatch(text) or len(digits) > max(len(str(abs(low))), len(str(abs(high)))):
            raise _bad(field, low, high)
        value = -int(digits or "0") if text.startswith("-") else int(digits or "0")
    else:
        value = raw
    if not low <= value <= high:
        raise _bad(field, low, high)
    return value


def parse_optional_int(raw: Any, *, field: str, low: int = 0, high: int = INT32) -> int | None:
    """:func:`parse_int`, with ``None`` or blank text meaning ``None``."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    return parse_int(raw, field=field, low=low, high=high)


def _bad(field: str, low: int, high: int) -> BadNumber:
    return BadNumber(
        Message(
            f"「{field}」应为整数（{low} 到 {high}，只用数字 0–9）",
            f"'{field}' must be a whole number ({low} to {high}, digits 0-9 only)",
        ),
        field,
    )
