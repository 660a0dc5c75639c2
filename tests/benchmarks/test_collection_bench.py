"""Collection CSV import (``make bench BENCH_ARGS="-k collection"``): 100,000 rows, SQLite and PostgreSQL.

A synthetic catalogue of ``BENCH_PRINTINGS`` printings (default 100,000) is imported first
(not timed); then a ``BENCH_ROWS``-row collection CSV (default 100,000: every printing once
in a random grade, 2 % of rows repeated so the merge has work) is imported as a dry run, for
real (mode add, into an empty collection), exported, re-imported in replace mode (no change),
and the first import undone. Target: ≤ 10 s for the import on SQLite. Prints figures, asserts
only the results (timings depend on the machine). PostgreSQL runs when ``BENCH_POSTGRES_URL``
answers; its database is ``BENCH_COLLECTION_DATABASE`` (default ``lunzang_bench_collection``),
whose schema is rebuilt.

``test_collection_page_speed``: GET /collection through the Flask test client for a user owning
``BENCH_COLLECTION_ITEMS`` (default 50,000) distinct printings: the first, a later and the last
page in set and in name order, search-language and plain filters, each page as a person opens
it again (its placing kept), and the first page after a change (+1 / −1 on an item, then the
page); median and p95 of ``BENCH_PAGE_RUNS`` runs, SQLite and PostgreSQL taking turns. Targets:
≤ 150 ms on SQLite, any page ≤ 50 ms on both. Its PostgreSQL database is
``BENCH_PAGES_DATABASE`` (default ``BENCH_COLLECTION_DATABASE`` + ``_pages``), whose schema is
rebuilt.
"""

from __future__ import annotations

import os
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import export_collection, import_collection, undo_import
from catalog.collection.grades import CONDITIONS, LANGUAGES
from catalog.ingest import import_catalogue, vacuum_after_import
from catalog.ingest.synth import write_synthetic_catalogue
from catalog.models import CardSet, Printing, User

PRINTINGS = int(os.environ.get("BENCH_PRINTINGS", "100000"))
ROWS = int(os.environ.get("BENCH_ROWS", "100000"))
SERVER_URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
DATABASE = os.environ.get(
    "BENCH_COLLECTION_DATABASE", os.environ.get("BENCH_DATABASE_PREFIX", "lunzang_bench") + "_collection"
)
NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_synthetic_catalogue(tmp_path_factory.mktemp("synth"), printings=PRINTINGS, seed=1)


