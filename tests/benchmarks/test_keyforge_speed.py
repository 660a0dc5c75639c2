"""KeyForge as it really is, ``make bench BENCH_ARGS="-k keyforge"``: every real set
in one import run (≤ 10 s, and its peak traced memory), and a deck page (≤ 50 ms). Needs
../shared/realdata (or LUNZANG_REALDATA); PostgreSQL too when KF_BENCH_POSTGRES_URL names a
database of one's own (its name must contain "test")."""

from __future__ import annotations

import os
import statistics
import time
import tracemalloc
from pathlib import Path

import pytest

from catalog import db as catalog_db
from catalog.ingest import import_catalogue
from tests.conftest import REALDATA

SETS = ("CotA", "AoA", "WC", "MM", "DT", "WoE", "AS", "PV", "CC", "ToC", "MG24")
FILES = [REALDATA / f"keyforge-{code}.json" for code in SETS]
DECKS = REALDATA / "keyforge-standalone-decks.json"
pytestmark = pytest.mark.skipif(
    not all(f.is_file() for f in [*FILES, DECKS]), reason=f"needs the real KeyForge data in {REALDATA} (absent here)"
)
POSTGRES = os.environ.get("KF_BENCH_POSTGRES_URL", "")


def _urls(tmp_path: Path) -> list[tuple[str, str]]:
    urls = [("SQLite", f"sqlite:///{tmp_path / 'kf.sqlite3'}")]
    if POSTGRES and "test" in POSTGRES.rsplit("/", 1)[-1]:
        urls.append(("PostgreSQL", POSTGRES))
    return urls


def _fresh(url: str):
    engine = catalog_db.make_engine(url)
    if url.startswith("postgresql"):
        from catalog.models import load_all

        load_all().drop_all(engine)
        with engine.begin() as connection:
            connection.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
    catalog_db.upgrade(engine)
    return engine


def test_keyforge_all_sets_in_one_run(tmp_path: Path) -> None:
    load = os.getloadavg()
    for label, url in _urls(tmp_path):
        engine = _fresh(url)
        started = time.perf_counter()
        with catalog_db.transaction(engine) as session:
            report = import_catalogue(session=session, paths=FILES)
        seconds = time.perf_counter() - started
        started = time.perf_counter()
        with catalog_db.transaction(engine) as session:
            again = import_catalogue(session=session, paths=FILES)
        reimport = time.perf_counter() - started
        engine.dispose()
        engine = _fresh(url)
        tracemalloc.start()
        with catalog_db.transaction(engine) as session:
            import_catalogue(session=session, paths=FILES)
        _current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        engine.dispose()
        print(
            f"\nKeyForge 11 sets, {label}: {report.printings.added} printings in {seconds:.2f} s "
            f"(re-import, a no-op: {reimport:.2f} s, changed={again.changed}); "
            f"peak traced memory {peak / 1e6:.1f} MB; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
        )
        assert report.printings.added == 4574 and not again.changed
        assert seconds <= 10.0


def test_keyforge_deck_page(tmp_path: Path) -> None:
    from webapp import create_app

    url = f"sqlite:///{tmp_path / 'web.sqlite3'}"
    engine = _fresh(url)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=FILES)
    from catalog.collection.owned_decks import import_known_decks
    from webapp.helpers import utcnow

    with catalog_db.transaction(engine, write=True) as session:
        ids = [r.id for r in import_known_decks(session=session, text=DECKS.read_text(encoding="utf-8"), now=utcnow())]
    engine.dispose()
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False})
    app.instance_path = str(tmp_path / "instance")
    client = app.test_client()
    assert client.get(f"/decks/known/{ids[0]}").status_code == 200  # warm: the card pool, templates
    times = []
    for _round in range(5):
        for deck_id in ids:
            started = time.perf_counter()
            response = client.get(f"/decks/known/{deck_id}")
            times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200
    load = os.getloadavg()
    median, worst = statistics.median(times), max(times)
    p90 = sorted(times)[int(len(times) * 0.9)]
    print(
        f"\nKeyForge deck page: median {median:.1f} ms, p90 {p90:.1f} ms, max {worst:.1f} ms over {len(times)} "
        f"requests; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    assert median <= 50.0
