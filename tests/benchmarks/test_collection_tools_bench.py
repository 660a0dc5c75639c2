"""Collection files from other tools (``make bench BENCH_ARGS="-k tool_files"``).

Over a synthetic catalogue of ``BENCH_PRINTINGS`` printings (default 100,000), a collection of
``BENCH_ROWS`` rows (default 100,000, our columns) is imported into one user, then exported in
each tool's preset (Deckbox, ManaBox, Moxfield) and as XLSX; each file is imported into a fresh
user (mode add, for real) and timed, with the peak growth of the process's resident memory
while it runs, and the CPU time (on a shared machine the wall clock waits for the other
processes: both are printed, with the load average). Targets: a preset file ≤ 10 s, the XLSX
≤ 20 s with memory bounded (read-only openpyxl streams the sheet: the peak stays near the CSV's).
A file over the 10 MB limit is reported as such and not imported. SQLite (PostgreSQL is
covered by the collection benchmark).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import export_collection, export_xlsx, import_collection
from catalog.collection.csvio import MAX_BYTES
from catalog.ingest import import_catalogue
from catalog.ingest.synth import write_synthetic_catalogue
from catalog.models import User
from tests.benchmarks.test_collection_bench import NOW, _csv

PRINTINGS = int(os.environ.get("BENCH_PRINTINGS", "100000"))
ROWS = int(os.environ.get("BENCH_ROWS", "100000"))


def _rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class _Peak:
    """The highest resident memory while the block runs, sampled every 20 ms."""

    def __enter__(self) -> _Peak:
        self.start = self.peak = _rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, _rss())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())

    @property
    def grew_mb(self) -> float:
        return (self.peak - self.start) / 1e6


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_synthetic_catalogue(tmp_path_factory.mktemp("synth"), printings=PRINTINGS, seed=1)


def test_tool_files_import_throughput(catalogue: Path, tmp_path: Path) -> None:
    engine = catalog_db.make_engine(f"sqlite:///{tmp_path / 'tools.sqlite3'}")
    catalog_db.upgrade(engine)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[catalogue])
        for name in ("source", "deckbox", "manabox", "moxfield", "lunzang", "xlsx"):
            session.add(User(username=name, username_key=name, password_hash="-", created_at=NOW))
    with Session(engine) as session:
        users = dict(session.execute(select(User.username, User.id)).all())
    with catalog_db.transaction(engine) as session:
        import_collection(session=session, user_id=users["source"], data=_csv(engine), now=NOW)
    lines = [f"\ncollection files from other tools, {ROWS:,} rows over {PRINTINGS:,} printings (SQLite):"]
    for preset in ("lunzang", "deckbox", "manabox", "moxfield", "xlsx"):
        with Session(engine) as session:
            if preset == "xlsx":
                data = export_xlsx(session=session, user_id=users["source"])
            else:
                data = export_collection(session=session, user_id=users["source"], preset=preset).encode()
        if len(data) > MAX_BYTES:
            lines.append(f"  {preset}: {len(data) / 1e6:.1f} MB, over the 10 MB limit: not imported")
            continue
        with _Peak() as peak:
            started, cpu = time.perf_counter(), time.process_time()
            with catalog_db.transaction(engine) as session:
                report = import_collection(session=session, user_id=users[preset], data=data, now=NOW)
            took, cpu = time.perf_counter() - started, time.process_time() - cpu
        target = 20 if preset == "xlsx" else 10
        lines.append(
            f"  {preset}: {len(data) / 1e6:.1f} MB, {report.rows:,} rows, {report.lines_added:,} items, "
            f"import {took:.2f} s, CPU {cpu:.2f} s (target ≤ {target} s), "
            f"resident memory +{peak.grew_mb:.0f} MB at the peak"
        )
        assert report.lines_added > 0 and report.preset == ("lunzang" if preset == "xlsx" else preset)
    lines.append(f"  load average {os.getloadavg()[0]:.2f}")
    engine.dispose()
    print("\n".join(lines))
