"""Search latency on a synthetic 100,000-printing catalogue (``make bench``; figures, no asserts).

Run on SQLite and, when it answers, PostgreSQL (its own ``lunzang_bench_search`` database).
Three measurements per query of a fixed mix of 20: the search function, the same compiled
SQL (every statement it ran) run directly on the connection (the floor), and the HTTP layer (``GET /cards`` page and
``GET /api/v1/cards``) through the Flask test client. Prints median/p95 and the query plans
of the three slowest queries.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.ingest import import_catalogue
from catalog.ingest.synth import write_synthetic_catalogue

PRINTINGS = int(os.environ.get("BENCH_PRINTINGS", "100000"))
REPEAT = int(os.environ.get("BENCH_REPEAT", "7"))
QUERIES = [
    "龙王",  # name word
    "龍",  # one Traditional character
    "longfeng",  # pinyin
    "llf",  # initials
    "o:抽一张牌",  # text, 4 characters
    "o:风属",  # text, 2 characters
    "o:火",  # text, 1 character
    "t:战魂 a:火 cost<=3",
    "t:魔法 a:水",
    "a=光 atk>=5",
    "r>=UR",
    "r:SR t:战魂",
    "r<=R a:暗 def>4",
    "kw:军团",
    "tr:英灵 kw:飞翔",
    "t:战魂 or t:载具",
    "-t:战魂 cost<=2",
    "(a:火 or a:水) -kw:军团 order:cost",
    "is:reprint",
    "set:X7 unique:prints",
]


SERVER_URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
# its own database, so a benchmark never disturbs a test run (BENCH_DATABASE_PREFIX: parallel runs apart)
BENCH_DATABASE = os.environ.get("BENCH_DATABASE_PREFIX", "lunzang_bench") + "_search"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_synthetic_catalogue(tmp_path_factory.mktemp("synth"), printings=PRINTINGS, seed=1)


def _postgres_server() -> str | None:
    """The PostgreSQL server URL when one answers, else None (the benchmark then runs on SQLite
    only and says so)."""
    try:
        server = catalog_db.make_engine(SERVER_URL)
        catalog_db.check_connection(server)
        server.dispose()
        return SERVER_URL
    except Exception as error:
        print(f"PostgreSQL not measured: {error}")
        return None


def _fresh_postgres_database(server_url: str) -> str:
    from sqlalchemy.engine import make_url

    server = catalog_db.make_engine(server_url, isolation_level="AUTOCOMMIT")
    with server.connect() as connection:
        connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {BENCH_DATABASE}")
        connection.exec_driver_sql(f"CREATE DATABASE {BENCH_DATABASE} TEMPLATE template0 ENCODING 'UTF8'")
    server.dispose()
    return make_url(server_url).set(database=BENCH_DATABASE).render_as_string(hide_password=False)


POSTGRES = _postgres_server()
DATABASES = ["SQLite", "PostgreSQL"] if POSTGRES else ["SQLite"]


@pytest.fixture(scope="module", params=DATABASES)
def engine(request: pytest.FixtureRequest, folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    if request.param == "SQLite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'bench.sqlite3'}"
    else:
        assert POSTGRES is not None
        url = _fresh_postgres_database(POSTGRES)
    engine = catalog_db.make_engine(url)
    catalog_db.upgrade(engine)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[folder])
    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            connection.exec_driver_sql("COMMIT")
        connection.exec_driver_sql("ANALYZE")
    yield engine
    engine.dispose()


def _time(fn: Any) -> list[float]:
    fn()  # warm
    samples = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def test_search_latency(engine: Any, tmp_path: Path) -> None:
    from catalog.search import search
    from webapp import create_app

    app = create_app({"TESTING": True, "DATABASE_URL": str(engine.url), "SECRET_KEY": "bench"})
    client = app.test_client()
    captured: dict[str, Any] = {}
    rows = []
    all_fn, all_sql, all_api, all_page = [], [], [], []
    with Session(engine) as session:
        for query in QUERIES:
            from sqlalchemy import event

            statements: list[tuple[str, Any]] = []

            def capture(
                conn: Any,
                cursor: Any,
                statement: str,
                parameters: Any,
                context: Any,
                many: bool,
                statements: list[tuple[str, Any]] = statements,
            ) -> None:
                statements.append((statement, parameters))

            event.listen(engine, "before_cursor_execute", capture)
            result = search(session=session, text=query)
            event.remove(engine, "before_cursor_execute", capture)
            main_sql = next(s for s in statements if "LIMIT" in s[0])
            captured[query] = main_sql
            fn = _time(lambda q=query: search(session=session, text=q))
            raw = session.connection().connection.driver_connection

            def run_all(raw: Any = raw, statements: list[tuple[str, Any]] = statements) -> None:
                for statement, parameters in statements:
                    if statement != "BEGIN":  # the session's transaction is already open
                        raw.execute(statement, parameters).fetchall()

            # The floor: every statement search() ran for this query (page, count, the
            # hits' cards and printings), executed directly on the driver connection.
            sql = _time(run_all)
            api = _time(lambda q=query: client.get("/api/v1/cards", query_string={"q": q}))
            page_status = client.get("/cards", query_string={"q": query}).status_code
            page = _time(lambda q=query: client.get("/cards", query_string={"q": q})) if page_status == 200 else []
            all_fn += fn
            all_sql += sql
            all_api += api
            all_page += page
            rows.append((query, result.total, _stats(fn), _stats(sql), _stats(api), _stats(page) if page else None))
    database = "PostgreSQL" if engine.dialect.name == "postgresql" else "SQLite"
    print(f"\n{database}: {PRINTINGS} printings, {REPEAT} runs per query (ms: median / p95)")
    print(f"{'query':<40}{'hits':>7}{'search()':>16}{'SQL alone':>16}{'API':>16}{'/cards page':>16}")
    for query, total, fn, sql, api, page in rows:
        page_text = f"{page[0]:7.1f}/{page[1]:6.1f}" if page else "       -"
        cells = f"{fn[0]:9.1f}/{fn[1]:6.1f}{sql[0]:9.1f}/{sql[1]:6.1f}{api[0]:9.1f}/{api[1]:6.1f}"
        print(f"{query:<40}{total:>7}{cells}  {page_text}")
    for label, samples in (("search()", all_fn), ("SQL alone", all_sql), ("API", all_api), ("/cards page", all_page)):
        if samples:
            median, p95 = _stats(samples)
            print(f"ALL {label:<12} median {median:6.1f} ms   p95 {p95:6.1f} ms")
    slowest = sorted(rows, key=lambda r: r[2][0], reverse=True)[:3]
    with engine.connect() as connection:
        raw = connection.connection.driver_connection
        for query, *_ in slowest:
            statement, parameters = captured[query]
            explain = "EXPLAIN " if engine.dialect.name == "postgresql" else "EXPLAIN QUERY PLAN "
            plan = raw.execute(explain + statement, parameters).fetchall()
            print(f"\nplan of {query!r}:")
            for row in plan:
                print("   ", row[-1])
