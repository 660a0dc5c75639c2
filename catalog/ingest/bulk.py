"""Bulk SQL for large imports: dropping and rebuilding indexes, executemany / COPY inserts,
batches with progress. No knowledge of cards: tables and rows in, rows written."""

from __future__ import annotations

import json
from collections.abc import Callable
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
    connection = session.connection()
    dialect = connection.dialect
    names = list(rows[0])
    json_positions = [
        i for i, n in enumerate(names) if n in {c.name for c in table.columns if isinstance(c.type, JSON)}
    ]
    quote = dialect.identifier_preparer.quote
    mark = "?" if dialect.paramstyle == "qmark" else "%s"
    statement = (
        f"INSERT INTO {quote(table.name)} ({', '.join(quote(n) for n in names)}) "
        f"VALUES ({', '.join(mark for _ in names)})"
    )
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
                    listed[i] = _to_json(listed[i])
            values = tuple(listed)
        data.append(values)
    if dialect.name == "postgresql":
        # COPY is PostgreSQL's bulk path: several times faster than executemany here.
        driver: Any = connection.connection.driver_connection
        columns = ", ".join(quote(n) for n in names)
        with driver.cursor() as cursor, cursor.copy(f"COPY {quote(table.name)} ({columns}) FROM STDIN") as copy:
            for values in data:
                copy.write_row(values)
        return
    connection.exec_driver_sql(statement, data)


def batched(
    progress: Progress | None, stage: str, run: Callable[[list[dict[str, Any]]], Any], rows: list[dict[str, Any]]
) -> None:
    """``run`` over ``rows`` in batches of :data:`BATCH`, reporting each to ``progress``."""
    for start in range(0, len(rows), BATCH):
        run(rows[start : start + BATCH])
        if progress:
            progress(stage, min(start + BATCH, len(rows)), len(rows))


_JSON = json.JSONEncoder(ensure_ascii=False)


def _to_json(value: Any) -> str:
    """JSON text of a column value; one shared encoder (json.dumps builds one per call)."""
    if not value:
        return "[]" if isinstance(value, list) else "{}"
    return _JSON.encode(value)


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
