"""A million printings: opt-in, ``make bench BENCH_ARGS="-k million"`` (or
``BENCH_MILLION=1``); a plain ``make bench`` skips it, since it takes a quarter of an hour.

The same run measures ``BENCH_MILLION_SIZES`` (default 100,000 and 1,000,000 printings) so each
figure's growth is of one moment, on PostgreSQL and SQLite (``BENCH_MILLION_DATABASES``,
default both; PostgreSQL when ``BENCH_POSTGRES_URL`` answers; ``BENCH_SYNTH_DIR`` keeps the
synthetic catalogues there between runs). Per size and database:

- the import of the synthetic catalogue, in a child process: wall time, printings/s and the
  child's peak resident memory (its own VmHWM), which says whether the importer streams or
  holds the catalogue;
- search: the 20-query mix of ``test_search_speed``, median and p95 of ``search()``;
- a deck check: the 60-card deck of ``test_deck_check_catalogue`` (10 unknown names), cold
  and warm median;
- a collection page: ``collection_page`` for a user owning ``BENCH_COLLECTION_ITEMS`` (50,000)
  printings, page 1 and a page near the end, median (the placing kept), and page 1 placed anew
  in set and in name order; before them, the collection orders stored as ``lunzang import``
  does after an import (seconds).

Then a table of the growth factor of each figure from the smallest size to the largest (10×
the printings: ≤ 10 is linear or better). Figures only; the asserts are that things answered.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.ingest.synth import write_synthetic_catalogue
from catalog.models import Printing, User
from tests.benchmarks.test_search_speed import QUERIES, SERVER_URL, _postgres_server

SIZES = [int(n) for n in os.environ.get("BENCH_MILLION_SIZES", "100000,1000000").split(",")]
DATABASES = os.environ.get("BENCH_MILLION_DATABASES", "PostgreSQL,SQLite").split(",")
PREFIX = os.environ.get("BENCH_DATABASE_PREFIX", "lunzang_bench") + "_million"
ITEMS = int(os.environ.get("BENCH_COLLECTION_ITEMS", "50000"))
REPEAT = int(os.environ.get("BENCH_MILLION_REPEAT", "5"))
NOW = datetime(2026, 6, 1, tzinfo=UTC)

IMPORT_CHILD = """
import sys, time
from pathlib import Path
from catalog import db
from catalog.ingest import import_catalogue
engine = db.make_engine(sys.argv[1])
db.upgrade(engine)
started = time.perf_counter()
with db.transaction(engine) as session:
    report = import_catalogue(session=session, paths=[Path(sys.argv[2])])
