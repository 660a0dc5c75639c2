"""Test helpers shared by several modules: table counts, and compiled SQL shared by the suite's
SQLite engines."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, text
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.util import LRUCache

from catalog.models import load_all


def table_counts(engine: Engine) -> dict[str, int]:
    """Row count of every table: the 'database unchanged' check of the bad-input tests."""
    with engine.connect() as connection:
        return {
            table.name: connection.execute(text(f'SELECT COUNT(*) FROM "{table.name}"')).scalar_one()
            for table in load_all().sorted_tables
        }


# Why the suite shares compiled SQL. SQLAlchemy keeps what it compiled per engine (and per mapper
# for the unit of work's INSERT and UPDATE), keyed by the dialect *object*. The suite makes new
# engines for every test (its own SQLite file, the app's engine, the ledger check), so each test
# compiled the statements the previous one had just compiled: ~10 % of the CPU of the tests
# without a browser. Two SQLite dialects with the same settings compile every statement alike, so
# in the test process they compare equal, and every SQLite connection uses one compiled cache
# (the ``compiled_cache`` execution option). The product is untouched: one process, one engine.
# Only SQLite: a PostgreSQL dialect's compiling depends on the server it met (``initialize``).
_COMPILED: LRUCache[Any, Any] = LRUCache(10_000)
_shared = False


def _settings(dialect: Any) -> tuple[Any, ...]:
    """What a SQLite dialect's compiled SQL depends on beyond its class (the SQLite library's
    version is the process's own, the same for every engine)."""
    return (
        type(dialect),
        dialect.paramstyle,
        dialect.positional,
        dialect.native_datetime,
        dialect._json_serializer,
        dialect._json_deserializer,
        dialect.label_length,
        dialect.use_insertmanyvalues,
        dialect.insertmanyvalues_page_size,
    )


def share_compiled_sql() -> None:
    """Every SQLite engine of this process reuses the statements any of them compiled (above)."""
    global _shared
    if _shared:
        return
    _shared = True

    def same_settings(self: Any, other: object) -> bool:
        return isinstance(other, SQLiteDialect_pysqlite) and _settings(self) == _settings(other)

    SQLiteDialect_pysqlite.__eq__ = same_settings
    SQLiteDialect_pysqlite.__hash__ = lambda self: hash(_settings(self))

    @event.listens_for(Engine, "engine_connect")
    def _one_cache(connection: Connection) -> None:
        if isinstance(connection.dialect, SQLiteDialect_pysqlite):
            connection.execution_options(compiled_cache=_COMPILED)
