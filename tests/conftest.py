"""Shared fixtures: a real database per test (SQLite file, or PostgreSQL via DATABASE_URL).

SQLite: the schema is migrated once into a template file, and a second template holds the sample
catalogue imported into it; each test gets a copy of the one it needs (a test asking for
``sample_catalogue``, even through ``sample_app``, starts from the second), so the sample is
imported once per run instead of once per test.
PostgreSQL (``DATABASE_URL=postgresql+psycopg://…``): the schema is rebuilt by the migrations
once per run and the sample catalogue is imported once, then copied into a ``sample_snapshot``
schema; each test starts from empty tables (TRUNCATE), refilled from that snapshot when it
asks for the sample. ``tests/test_isolation.py`` proves rows do not leak between tests.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.ingest import import_catalogue
from catalog.models import load_all
from tests.kits.db import share_compiled_sql
from tests.kits.examples import PROFILE as EXAMPLES_PROFILE

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "import"
# third-party data beside the repository (CI); LUNZANG_REALDATA points elsewhere (a worktree)
REALDATA = Path(os.environ.get("LUNZANG_REALDATA") or ROOT.parent / "shared" / "realdata")
POSTGRES_URL = os.environ.get("DATABASE_URL", "")
# Test files whose single tests take tens of seconds each (``--durations``).
LONG_RUNNING = {
    "test_trading_stateful.py",
    "test_trading_matching_exact.py",
    "test_trading_races.py",
    "test_events_stateful.py",
    "test_import_streaming.py",
    "test_hardening_input.py",
    "test_realdata_keyforge.py",
    "test_trading_matching.py",
    "test_startup.py",
}
ON_POSTGRES = POSTGRES_URL.startswith("postgresql")


# Property tests: the suite's profile, or HYPOTHESIS_PROFILE=thorough for ten times the examples
# of the tests that leave their count to Hypothesis (tests/kits/examples.py sizes the others).
settings.register_profile("suite", settings.get_profile("default"))
settings.register_profile("thorough", max_examples=1000)
settings.load_profile(EXAMPLES_PROFILE)

# Each test's SQLite engine reuses the SQL the previous tests' engines compiled (tests/kits/db.py).
share_compiled_sql()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """For pytest-xdist's ``--dist loadgroup`` (``make test``): a test whose fixtures live longer
    than one test (the accessibility crawl's site, a module's servers) stays on one worker with the
    rest of its file, so they start once; every other test is handed to whichever worker is free,
    one by one, so both workers stay busy to the end instead of waiting on the last large file."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        scopes = {definition.scope for defs in info.name2fixturedefs.values() for definition in defs}
        if scopes & {"module", "class", "package"}:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
    # Longest first: xdist hands out the browser files (groups) first, then single tests in this
    # order, so the few single tests that take a minute (state machines, brute-force comparisons,
    # streaming imports) start early instead of leaving one worker alone at the end.
    items.sort(key=lambda item: Path(str(item.fspath)).name not in LONG_RUNNING)


def pytest_report_header(config: pytest.Config) -> str:
    return f"database: {'PostgreSQL ' + POSTGRES_URL if ON_POSTGRES else 'SQLite (temporary files)'}"


@pytest.fixture(scope="session")
def _database_template(tmp_path_factory: pytest.TempPathFactory) -> str:
    if ON_POSTGRES:
        # The suite wipes the database it is given: refuse anything not named like a test one.
        from sqlalchemy.engine import make_url

        if "test" not in (make_url(POSTGRES_URL).database or ""):
            pytest.exit(f"refusing to run the suite against {POSTGRES_URL}: its name lacks 'test'", 2)
        engine = catalog_db.make_engine(POSTGRES_URL)
        with engine.begin() as connection:
            connection.exec_driver_sql("DROP SCHEMA public CASCADE")
            connection.exec_driver_sql("CREATE SCHEMA public")
        catalog_db.upgrade(engine)
        engine.dispose()
        return POSTGRES_URL
    template = tmp_path_factory.mktemp("template") / "template.sqlite3"
    engine = catalog_db.make_engine(f"sqlite:///{template}")
    catalog_db.upgrade(engine)
    _checkpoint(engine)
    engine.dispose()
    return str(template)


def _checkpoint(engine: Engine) -> None:
    """Everything in the main SQLite file (a plain file copy then carries it all)."""
    with engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


