"""Shared fixtures: a real database per test (SQLite file, or PostgreSQL via DATABASE_URL).

SQLite: the schema is migrated once into a template file; each test gets a copy.
PostgreSQL (``DATABASE_URL=postgresql+psycopg://…``): the schema is rebuilt by the
migrations once per run; each test starts from empty tables (TRUNCATE).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel

from catalog import db as catalog_db
from catalog.ingest import import_catalogue

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "import"
REALDATA = ROOT.parent / "shared" / "realdata"
POSTGRES_URL = os.environ.get("DATABASE_URL", "")
ON_POSTGRES = POSTGRES_URL.startswith("postgresql")


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
    with engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return str(template)


def _truncate_all(engine: Engine) -> None:
    tables = ", ".join(f'"{t.name}"' for t in SQLModel.metadata.sorted_tables)
    with engine.begin() as connection:
        connection.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))


@pytest.fixture
def database_url(_database_template: str, tmp_path: Path) -> str:
    """A migrated, empty database for this test alone."""
    if ON_POSTGRES:
        engine = catalog_db.make_engine(POSTGRES_URL)
        _truncate_all(engine)
        engine.dispose()
        return POSTGRES_URL
    target = tmp_path / "test.sqlite3"
    shutil.copyfile(_database_template, target)
    return f"sqlite:///{target}"


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
    """The database with the shipped sample catalogue imported and committed."""
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[SAMPLE])
    return engine


@pytest.fixture
def app(database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    from webapp import create_app

    application = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "SECRET_KEY": "test",
        }
    )
    application.instance_path = str(tmp_path / "instance")
    yield application
    from webapp.db import dispose

    dispose(application)


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


@pytest.fixture
def runner(app):  # type: ignore[no-untyped-def]
    return app.test_cli_runner()


@pytest.fixture
def sample_app(app, sample_catalogue):  # type: ignore[no-untyped-def]
    """The web app over a database holding the sample catalogue."""
    return app