seconds = time.perf_counter() - started
with open("/proc/self/status") as status:  # this process's own peak (kB), see _import
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
from catalog.ingest import vacuum_after_import
vacuum_after_import(engine)  # as `lunzang import` does after the commit (not in the import's time)
print(seconds, report.printings.added, peak)
"""


@pytest.fixture(autouse=True)
def _opt_in(request: pytest.FixtureRequest) -> None:
    if "million" not in (request.config.getoption("keyword") or "") and os.environ.get("BENCH_MILLION") != "1":
        pytest.skip('opt-in: make bench BENCH_ARGS="-k million" (or BENCH_MILLION=1); it takes minutes')


def _url(database: str, size: int, directory: Path) -> str | None:
    if database == "SQLite":
        return f"sqlite:///{directory / f'million-{size}.sqlite3'}"
    if _postgres_server() is None:
        return None
    from sqlalchemy.engine import make_url

    name = f"{PREFIX}_{size}"
    server = catalog_db.make_engine(SERVER_URL, isolation_level="AUTOCOMMIT")
    with server.connect() as connection:
        connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}")
        connection.exec_driver_sql(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8'")
    server.dispose()
    return make_url(SERVER_URL).set(database=name).render_as_string(hide_password=False)


def _import(url: str, folder: Path) -> tuple[float, float, float]:
    """(seconds, CPU seconds, peak resident MB) of importing ``folder`` in a child process.

    The peak is the child's own VmHWM: ``wait4``'s ``ru_maxrss`` keeps the resident size the
    child inherited at the fork from this (large) pytest process, which made earlier figures
    of this benchmark the parent's size rather than the importer's (4.5 GB "at a million" on
    SQLite, after the PostgreSQL run had grown this process)."""
    with subprocess.Popen(
        [sys.executable, "-c", IMPORT_CHILD, url, str(folder)], stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None
        output = child.stdout.read()
        _pid, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    assert child.returncode == 0, output
    seconds, _added, peak_kb = output.split()
    return float(seconds), usage.ru_utime + usage.ru_stime, int(peak_kb) / 1024


def _median_p95(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _timed(run: Any, repeat: int) -> list[float]:
    run()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _measure(url: str, size: int) -> dict[str, float]:
    from catalog.collection.grades import ItemGrade
    from catalog.collection.ledger import apply_deltas
    from catalog.collection.listing import cache_clear
    from catalog.collection.ordering import store_ranks
    from catalog.collection.reads import collection_page
    from catalog.decks.check import check_decklist
    from catalog.search import search
    from tests.benchmarks.test_deck_check_catalogue import _deck

    engine = catalog_db.make_engine(url)
    with engine.connect() as connection:
        connection.exec_driver_sql("ANALYZE")
        connection.commit()
    figures: dict[str, float] = {}
    started = time.perf_counter()
    with catalog_db.transaction(engine) as session:  # as `lunzang import` does after the import
        store_ranks(session=session)
    figures["collection orders stored s"] = time.perf_counter() - started
    with Session(engine) as session:
        samples: list[float] = []
        for query in QUERIES:
            samples += _timed(lambda q=query: search(session=session, text=q), REPEAT)
        figures["search median ms"], figures["search p95 ms"] = _median_p95(samples)
    deck = _deck(url)
    with Session(engine) as session:
        started = time.perf_counter()
        check_decklist(session=session, text=deck, game="samsara")
        figures["deck check cold ms"] = (time.perf_counter() - started) * 1000
        warm = _timed(lambda: check_decklist(session=session, text=deck, game="samsara"), REPEAT * 2)
        figures["deck check warm ms"] = statistics.median(warm)
    with catalog_db.transaction(engine) as session:
        session.add(User(username="pages", username_key="pages", password_hash="-", created_at=NOW))
    with Session(engine) as session:
        user_id = session.scalars(select(User.id).where(User.username == "pages")).one()
        ids = list(session.scalars(select(Printing.id).order_by(Printing.id)))
    rng = random.Random(7)
    chosen = rng.sample(ids, min(ITEMS, len(ids)))
    with catalog_db.transaction(engine) as session:
        apply_deltas(
            session=session,
            user_id=user_id,
            deltas={(p, ItemGrade()): rng.randint(1, 4) for p in chosen},
            reason="manual",
            now=NOW,
        )
    with engine.connect() as connection:
        connection.exec_driver_sql("ANALYZE")
        connection.commit()
    with Session(engine) as session:
        last = max(1, (len(chosen) // 50) * 6 // 10)
        for label, page in (("collection page 1 ms", 1), ("collection page at 60% ms", last)):
            figures[label] = statistics.median(
                _timed(lambda page=page: collection_page(session=session, user_id=user_id, page=page), REPEAT * 2)
            )
        for label, order in (("page 1 placed anew ms", "set"), ("by name, placed anew ms", "name")):

            def anew(order: str = order) -> None:
                cache_clear(ranks=False)  # no placing kept; the orders as stored
                collection_page(session=session, user_id=user_id, order=order)

            figures[label] = statistics.median(_timed(anew, REPEAT * 2))
    engine.dispose()
    return figures


def test_a_million_printings(tmp_path_factory: pytest.TempPathFactory) -> None:
    results: dict[tuple[str, int], dict[str, float]] = {}
    loads = [os.getloadavg()[0]]
    for size in SIZES:
        started = time.perf_counter()
        kept = Path(os.environ["BENCH_SYNTH_DIR"]) / f"synth{size}" if os.environ.get("BENCH_SYNTH_DIR") else None
        if kept is not None and (kept / "samsara-synth" / "manifest.toml").exists():
            folder = kept / "samsara-synth"  # written by an earlier run (the generator is deterministic)
        else:
            out = kept or tmp_path_factory.mktemp(f"synth{size}")
            folder = write_synthetic_catalogue(out, printings=size, seed=1)
        print(f"\n{size:,} printings ready in {time.perf_counter() - started:.0f} s ({folder})")
        for database in DATABASES:
            url = _url(database, size, tmp_path_factory.mktemp(f"db{size}"))
            if url is None:
                print(f"{database} not measured: no server")
                continue
            load = os.getloadavg()[0]
            seconds, cpu, peak = _import(url, folder)
            figures = {
                "import s": seconds,
                "import CPU s": cpu,
                "printings/s": size / seconds,
                "import peak RSS MB": peak,
            }
            figures["load at import"] = load
            figures |= _measure(url, size)
            figures["load after"] = os.getloadavg()[0]
            results[(database, size)] = figures
            loads += [load, figures["load after"]]
            print(f"  {database}: " + ", ".join(f"{k} {v:,.1f}" for k, v in figures.items()), flush=True)
            _table(results, database)
    print(f"\nA million printings: load average {min(loads):.1f}–{max(loads):.1f}")
    for database in DATABASES:
        _table(results, database)
    assert results


def _table(results: dict[tuple[str, int], dict[str, float]], database: str) -> None:
    """The figures of every size side by side, and the growth from the smallest to the largest
    (for 10× the printings, ×10 is linear; the import's memory is also given per printing)."""
    sizes = [size for size in SIZES if (database, size) in results]
    if not sizes:
        return
    small, large = sizes[0], sizes[-1]
    header = "".join(f"{f'{size:,}':>14}" for size in sizes)
    print(f"\n{database}: {' → '.join(f'{size:,}' for size in sizes)} printings (×{large / small:.0f})")
    print(f"  {'':<28}{header}   growth")
    for key in results[(database, small)]:
        values = [results[(database, size)][key] for size in sizes]
        growth = f"×{values[-1] / values[0]:.2f}" if values[0] and len(sizes) > 1 else ""
        print(f"  {key:<28}" + "".join(f"{v:14,.1f}" for v in values) + f"   {growth}")
    if len(sizes) > 1:
        grown = results[(database, large)]["import peak RSS MB"] - results[(database, small)]["import peak RSS MB"]
        print(f"  import peak RSS grows {grown * 1024 * 1024 / (large - small):,.0f} bytes per printing", flush=True)