def _postgres(database: str = DATABASE) -> Engine | None:
    try:
        server = catalog_db.make_engine(SERVER_URL, isolation_level="AUTOCOMMIT")
        catalog_db.check_connection(server)
        with server.connect() as connection:
            exists = connection.exec_driver_sql("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).first()
            if not exists:
                connection.exec_driver_sql(f"CREATE DATABASE {database} TEMPLATE template0 ENCODING 'UTF8'")
        server.dispose()
        url = make_url(SERVER_URL).set(database=database).render_as_string(hide_password=False)
        engine = catalog_db.make_engine(url)
        with engine.begin() as connection:
            connection.exec_driver_sql("DROP SCHEMA public CASCADE")
            connection.exec_driver_sql("CREATE SCHEMA public")
        return engine
    except Exception as error:
        print(f"PostgreSQL skipped: {error}")
        return None


def _csv(engine: Engine) -> bytes:
    with Session(engine) as session:
        pairs = session.execute(
            select(CardSet.code, Printing.number).join(CardSet, CardSet.id == Printing.set_id).order_by(Printing.id)
        ).all()
    rng = random.Random(6)
    lines = ["set,number,name,quantity,condition,language,finish,for_trade"]
    chosen = [pairs[i % len(pairs)] for i in range(ROWS)]
    for index, (code, number) in enumerate(chosen):
        if index % 50 == 49:  # a repeat of the previous row: merged
            lines.append(lines[-1])
            continue
        quantity = rng.randint(1, 4)
        condition = rng.choice(CONDITIONS[:3])
        language = rng.choice(LANGUAGES)
        finish = "闪" if rng.random() < 0.1 else "普通"
        lines.append(f"{code},{number},,{quantity},{condition},{language},{finish},{rng.randint(0, 1)}")
    return ("\n".join(lines) + "\n").encode()


def _timed(engine: Engine, run) -> tuple[float, object]:
    started = time.perf_counter()
    with catalog_db.transaction(engine) as session:
        result = run(session)
    return time.perf_counter() - started, result


def test_collection_import_throughput(catalogue: Path, tmp_path: Path) -> None:
    engines = [("SQLite", catalog_db.make_engine(f"sqlite:///{tmp_path / 'bench.sqlite3'}"))]
    postgres = _postgres()
    if postgres is not None:
        engines.append(("PostgreSQL", postgres))
    report_lines = [f"\ncollection CSV of {ROWS:,} rows over {PRINTINGS:,} printings:"]
    for label, engine in engines:
        catalog_db.upgrade(engine)
        with catalog_db.transaction(engine) as session:
            import_catalogue(session=session, paths=[catalogue])
            session.add(User(username="bench", username_key="bench", password_hash="-", created_at=NOW))
        with Session(engine) as session:
            user_id = session.scalars(select(User.id)).one()
        data = _csv(engine)

        def importing(mode: str, dry_run: bool, payload: bytes = data, user_id: int = user_id):
            return lambda session: import_collection(
                session=session, user_id=user_id, data=payload, mode=mode, dry_run=dry_run, now=NOW
            )

        dry, dry_report = _timed(engine, importing("add", True))
        real, real_report = _timed(engine, importing("add", False))
        assert dry_report.lines_added == real_report.lines_added > 0
        started = time.perf_counter()
        with Session(engine) as session:
            exported = export_collection(session=session, user_id=user_id).encode()
        export = time.perf_counter() - started
        replace, replace_report = _timed(engine, importing("replace", False, exported))
        assert not replace_report.changed
        import_id = real_report.import_id
        undo, changes = _timed(
            engine,
            lambda session, user_id=user_id, import_id=import_id: undo_import(
                session=session, user_id=user_id, import_id=import_id, now=NOW
            ),
        )
        report_lines.append(
            f"  {label}: dry run {dry:.2f} s, import {real:.2f} s (target ≤ 10 s on SQLite; "
            f"{real_report.rows:,} rows, {real_report.merged:,} merged, {real_report.lines_added:,} items), "
            f"export {export:.2f} s ({len(exported) / 1e6:.1f} MB), replace with the export {replace:.2f} s "
            f"(no change), undo {undo:.2f} s ({len(changes):,} items)"
        )
        engine.dispose()
    print("\n".join(report_lines))


# ---------------------------------------------------------------------------- the collection page

PAGE_ITEMS = int(os.environ.get("BENCH_COLLECTION_ITEMS", "50000"))
PAGE_RUNS = int(os.environ.get("BENCH_PAGE_RUNS", "25"))
PAGES_DATABASE = os.environ.get("BENCH_PAGES_DATABASE", DATABASE + "_pages")
PAGE_TARGET = 50  # ms, any page on both databases
PAGE_URLS = [
    ("page 1", "/collection"),
    ("a later page (600)", "/collection?page=600"),
    ("the last page (1000)", "/collection?page=1000"),
    ("by name, page 1", "/collection?sort=name"),
    ("by name, page 600", "/collection?sort=name&page=600"),
    ("by name, the last page", "/collection?sort=name&page=1000"),
    ("q=a:火 r>=UR, page 1", "/collection?q=a:%E7%81%AB+r%3E%3DUR"),
    ("q=a:火 r>=UR, page 20", "/collection?q=a:%E7%81%AB+r%3E%3DUR&page=20"),
    ("q=set:X7, page 2", "/collection?q=set:X7&page=2"),
    ("q=12 (in a name), page 10", "/collection?q=12&page=10"),
    ("game, page 300", "/collection?game=samsara&page=300"),
    ("set=X120, page 3", "/collection?set=X120&page=3"),
]
# Opened with no placing kept (the first open of these filters since the collection changed in
# a way that moves items): every placing cleared before each run, the catalogue's ranks kept.
COLD_URLS = [
    ("page 1", "/collection"),
    ("a later page (600)", "/collection?page=600"),
    ("by name, page 1", "/collection?sort=name"),
    ("by name, page 600", "/collection?sort=name&page=600"),
    ("q=a:火 r>=UR, page 1", "/collection?q=a:%E7%81%AB+r%3E%3DUR"),
    ("q=12 (in a name), page 10", "/collection?q=12&page=10"),
]
# Opened with only the placing let go (the cache's bound), in a process that has shown the
# collection and the filter before: its totals and the filter's printings still kept.
LET_GO_URLS = [
    ("q=a:火 r>=UR, page 1", "/collection?q=a:%E7%81%AB+r%3E%3DUR"),
    ("q=12 (in a name), page 10", "/collection?q=12&page=10"),
]
# Opened in a new process (nothing kept in memory: the catalogue's ranks are read as stored
# after the import, as `lunzang import` does; see ordering_stored below).
NEW_PROCESS_URLS = [
    ("page 1", "/collection"),
    ("by name, page 1", "/collection?sort=name"),
    ("q=a:火 r>=UR, page 1", "/collection?q=a:%E7%81%AB+r%3E%3DUR"),
]
# After a card enters the collection (0 → 1, placed anew) or leaves it (1 → 0, taken out).
MOVED_URLS = [
    ("page 1", "/collection"),
    ("by name, page 600", "/collection?sort=name&page=600"),
]
# After a change (+1 or −1 on one item, alternately): the page a person comes back to.
CHANGED_URLS = [
    ("page 1", "/collection"),
    ("a later page (600)", "/collection?page=600"),
    ("by name, page 600", "/collection?sort=name&page=600"),
]


def _client(engine: Engine, url: str, tmp_path: Path) -> Any:
    """A signed-in test client of an app on ``url`` (the user "pages"), and its app."""
    from webapp import create_app

    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False})
    app.instance_path = str(tmp_path / "instance")
    client = app.test_client()
    with Session(engine) as session:
        user = session.scalars(select(User).where(User.username == "pages")).one()
        user_id = user.get_id()
    with client.session_transaction() as web_session:
        web_session["_user_id"] = user_id
        web_session["_fresh"] = True
    return client, app


