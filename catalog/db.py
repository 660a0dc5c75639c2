"""Engines, sessions and migrations. The only place that knows how to reach a database."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import event, inspect
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError
from sqlmodel import Session, create_engine

from catalog.errors import ConfigurationError, Message

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers go on while an import writes; foreign keys are off by default in SQLite.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # No busy_timeout pragma: the driver's ``timeout`` (make_engine) sets SQLite's busy timeout,
    # and a pragma here used to cut every configured wait to 5 s.
    cursor.execute("PRAGMA cache_size=-65536")  # 64 MiB: large imports update several indexes
    cursor.close()


def _sqlite_begin_fix(engine: Engine) -> None:
    """pysqlite's own transaction handling defers BEGIN; let SQLAlchemy emit it (SQLAlchemy docs)."""

    @event.listens_for(engine, "connect")
    def do_connect(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.isolation_level = None
        _sqlite_pragmas(dbapi_connection, record)

    @event.listens_for(engine, "begin")
    def do_begin(conn: Any) -> None:
        # A transaction that reads before it writes must take the write lock up front: in WAL
        # mode SQLite refuses ("database is locked", without waiting) to turn a read snapshot
        # that another writer has since outdated into a write. See :func:`writer`.
        immediate = conn.get_execution_options().get(IMMEDIATE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


IMMEDIATE = "lunzang_sqlite_immediate"


# Why a search is planned for its own words on PostgreSQL. psycopg prepares a
# statement once a connection has run it five times, and after five more PostgreSQL may switch
# to a *generic* plan, made without the parameters' values. For a search that is the wrong
# trade: ``o:抽一张牌`` matches 90,000 of 100,000 cards and ``o:风属`` 15,000, behind the same
# text. Measured on the 100,000-printing bench catalogue: ``o:抽一张牌`` went from 68 ms to
# 113 ms at its eleventh run on a connection and stayed there, ``kw:军团`` from 11 to 14 ms.
# Not for every connection (``plan_cache_mode`` there made a 100,000-row collection CSV import
# 5.3 → 8.2 s: its thousands of alike small statements gain nothing from replanning).
UNPREPARED = "lunzang_unprepared"
# The alias of a statement's table that makes any statement holding it run unprepared: for a
# statement built by one function and run inside another's (a collection filtered with the
# search language: :func:`catalog.search.printing_ids_matching`), which no execution option of
# its own reaches. Marking the whole transaction instead cost a kept collection page ~1 ms on
# PostgreSQL (its other statements planned anew each time for nothing).
UNPREPARED_ALIAS = "unprepared_p"


def unprepared(statement: Any) -> Any:
    """``statement`` run without preparing it on PostgreSQL, so planned for its own parameters
    every time (psycopg's ``prepare=False``; see ``UNPREPARED`` above). No round trip more, and
    nothing elsewhere: for a search's own statements."""
    return statement.execution_options(**{UNPREPARED: True})


def _postgres_unprepared(engine: Engine) -> None:
    @event.listens_for(engine, "do_execute")
    def do_execute(cursor: Any, statement: str, parameters: Any, context: Any) -> bool:
        if context.execution_options.get(UNPREPARED) or UNPREPARED_ALIAS in statement:
            cursor.execute(statement, parameters, prepare=False)
            return True  # executed: SQLAlchemy does not run it again
        return False


def writer(engine: Engine) -> Engine:
    """The engine for transactions that change quantities (STYLE: "BEGIN IMMEDIATE on SQLite").

    On SQLite its transactions start with ``BEGIN IMMEDIATE``: they wait (``busy_timeout``)
    for the write lock before their first read, so concurrent read-then-write requests
    serialise instead of failing with "database is locked". Same pool; no effect elsewhere.
    """
    return engine.execution_options(**{IMMEDIATE: True})


SQLITE_TIMEOUT = 30.0  # seconds a SQLite writer waits for the write lock (CLI, imports)


def make_engine(url: str, *, echo: bool = False, timeout: float = SQLITE_TIMEOUT, **options: Any) -> Engine:
    """An engine for ``url`` (a SQLAlchemy URL), or a :class:`ConfigurationError` in one line.

    ``timeout``: how long a SQLite connection waits for another writer's lock before "database
    is locked" (the web app passes its ``DATABASE_TIMEOUT``)."""
    if not url or not url.strip():
        raise ConfigurationError(
            Message("未设置数据库地址 DATABASE_URL", "DATABASE_URL is empty: give a SQLAlchemy URL")
        )
    try:
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite":
            database = parsed.database
            if database and database != ":memory:" and not database.startswith("file:"):
                folder = Path(database).expanduser().resolve().parent
                if not folder.is_dir():
                    raise ConfigurationError(
                        Message(
                            f"数据库所在目录不存在：{folder}",
                            f"the folder of the SQLite database does not exist: {folder}",
                        )
                    )
            engine = create_engine(url, echo=echo, connect_args={"timeout": timeout}, **options)
            _sqlite_begin_fix(engine)
            return engine
        engine = create_engine(url, echo=echo, pool_pre_ping=True, **options)
        if parsed.get_backend_name() == "postgresql":
            _postgres_unprepared(engine)
        return engine
    except (ArgumentError, NoSuchModuleError, ValueError) as error:
        raise ConfigurationError(
            Message(f"无法识别的数据库地址 DATABASE_URL：{url}（{error}）", f"unusable DATABASE_URL {url!r}: {error}")
        ) from error


def check_connection(engine: Engine) -> None:
    """Connect once; turn a refused or unreadable database into one clear line."""
    try:
        with engine.connect():
            pass
    except OperationalError as error:
        reason = str(error.orig).strip().splitlines()[0] if error.orig else str(error)
        raise ConfigurationError(
            Message(
                f"无法连接数据库 {engine.url.render_as_string(hide_password=True)}：{reason}",
                f"cannot connect to {engine.url.render_as_string(hide_password=True)}: {reason}",
            )
        ) from error


def schema_filter(dialect: str) -> Callable[..., bool]:
    """Alembic's ``include_object`` for ``dialect``: an index declared for other dialects only
    (``Index.ddl_if``, e.g. PostgreSQL's trigram indexes) is not part of this database's schema."""

    def include(obj: Any, _name: str | None, type_: str, _reflected: bool, _compare_to: Any) -> bool:
        condition = getattr(obj, "_ddl_if", None) if type_ == "index" else None
        if condition is None or condition.dialect is None:
            return True
        wanted = (condition.dialect,) if isinstance(condition.dialect, str) else tuple(condition.dialect)
        return dialect in wanted

    return include


def alembic_config(engine: Engine) -> Config:
    # Alembic (with Mako and Pygments) costs ~0.1 s to import: only commands that migrate pay it.
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (creates it on an empty database)."""
    from alembic import command

    check_connection(engine)
    command.upgrade(alembic_config(engine), revision)


def is_empty(engine: Engine) -> bool:
    """True when the database holds no catalogue table yet."""
    return not inspect(engine).has_table("card")


@contextmanager
def transaction(engine: Engine, *, write: bool = False) -> Iterator[Session]:
    """One unit of work: commit at the end, roll back on any error.

    ``write=True`` for work that reads and then changes quantities (see :func:`writer`).
    """
    with Session(writer(engine) if write else engine) as session, session.begin():
        yield session
