"""Trading benchmarks (``make bench BENCH_ARGS="-k trading"``): figures printed, never asserted.

``test_matching_speed``: matches for one user among ``BENCH_TRADE_USERS`` (default 1,000) public
users with ``BENCH_TRADE_LISTS`` (default 200) wants and 200 haves each, over a synthetic
catalogue of ``BENCH_TRADE_PRINTINGS`` (default 5,000) printings, on SQLite; ``BENCH_TRADE_PRINTING_WANTS``
(default 0.1) of the wanted cards have a printing want as well. Target:
≤ 300 ms. The data is written in bulk (items, wants and their ledger rows), not timed.

``test_settlement_throughput``: local trades of 10 lines (5 each way) proposed and accepted one
transaction each; trades/s of the accepts (the settlement) and of propose + accept, on SQLite
and, when ``DATABASE_URL`` names a PostgreSQL database, there too (its schema is rebuilt: give
it a test database).
"""

from __future__ import annotations

import os
import random
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import insert, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection.grades import ItemGrade
from catalog.collection.ledger import adjust
from catalog.ingest import import_catalogue
from catalog.ingest.synth import write_synthetic_catalogue
from catalog.models import Card, CollectionItem, LedgerEntry, Printing, User, WantItem, table_of
from catalog.trading import LineSpec, accept, propose
from catalog.trading.matching import find_matches

USERS = int(os.environ.get("BENCH_TRADE_USERS", "1000"))
LISTS = int(os.environ.get("BENCH_TRADE_LISTS", "200"))
PRINTINGS = int(os.environ.get("BENCH_TRADE_PRINTINGS", "5000"))
TRADES = int(os.environ.get("BENCH_TRADES", "100"))
# The share of wanted cards with a printing want too (half of them "in addition"): the wants then
# compete for the same copies and matching assigns them by a flow.
PRINTING_WANTS = float(os.environ.get("BENCH_TRADE_PRINTING_WANTS", "0.1"))
NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_synthetic_catalogue(tmp_path_factory.mktemp("synth"), printings=PRINTINGS, seed=13)


def _fresh_sqlite(tmp_path: Path, catalogue: Path) -> Engine:
    engine = catalog_db.make_engine(f"sqlite:///{tmp_path / 'trading.sqlite3'}")
    catalog_db.upgrade(engine)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[catalogue])
    return engine


def _postgres(catalogue: Path) -> Engine | None:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgresql") or "test" not in url.rsplit("/", 1)[-1]:
        print("PostgreSQL left out: DATABASE_URL does not name a PostgreSQL test database")
        return None
    engine = catalog_db.make_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql("DROP SCHEMA public CASCADE")
        connection.exec_driver_sql("CREATE SCHEMA public")
    catalog_db.upgrade(engine)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[catalogue])
    return engine


def _users(session: Session, count: int, prefix: str = "u") -> list[int]:
    rows = [
        {
            "username": f"{prefix}{i}",
            "username_key": f"{prefix}{i}",
            "password_hash": "!",
            "role": "user",
            "auth_version": 0,
            "lists_public": True,
            "keep_rules": {},
            "created_at": NOW,
        }
        for i in range(count)
    ]
    session.execute(insert(table_of(User)), rows)
    return list(session.scalars(select(User.id).where(User.username.like(f"{prefix}%")).order_by(User.id)))


def matching_data(engine: Engine) -> tuple[list[int], int, int]:
    """Writes the users, their haves (with ledger rows) and wants; returns (users, items, wants)."""
    rng = random.Random(13)
    with catalog_db.transaction(engine) as session:
        printings = session.execute(select(Printing.id, Printing.card_id)).all()
        card_ids = sorted({card for _p, card in printings})
        of_card: dict[int, list[int]] = {}
        for pid, card in printings:
            of_card.setdefault(card, []).append(pid)
        users = _users(session, USERS)
        items, ledger, wants = [], [], []
        for uid in users:
            for pid, _card in rng.sample(printings, LISTS):
                quantity = rng.randint(1, 3)
                trade = rng.randint(1, quantity)
                items.append(
                    {
                        "user_id": uid,
                        "printing_id": pid,
                        "condition": rng.choice(["NM", "LP", "MP"]),
                        "language": "简中",
                        "finish": "普通",
                        "quantity": quantity,
                        "for_trade": trade,
                        "note": "",
                        "updated_at": NOW,
                    }
                )
                ledger.append(
                    {k: items[-1][k] for k in ("user_id", "printing_id", "condition", "language", "finish")}
                    | {"delta": quantity, "trade_delta": trade, "reason": "manual", "ref": "", "at": NOW}
                )
            for card in rng.sample(card_ids, LISTS):
                wants.append(
                    {
                        "user_id": uid,
                        "card_id": card,
                        "printing_id": None,
                        "quantity": rng.randint(1, 2),
                        "min_condition": "MP",
                        "in_addition": False,
                        "updated_at": NOW,
                    }
                )
                if PRINTING_WANTS and rng.random() < PRINTING_WANTS:  # a printing want competing for the copies
                    wants.append(
                        wants[-1]
                        | {
                            "printing_id": rng.choice(of_card[card]),
                            "quantity": 1,
                            "min_condition": "NM",
                            "in_addition": rng.random() < 0.5,
                        }
                    )
        session.execute(insert(table_of(CollectionItem)), items)
        session.execute(insert(table_of(LedgerEntry)), ledger)
        session.execute(insert(table_of(WantItem)), wants)
    with engine.connect() as connection:
        connection.exec_driver_sql("ANALYZE")
    return users, len(items), len(wants)