@pytest.fixture(scope="session")
def _sample_template(_database_template: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The migrated template with the sample catalogue imported (SQLite: a file; PostgreSQL:
    the ``sample_snapshot`` schema holding a copy of every table the import filled)."""
    if ON_POSTGRES:
        engine = catalog_db.make_engine(POSTGRES_URL)
        _truncate_all(engine)
        with catalog_db.transaction(engine) as session:
            import_catalogue(session=session, paths=[SAMPLE])
        with engine.begin() as connection:
            connection.exec_driver_sql("DROP SCHEMA IF EXISTS sample_snapshot CASCADE")
            connection.exec_driver_sql("CREATE SCHEMA sample_snapshot")
            for table in load_all().sorted_tables:
                connection.exec_driver_sql(
                    f'CREATE TABLE sample_snapshot."{table.name}" AS SELECT * FROM public."{table.name}"'
                )
        engine.dispose()
        return POSTGRES_URL
    template = tmp_path_factory.mktemp("sample") / "sample.sqlite3"
    shutil.copyfile(_database_template, template)
    engine = catalog_db.make_engine(f"sqlite:///{template}")
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[SAMPLE])
    _checkpoint(engine)
    engine.dispose()
    return str(template)


def _restore_sample(engine: Engine) -> None:
    """PostgreSQL: the tables (just truncated) refilled from the snapshot, sequences moved past."""
    with engine.begin() as connection:
        for table in load_all().sorted_tables:
            connection.exec_driver_sql(f'INSERT INTO "{table.name}" SELECT * FROM sample_snapshot."{table.name}"')
            for column in table.primary_key.columns:
                if column.autoincrement is True or (column.autoincrement == "auto" and column.type.python_type is int):
                    connection.exec_driver_sql(
                        f"SELECT setval(pg_get_serial_sequence('\"{table.name}\"', '{column.name}'), "
                        f'COALESCE((SELECT MAX("{column.name}") FROM "{table.name}"), 0) + 1, false) '
                        f"WHERE pg_get_serial_sequence('\"{table.name}\"', '{column.name}') IS NOT NULL"
                    )


def _truncate_all(engine: Engine) -> None:
    tables = ", ".join(f'"{t.name}"' for t in load_all().sorted_tables)
    with engine.begin() as connection:
        connection.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))


@pytest.fixture
def database_url(request: pytest.FixtureRequest, _database_template: str, tmp_path: Path) -> Iterator[str]:
    """A migrated database for this test alone: empty, or holding the sample catalogue when the
    test asks for ``sample_catalogue`` (directly or through another fixture).

    Afterwards, the ledger invariant (DESIGN §10) is checked on whatever the test committed:
    per user, printing and grade, the ledger sums to the collection quantities.
    """
    with_sample = "sample_catalogue" in request.fixturenames
    template = request.getfixturevalue("_sample_template") if with_sample else _database_template
    _forget_kept_pages()
    if ON_POSTGRES:
        engine = catalog_db.make_engine(POSTGRES_URL)
        _truncate_all(engine)
        if with_sample:
            _restore_sample(engine)
        engine.dispose()
        url = POSTGRES_URL
    else:
        target = tmp_path / "test.sqlite3"
        shutil.copyfile(template, target)
        url = f"sqlite:///{target}"
    yield url
    if not ON_POSTGRES and _unchanged(target, template):
        return  # nothing committed: the templates hold no collection, ledger or chest rows
    _assert_ledger_sums(url)


def _unchanged(target: Path, template: str) -> bool:
    """True when the test's SQLite file still holds exactly its template's bytes, with no write
    waiting in its WAL: about 1 ms, where the ledger check costs 10-30 (half the tests only read)."""
    wal = Path(f"{target}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return False
    return target.exists() and filecmp.cmp(target, template, shallow=False)


def _forget_kept_pages() -> None:
    """The collection page keeps counts per (database, user, newest ledger id) and row faces per
    catalogue version. PostgreSQL tests share one database, emptied and refilled between tests,
    where ids and versions repeat: what one test kept would be found by the next."""
    from catalog.collection import listing
    from webapp.collection import rows

    listing.cache_clear()
    rows.cache_clear()


def _assert_ledger_sums(url: str) -> None:
    """Two GROUP BY queries; skipped when the test left no ledger table (a downgrade test)."""
    from sqlalchemy import inspect

    from catalog.collection.ledger import check_ledger
    from catalog.events.prizes import check_chests

    engine = catalog_db.make_engine(url)
    try:
        if not inspect(engine).has_table("ledger_entry"):
            return
        with Session(engine) as session:
            problems = check_ledger(session)
            if inspect(engine).has_table("chest_ledger"):  # silver chests obey the same rule
                problems += check_chests(session)
    finally:
        engine.dispose()
    assert not problems, "the ledger does not sum to the collection:\n" + "\n".join(problems)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = catalog_db.make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session inside a transaction the test may commit or leave to roll back."""
    with Session(engine) as session:
        yield session
        session.rollback()


@pytest.fixture
def sample_catalogue(engine: Engine) -> Engine:
    """The database with the shipped sample catalogue imported and committed (copied from the
    session's sample template by ``database_url``)."""
    return engine


APP_CONFIG = {
    "TESTING": True,
    "SECRET_KEY": "test",
    # Form tests post without fetching a token first; the CSRF check itself is proven
    # by ``csrf_app``/``csrf_client`` and by the browser tests, which run with it on.
    "WTF_CSRF_ENABLED": False,
}


def _new_app(database_url: str, tmp_path: Path):
    from webapp import create_app

    application = create_app(APP_CONFIG | {"DATABASE_URL": database_url})
    application.instance_path = str(tmp_path / "instance")
    return application


@pytest.fixture(scope="session")
def _one_app(tmp_path_factory: pytest.TempPathFactory):
    """The web app, built once per test process (~40 ms a build, ~1,800 tests use it): each test
    gets it back as it was built — its settings, its extensions, nothing kept, no rate-limit
    counted — over the test's own database and instance folder (``app``)."""
    from webapp.extensions import limiter

    application = _new_app("sqlite://", tmp_path_factory.mktemp("app"))
    # the limiter is one object for every app (an app of a test of its own re-binds its store)
    return application, dict(application.config), dict(application.extensions), dict(vars(limiter))


@pytest.fixture
def app(_one_app: Any, database_url: str, tmp_path: Path):
    """The web app over this test's database. Shared by the tests of a process and reset for
    each; a test that adds routes or hooks (which Flask allows only before a first request)
    asks for ``fresh_app`` instead."""
    from webapp.db import dispose
    from webapp.extensions import limiter

    application, config, extensions, limiter_state = _one_app
    dispose(application)
    application.config.clear()
    application.config.update(config, DATABASE_URL=database_url)
    application.extensions.clear()
    application.extensions.update(extensions)
    kept = extensions.get("answers")
    if kept is not None:
        kept.clear()
    vars(limiter).clear()
    vars(limiter).update(limiter_state)
    with application.app_context():
        limiter.reset()
    application.instance_path = str(tmp_path / "instance")
    yield application
    dispose(application)


@pytest.fixture
def fresh_app(database_url: str, tmp_path: Path):
    """A web app of this test alone, built anew (a test that adds a route to it)."""
    application = _new_app(database_url, tmp_path)
    yield application
    from webapp.db import dispose

    dispose(application)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def sample_app(app, sample_catalogue):
    """The web app over a database holding the sample catalogue."""
    return app


@pytest.fixture
def csrf_app(app):
    """The app with CSRF protection on, as in production (checked per request, so a flag suffices)."""
    app.config["WTF_CSRF_ENABLED"] = True
    return app


@pytest.fixture
def csrf_client(csrf_app):
    return csrf_app.test_client()


TEST_PASSWORD = "correct horse battery"


def _make_user(
    session: Session, username: str = "alice", *, role: str = "user", password: str = TEST_PASSWORD, **fields: Any
) -> Any:
    """Builder: a user with cheap password hashing, flushed (not committed) in ``session``."""
    from datetime import UTC, datetime

    from catalog.accounts import create_user

    user = create_user(
        session=session,
        username=username,
        password=password,
        role=role,
        now=datetime(2026, 1, 1, tzinfo=UTC),
        hash_method="pbkdf2:sha256:1",
    )
    for name, value in fields.items():
        setattr(user, name, value)
    session.flush()
    return user


@pytest.fixture
def make_user():
    """``make_user(session, "bob", role="organizer", lists_public=True) -> User`` (flushes only)."""
    return _make_user


@pytest.fixture
def login():
    """``login(client, username="alice", role="user") -> User``: the user (created, committed,
    in the client app's database, unless the name exists) and ``client`` signed in as them.

    The sign-in goes through the session cookie (as Flask-Login's own test client does), so it
    neither needs a CSRF token nor counts against the sign-in rate limit. The returned row is
    detached: read its attributes, or load it again in your own session to change it.
    """

    def sign_in(client, username: str = "alice", role: str = "user", **fields):
        from catalog.accounts import get_user_by_name
        from webapp.db import get_engine

        with Session(get_engine(client.application), expire_on_commit=False) as session, session.begin():
            user = get_user_by_name(session=session, username=username) or _make_user(
                session, username, role=role, **fields
            )
        with client.session_transaction() as web_session:
            web_session["_user_id"] = user.get_id()
            web_session["_fresh"] = True
        return user

    return sign_in
