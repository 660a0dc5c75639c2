"""Bulk SQL for large imports: dropping and rebuilding indexes, executemany / COPY inserts,
batches with progress. No knowledge of cards: tables and rows in, rows written."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, Index
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.models import Card, CardKeyword, CardSearch, CardText, CardTrait, Printing, table_of

BATCH = 2000
Progress = Callable[[str, int, int], None]


def drop_secondary_indexes(session: Session) -> list[Index]:
    """Drop the non-unique indexes of the tables a large import fills; the caller
    recreates them afterwards. Building an index once over sorted keys is much cheaper
    than updating it row by row (measured: the SQLite inserts of 100,000 printings took
    about half the import time with the indexes in place). DDL is transactional in
    SQLite and PostgreSQL, so a failed import rolls this back as well."""
    dropped: list[Index] = []
    connection = session.connection()
    for model in (Card, Printing, CardTrait, CardKeyword, CardSearch):
        for index in sorted(table_of(model).indexes, key=lambda i: i.name or ""):
            if not index.unique:
                index.drop(connection)
                dropped.append(index)
    return dropped


def bulk_insert(session: Session, table: Any, rows: list[dict[str, Any]]) -> None:
    """INSERT many rows through the driver's executemany.

    Measured on 100,000 printings: SQLAlchemy's per-row parameter processing (JSON
    bind processors, compiled-parameter construction) cost more than the inserts
    themselves, so JSON is serialised here once and the rows go to the DBAPI directly.
    The statement is still built from the table's own columns and quoted by the dialect.
    """
    if not rows:
        return
    names = list(rows[0])
    json_positions = [
        i for i, n in enumerate(names) if n in {c.name for c in table.columns if isinstance(c.type, JSON)}
    ]
    getter = itemgetter(*names)
    data: list[tuple[Any, ...]] = []
    for row in rows:
        values = getter(row)
        if not isinstance(values, tuple):
            values = (values,)
        if json_positions:
            listed = list(values)
            for i in json_positions:
                if listed[i] is not None:
                    listed[i] = to_json(listed[i])
            values = tuple(listed)
        data.append(values)
    insert_tuples(session, table, names, data)


def insert_tuples(session: Session, table: Any, names: Sequence[str], data: list[tuple[Any, ...]]) -> None:
    """INSERT rows given as tuples of the columns ``names`` (JSON columns already as text), as
    :func:`bulk_insert` does: COPY on PostgreSQL, the driver's executemany elsewhere."""
    if not data:
        return
    connection = session.connection()
    dialect = connection.dialect
    quote = dialect.identifier_preparer.quote
    mark = "?" if dialect.paramstyle == "qmark" else "%s"
    statement = (
        f"INSERT INTO {quote(table.name)} ({', '.join(quote(n) for n in names)}) "
        f"VALUES ({', '.join(mark for _ in names)})"
    )
    if dialect.name == "postgresql":
        # COPY is PostgreSQL's bulk path: several times faster than executemany here.
        driver: Any = connection.connection.driver_connection
        columns = ", ".join(quote(n) for n in names)
        with driver.cursor() as cursor, cursor.copy(f"COPY {quote(table.name)} ({columns}) FROM STDIN") as copy:
            for values in data:
                copy.write_row(values)
        return
    connection.exec_driver_sql(statement, data)