def test_matching_speed(tmp_path: Path, catalogue: Path) -> None:
    engine = _fresh_sqlite(tmp_path, catalogue)
    started = time.perf_counter()
    users, items, wants = matching_data(engine)
    print(
        f"\nmatching data: {USERS} users × {LISTS} wants and haves, {PRINTINGS} printings "
        f"({items} items, {wants} wants) written in {time.perf_counter() - started:.1f} s"
    )
    timings, cpu, sizes = [], [], []
    for uid in users[:: max(1, USERS // 10)][:10]:
        with Session(engine) as session:
            t0, c0 = time.perf_counter(), time.process_time()
            found = find_matches(session=session, user_id=uid, now=NOW)
            timings.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            sizes.append(len(found))
    timings.sort()
    print(
        f"find_matches on SQLite: median {statistics.median(timings):.0f} ms, max {timings[-1]:.0f} ms "
        f"over {len(timings)} users, CPU time median {statistics.median(cpu):.0f} ms "
        f"(partners found: median {statistics.median(sizes):.0f}); target ≤ 300 ms; load {os.getloadavg()[0]:.1f}"
    )
    assert all(sizes)  # the data really overlaps: every user found partners
    engine.dispose()


def _settlement(engine: Engine, label: str) -> None:
    with catalog_db.transaction(engine, write=True) as session:
        a, b = _users(session, 2, prefix=f"trader{label}")
        pids = list(session.scalars(select(Printing.id).order_by(Printing.id).limit(10)))
        for i, pid in enumerate(pids):
            owner = a if i < 5 else b
            adjust(
                session=session,
                user_id=owner,
                printing_id=pid,
                delta=TRADES * 2,
                trade_delta=TRADES * 2,
                reason="manual",
                now=NOW,
            )
    mine = [LineSpec(pid, ItemGrade(), 1) for pid in pids[:5]]
    theirs = [LineSpec(pid, ItemGrade(), 1) for pid in pids[5:]]
    accept_time = total_time = 0.0
    for _ in range(TRADES):
        t0 = time.perf_counter()
        with catalog_db.transaction(engine, write=True) as session:
            trade = propose(session=session, proposer_id=a, recipient_id=b, give=mine, get=theirs, now=NOW)
            trade_id = trade.id
        t1 = time.perf_counter()
        with catalog_db.transaction(engine, write=True) as session:
            assert trade_id is not None
            assert accept(session=session, trade_id=trade_id, user_id=b, version=1, now=NOW).trade.status == "completed"
        t2 = time.perf_counter()
        accept_time += t2 - t1
        total_time += t2 - t0
    print(
        f"settlement on {label}: {TRADES / accept_time:.0f} trades/s (accept of 10 lines), "
        f"{TRADES / total_time:.0f} trades/s (propose + accept), {TRADES} trades"
    )
    with Session(engine) as session:
        assert (
            session.scalar(
                select(CollectionItem.quantity).where(
                    CollectionItem.user_id == b, CollectionItem.printing_id == pids[0]
                )
            )
            == TRADES
        )


def test_settlement_throughput(tmp_path: Path, catalogue: Path) -> None:
    engine = _fresh_sqlite(tmp_path, catalogue)
    _settlement(engine, "SQLite")
    engine.dispose()
    postgres = _postgres(catalogue)
    if postgres is not None:
        _settlement(postgres, "PostgreSQL")
        postgres.dispose()
    print("(the machine is shared: 2 cores for 7 agents; figures vary with the load)")


_ = Card  # the models package registers every table
