"""Small portable SQL pieces the search compiler needs."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement, FunctionElement
from sqlalchemy.types import Integer


class position_of(FunctionElement[int]):
    """1-based position of a substring, 0 when absent: SQLite ``instr``, PostgreSQL ``strpos``.

    Plain ``LIKE '%…%'`` would need escaping and is case-folding work we do not want (the
    keys are folded at import); both functions are exact substring tests on any script,
    including 1- and 2-character Chinese terms that trigram indexes cannot serve.
    """

    type = Integer()
    inherit_cache = True
    name = "position_of"


@compiles(position_of)
def _position_default(element: Any, compiler: Any, **kw: Any) -> str:
    haystack, needle = list(element.clauses)
    return f"instr({compiler.process(haystack, **kw)}, {compiler.process(needle, **kw)})"


@compiles(position_of, "postgresql")
def _position_postgres(element: Any, compiler: Any, **kw: Any) -> str:
    haystack, needle = list(element.clauses)
    return f"strpos({compiler.process(haystack, **kw)}, {compiler.process(needle, **kw)})"


def contains(column: Any, needle: str) -> ColumnElement[bool]:
    return position_of(column, needle) > 0


def starts_with(column: Any, needle: str) -> ColumnElement[bool]:
    return position_of(column, needle) == 1
