"""Small portable SQL pieces the search compiler needs."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ARRAY, any_, bindparam
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement, FunctionElement
from sqlalchemy.types import Boolean, Integer, String


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


class contains_long(FunctionElement[bool]):
    """``haystack`` contains ``needle`` (3 characters or more; ``pattern`` is ``%needle%``
    with LIKE's own characters escaped): SQLite ``instr(…) > 0``, PostgreSQL ``LIKE``, which
    its trigram indexes serve (``strpos`` is opaque to them). A separate construct rather than
    a choice made at compile time, so a cached statement never changes form with the needle.
    """

    type = Boolean()
    inherit_cache = True
    name = "contains_long"


@compiles(contains_long)
def _contains_default(element: Any, compiler: Any, **kw: Any) -> str:
    haystack, needle, _pattern = list(element.clauses)
    return f"instr({compiler.process(haystack, **kw)}, {compiler.process(needle, **kw)}) > 0"


@compiles(contains_long, "postgresql")
def _contains_postgres(element: Any, compiler: Any, **kw: Any) -> str:
    haystack, _needle, pattern = list(element.clauses)
    return f"{compiler.process(haystack, **kw)} LIKE {compiler.process(pattern, **kw)} ESCAPE '\\'"


class contains_short(FunctionElement[bool]):
    """``haystack`` contains ``needle`` (1 or 2 characters), ``haystack`` being a column with a
    character index on PostgreSQL (``catalog.models.character_index``): there the index finds
    the rows holding every character of the needle (``string_to_array(…, NULL) @> …``) and
    ``strpos`` keeps those holding them side by side; elsewhere ``instr(…) > 0``."""

    type = Boolean()
    inherit_cache = True
    name = "contains_short"


@compiles(contains_short)
def _contains_short_default(element: Any, compiler: Any, **kw: Any) -> str:
    haystack, needle = list(element.clauses)
    return f"instr({compiler.process(haystack, **kw)}, {compiler.process(needle, **kw)}) > 0"


@compiles(contains_short, "postgresql")
def _contains_short_postgres(element: Any, compiler: Any, **kw: Any) -> str:
    haystack, needle = (compiler.process(clause, **kw) for clause in element.clauses)
    characters = f"string_to_array({haystack}, NULL) @> string_to_array({needle}, NULL)"
    return f"({characters} AND strpos({haystack}, {needle}) > 0)"


class byte_order(FunctionElement[str]):
    """A text sort key compared byte by byte: ``COLLATE "C"`` on PostgreSQL, as-is on SQLite
    (whose default collation, BINARY, already is). The database's own collation (C.UTF-8,
    en_US…) compares through the C library's strcoll, and need not order like SQLite at all.
    Every match of a query takes part in the top-N sort of its page: the 20 statements of the
    search benchmark's mix used 6 % less PostgreSQL CPU with byte order (501 → 471 ms)."""

    type = String()
    inherit_cache = True
    name = "byte_order"


@compiles(byte_order)
def _byte_order_default(element: Any, compiler: Any, **kw: Any) -> str:
    (value,) = list(element.clauses)
    return str(compiler.process(value, **kw))


@compiles(byte_order, "postgresql")
def _byte_order_postgres(element: Any, compiler: Any, **kw: Any) -> str:
    (value,) = list(element.clauses)
    return f'{compiler.process(value, **kw)} COLLATE "C"'


TRIGRAM = 3  # the shortest needle a trigram index can serve


def like_escaped(needle: str) -> str:
    """``needle`` with LIKE's ``%``, ``_`` and the escape character ``\\`` made literal."""
    return needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def contains(column: Any, needle: str, *, character_index: bool = False) -> ColumnElement[bool]:
    """``column`` contains ``needle``. ``character_index``: the column has one on PostgreSQL
    (only ``card_search.keys``), which serves needles too short for a trigram."""
    if len(needle) >= TRIGRAM:
        return contains_long(column, needle, f"%{like_escaped(needle)}%")
    if character_index:
        return contains_short(column, needle)
    return position_of(column, needle) > 0


def starts_with(column: Any, needle: str) -> ColumnElement[bool]:
    return position_of(column, needle) == 1


def among(column: Any, ids: list[int], *, dialect: str) -> ColumnElement[bool]:
    """``column`` is one of ``ids`` (a page's card or printing ids): on PostgreSQL ``= ANY`` of
    one array parameter, elsewhere ``IN``. Sixty ``IN`` parameters cost PostgreSQL's driver a
    rewrite of the statement's placeholders and the server the planning of a 60-item list on
    every page (measured with the one-statement hits: 7.8 → 6.4 ms of client and server CPU)."""
    if dialect == "postgresql":
        return column == any_(bindparam(None, ids, type_=ARRAY(Integer())))
    return column.in_(ids)