Timings = dict[str, tuple[list[float], list[float]]]  # database → (wall ms, this process's CPU ms)


def _timed_get(client: Any, path: str, into: tuple[list[float], list[float]]) -> None:
    cpu, started = time.process_time(), time.perf_counter()
    response = client.get(path)
    into[0].append((time.perf_counter() - started) * 1000)
    into[1].append((time.process_time() - cpu) * 1000)
    assert response.status_code == 200, path


def _page_timings(
    clients: dict[str, Any], printing: dict[str, int], unowned: dict[str, int]
) -> list[tuple[str, Timings]]:
    """[(label, {database: (wall, CPU)})] of every PAGE_URLS entry, then of every CHANGED_URLS
    entry right after a change, through the Flask test clients, the databases taking turns run
    by run (load falls on both alike)."""
    out: list[tuple[str, Timings]] = []
    for label, path in PAGE_URLS:
        times: Timings = {name: ([], []) for name in clients}
        for client in clients.values():
            for _ in range(3):  # warm-up: caches, the planner, the first connection
                assert client.get(path).status_code == 200
        for _ in range(PAGE_RUNS):
            for name, client in clients.items():
                _timed_get(client, path, times[name])
        for client in clients.values():
            assert client.get(path).get_data(as_text=True).count("<tr data-printing=") == 50, path
        out.append((label, times))
    for label, path in CHANGED_URLS:
        times = {name: ([], []) for name in clients}
        for run in range(PAGE_RUNS):
            for name, client in clients.items():
                form = {"printing_id": printing[name], "delta": 1 if run % 2 == 0 else -1, "next": path}
                assert client.post("/collection/items", data=form).status_code == 303
                _timed_get(client, path, times[name])
        if PAGE_RUNS % 2:  # the item as it was
            for name, client in clients.items():
                form = {"printing_id": printing[name], "delta": -1, "next": path}
                assert client.post("/collection/items", data=form).status_code == 303
        out.append((f"{label}, after a change", times))
    from catalog.collection.listing import cache_clear

    for label, path in COLD_URLS:
        times = {name: ([], []) for name in clients}
        for _ in range(PAGE_RUNS):
            for name, client in clients.items():
                cache_clear(ranks=False)
                _timed_get(client, path, times[name])
        out.append((f"{label}, no placing kept", times))
    for label, path in LET_GO_URLS:
        times = {name: ([], []) for name in clients}
        for client in clients.values():
            assert client.get(path).status_code == 200
        for _ in range(PAGE_RUNS):
            for name, client in clients.items():
                cache_clear(placings_only=True)
                _timed_get(client, path, times[name])
        out.append((f"{label}, only its placing let go", times))
    for label, path in NEW_PROCESS_URLS:
        times = {name: ([], []) for name in clients}
        for _ in range(PAGE_RUNS):
            for name, client in clients.items():
                cache_clear()
                _timed_get(client, path, times[name])
        out.append((f"{label}, in a new process", times))
    for label, path in MOVED_URLS:
        entered: Timings = {name: ([], []) for name in clients}
        left: Timings = {name: ([], []) for name in clients}
        for _ in range(3):
            for client in clients.values():
                assert client.get(path).status_code == 200
        for _ in range(PAGE_RUNS):
            for name, client in clients.items():
                for delta, into in ((1, entered), (-1, left)):
                    form = {"printing_id": unowned[name], "delta": delta, "next": path}
                    assert client.post("/collection/items", data=form).status_code == 303
                    _timed_get(client, path, into[name])
        out.append((f"{label}, after a new card (0 → 1)", entered))
        out.append((f"{label}, after a card leaves (1 → 0)", left))
    return out


