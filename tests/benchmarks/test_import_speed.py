"""Import throughput (``make bench``): a synthetic catalogue into SQLite and PostgreSQL.

Not part of ``make test``: it prints figures, it does not assert timings. Size with
``BENCH_PRINTINGS`` (default 100000); PostgreSQL runs when ``BENCH_POSTGRES_URL`` (default
the CI database) answers.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine, make_url

from catalog import db as catalog_db
from catalog.ingest import ImportReport, import_catalogue
from catalog.ingest.synth import write_synthetic_catalogue

PRINTINGS = int(os.environ.get("BENCH_PRINTINGS", "100000"))
SERVER_URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
# its own database, so a benchmark never disturbs a test run (BENCH_DATABASE_PREFIX: parallel runs apart)
BENCH_DATABASE = os.environ.get("BENCH_DATABASE_PREFIX", "lunzang_bench")


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_synthetic_catalogue(tmp_path_factory.mktemp("synth"), printings=PRINTINGS, seed=1)


def _timed_import(engine: Engine, folder: Path) -> tuple[float, ImportReport]:
    started = time.perf_counter()
    with catalog_db.transaction(engine) as session:
        report = import_catalogue(session=session, paths=[folder])
    return time.perf_counter() - started, report


def _engines(tmp_path: Path) -> list[tuple[str, Engine]]:
    engines = [("SQLite", catalog_db.make_engine(f"sqlite:///{tmp_path / 'bench.sqlite3'}"))]
    try:
        server = catalog_db.make_engine(SERVER_URL, isolation_level="AUTOCOMMIT")
        catalog_db.check_connection(server)
        with server.connect() as connection:
            connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {BENCH_DATABASE}")
            connection.exec_driver_sql(f"CREATE DATABASE {BENCH_DATABASE} TEMPLATE template0 ENCODING 'UTF8'")
        server.dispose()
        url = make_url(SERVER_URL).set(database=BENCH_DATABASE)
        engines.append(("PostgreSQL", catalog_db.make_engine(url.render_as_string(hide_password=False))))
    except Exception as error:
        print(f"PostgreSQL skipped: {error}")
    return engines


def test_import_and_reimport_throughput(catalogue: Path, tmp_path: Path) -> None:
    lines = []
    for label, engine in _engines(tmp_path):
        catalog_db.upgrade(engine)
        first, report = _timed_import(engine, catalogue)
        again, second = _timed_import(engine, catalogue)
        assert report.printings.added == PRINTINGS
        assert not second.changed  # the re-import must be a no-op
        lines.append(
            f"{label:<11} import {first:6.2f} s = {PRINTINGS / first:8.0f} printings/s | "
            f"re-import {again:6.2f} s = {PRINTINGS / again:8.0f} printings/s"
        )
        engine.dispose()
    print(f"\n{PRINTINGS} synthetic printings")
    print("\n".join(lines))