def select_in(
    session: Session, table: Any, columns: tuple[str, ...], where: dict[str, Any], column: str, values: list[Any]
) -> list[tuple[Any, ...]]:
    """Rows of ``columns`` of ``table`` whose ``column`` is one of ``values`` (and whose columns in
    ``where`` equal its values), in one statement whose text does not depend on ``values``.

    An ``IN`` list of bound parameters is expanded and compiled by SQLAlchemy each time (and on
    PostgreSQL converted by the driver and planned by the server with 2,000 parameters): the
    import's lookup of each chunk's 2,000 card names cost a re-import of 100,000 printings ~2 s
    on PostgreSQL that way. Here ``values`` is one parameter: an array on PostgreSQL
    (``= ANY``), a JSON array read by ``json_each`` on SQLite; both use the column's index.
    """
    if not values:
        return []
    connection = session.connection()
    dialect = connection.dialect
    quote = dialect.identifier_preparer.quote
    mark = "?" if dialect.paramstyle == "qmark" else "%s"
    selected = ", ".join(quote(c) for c in columns)
    conditions = [f"{quote(name)} = {mark}" for name in where]
    if dialect.name == "postgresql":
        conditions.append(f"{quote(column)} = ANY({mark})")
        listed: Any = list(values)
    else:
        conditions.append(f"{quote(column)} IN (SELECT value FROM json_each({mark}))")
        listed = _JSON.encode(list(values))
    statement = f"SELECT {selected} FROM {quote(table.name)} WHERE {' AND '.join(conditions)}"
    driver: Any = connection.connection.driver_connection
    if dialect.name == "postgresql":
        # not prepared: a plan the server kept from while the table was small (a generic plan,
        # made after a few runs of the same text) would stay a sequential scan as it grows
        return list(driver.execute(statement, (*where.values(), listed), prepare=False).fetchall())
    return list(driver.execute(statement, (*where.values(), listed)).fetchall())


def reserve_ids(session: Session, table: Any, count: int) -> list[int]:
    """The ids the next ``count`` rows inserted into ``table`` without an id would get, reserved
    for the caller to insert them with (so that it need not read them back by another key).

    PostgreSQL: ``count`` values of the id column's sequence, in order (what COPY would have
    drawn). SQLite: the rowids after the largest, as SQLite assigns them to an ``INTEGER PRIMARY
    KEY`` without AUTOINCREMENT; the importer holds the write lock by then (it wrote the game's
    row), so no other writer can take them.
    """
    if count <= 0:
        return []
    connection = session.connection()
    quote = connection.dialect.identifier_preparer.quote
    if connection.dialect.name == "postgresql":
        found = connection.exec_driver_sql(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            (quote(table.name), count),
        )
        return sorted(int(value) for (value,) in found)
    (largest,) = connection.exec_driver_sql(f"SELECT max(id) FROM {quote(table.name)}").one()
    start = int(largest or 0) + 1
    return list(range(start, start + count))


def batched(
    progress: Progress | None, stage: str, run: Callable[[list[dict[str, Any]]], Any], rows: list[dict[str, Any]]
) -> None:
    """``run`` over ``rows`` in batches of :data:`BATCH`, reporting each to ``progress``."""
    for start in range(0, len(rows), BATCH):
        run(rows[start : start + BATCH])
        if progress:
            progress(stage, min(start + BATCH, len(rows)), len(rows))


_JSON = json.JSONEncoder(ensure_ascii=False)
# The C encoder JSONEncoder.encode builds on every call, built once with the same settings
# (separators, non-ASCII kept, NaN allowed; no cycle check: the values are parsed cells).
# Per call, building it cost more than encoding a card's short lists (~0.3 s of an import of
# 100,000 printings).
_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)
_ENCODE: Any = (
    _C_ENCODER(None, _JSON.default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True)
    if _C_ENCODER is not None
    else None
)


def to_json(value: Any) -> str:
    """JSON text of a column value, as ``json.dumps(value, ensure_ascii=False)`` writes it."""
    if not value:
        return "[]" if isinstance(value, list) else "{}"
    if _ENCODE is None:
        return _JSON.encode(value)
    return "".join(_ENCODE(value, 0))


# The tables an import fills, which search scans.
CATALOGUE_MODELS = (Card, Printing, CardTrait, CardKeyword, CardSearch, CardText)


def vacuum_after_import(engine: Engine) -> None:
    """On PostgreSQL, ``VACUUM`` the catalogue tables once an import has committed; nothing on
    SQLite. It marks their pages all-visible, so a scan skips the visibility test of each row and
    sets no hint bits in the first searches after an import. Autovacuum would get there later
    (or never, where it is off): the search benchmark's mix ran 1.14 → 1.01× SQLite's wall time
    with it, taking turns on the same catalogue. It cannot run in a transaction: the caller
    commits the import first (a use case never commits; the CLI does)."""
    if engine.dialect.name != "postgresql":
        return
    names = ", ".join(engine.dialect.identifier_preparer.quote(table_of(m).name) for m in CATALOGUE_MODELS)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f"VACUUM {names}")