def test_collection_page_speed(catalogue: Path, tmp_path: Path) -> None:
    """GET /collection for a user owning BENCH_COLLECTION_ITEMS (50,000) distinct printings.

    Targets: ≤ 150 ms server time for a filtered, paginated page on SQLite; any page
    ≤ 50 ms on both databases, PostgreSQL side by side with SQLite.
    """
    from catalog.collection.grades import ItemGrade
    from catalog.collection.ledger import apply_deltas
    from catalog.collection.ordering import store_ranks
    from webapp.db import dispose

    sqlite_url = f"sqlite:///{tmp_path / 'pages.sqlite3'}"
    engines = [("SQLite", catalog_db.make_engine(sqlite_url), sqlite_url)]
    postgres = _postgres(PAGES_DATABASE)
    if postgres is not None:
        engines.append(("PostgreSQL", postgres, postgres.url.render_as_string(hide_password=False)))
    clients: dict[str, Any] = {}
    ordering_stored: dict[str, float] = {}  # database → ms to make and store the orders
    printing: dict[str, int] = {}
    unowned: dict[str, int] = {}
    apps = []
    for label, engine, url in engines:
        catalog_db.upgrade(engine)
        with catalog_db.transaction(engine) as session:
            import_catalogue(session=session, paths=[catalogue])
            session.add(User(username="pages", username_key="pages", password_hash="-", created_at=NOW))
        vacuum_after_import(engine)  # as `lunzang import` does after the import (PostgreSQL)
        started = time.perf_counter()
        with catalog_db.transaction(engine) as session:  # as `lunzang import` does after the import
            store_ranks(session=session)
        ordering_stored[label] = (time.perf_counter() - started) * 1000
        with Session(engine) as session:
            user_id = session.scalars(select(User.id).where(User.username == "pages")).one()
            ids = session.scalars(select(Printing.id).order_by(Printing.id)).all()
        rng = random.Random(7)
        chosen = rng.sample(list(ids), PAGE_ITEMS)
        printing[label] = min(chosen)  # the first item of page 1: changed by the "after a change" runs
        unowned[label] = min(set(ids) - set(chosen))  # enters and leaves page 1
        grade = ItemGrade()
        with catalog_db.transaction(engine) as session:
            apply_deltas(
                session=session,
                user_id=user_id,
                deltas={(p, grade): rng.randint(1, 4) for p in chosen},
                reason="manual",
                now=NOW,
            )
        with engine.begin() as connection:
            connection.exec_driver_sql("ANALYZE")
        clients[label], app = _client(engine, url, tmp_path / label)
        apps.append(app)
    loads = [os.getloadavg()[0]]
    try:
        timings = _page_timings(clients, printing, unowned)
    finally:
        for app in apps:
            dispose(app)
        for _label, engine, _url in engines:
            engine.dispose()
    loads.append(os.getloadavg()[0])
    from statistics import median, quantiles

    names = list(clients)
    lines = [
        f"\nGET /collection, {PAGE_ITEMS:,} distinct printings owned of {PRINTINGS:,}: median and p95 of {PAGE_RUNS} "
        f"runs in ms, the databases taking turns (target: any page ≤ {PAGE_TARGET} ms on both; "
        f"load {min(loads):.1f}–{max(loads):.1f}); cpu: this process's median (SQLite's work included, "
        "PostgreSQL's server not)",
        f"  {'page':<36}" + "".join(f"{name + ' median':>19}{'p95':>7}{'cpu':>6}" for name in names) + "  ≤ 50?",
    ]
    for label, times in timings:
        cells = ""
        worst = 0.0
        for name in names:
            wall, cpu = times[name]
            middle, p95 = median(wall), quantiles(wall, n=20)[18]
            cells += f"{middle:19.1f}{p95:7.1f}{median(cpu):6.1f}"
            worst = max(worst, middle)
        lines.append(f"  {label:<36}{cells}  {'yes' if worst <= PAGE_TARGET else 'NO'}")
    stored = ", ".join(f"{name} {ms:.0f} ms" for name, ms in ordering_stored.items())
    lines.append(f"  the collection orders made and stored after the import (once per import): {stored}")
    print("\n".join(lines))
