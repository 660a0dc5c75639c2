"""Builders for the trading tests: a tiny catalogue (8 printings), users holding cards for trade.

Everything goes through the real use cases (import, ledger, trading) in committed writer
transactions, so the tests see what concurrent requests would see.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.accounts import issue_token
from catalog.collection.grades import ItemGrade
from catalog.collection.ledger import adjust
from catalog.errors import LunzangError
from catalog.ingest import import_catalogue
from catalog.models import CardSet, LedgerEntry, Printing, Trade
from catalog.trading import LineSpec
from tests.kits.catalogue import write_catalogue

NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)
NM = ItemGrade()
RARITIES = ("C", "C", "R", "R", "PR", "UR", "SR", "C")
NUMBERS = [f"T1-{n:03d}" for n in range(1, 9)]


def write_tiny_catalogue(folder: Path) -> Path:
    """A samsara folder with one set T1 of eight cards (import format, DESIGN §3)."""
    header = "set,number,name,rarity,type,attribute,cost,attack,defense,text"
    rows = [header]
    names = ["赤焰剑士", "碧波术士", "疾风游侠", "厚土卫士", "圣光骑士", "暗影刺客", "龙王", "法力之泉"]
    for number, name, rarity in zip(NUMBERS, names, RARITIES, strict=True):
        rows.append(f"T1,{number},{name},{rarity},战魂,火,2火,2,2,测试用卡。")
    sets = [
        {"code": "T1", "name": "交易测试", "series": "M", "kind": "booster"},
        {"code": "T2", "name": "再版", "series": "G", "kind": "collection"},
    ]
    cards = {
        "T1.csv": "\n".join(rows) + "\n",
        # T2 reprints the first card: a card with two printings, for printing-specific wants
        "T2.csv": f"{header}\nT2,T2-001,赤焰剑士,R,战魂,火,2火,2,2,测试用卡。\n",
    }
    return write_catalogue(folder, "samsara", sets, cards, name="永恒之轮")


@contextmanager
def tx(engine: Engine) -> Iterator[Session]:
    """One writer transaction, as a non-GET request has (BEGIN IMMEDIATE on SQLite)."""
    with catalog_db.transaction(engine, write=True) as session:
        yield session


@dataclass
class Kit:
    engine: Engine
    users: dict[str, int] = field(default_factory=dict)
    pids: dict[str, int] = field(default_factory=dict)

    def line(self, number: str, quantity: int = 1, grade: ItemGrade = NM) -> LineSpec:
        return LineSpec(self.pids[number], grade, quantity)

    def stock(self, user: str, number: str, quantity: int, for_trade: int | None = None, grade: ItemGrade = NM) -> None:
        with tx(self.engine) as session:
            adjust(
                session=session,
                user_id=self.users[user],
                printing_id=self.pids[number],
                grade=grade,
                delta=quantity,
                trade_delta=quantity if for_trade is None else for_trade,
                reason="manual",
                now=NOW - timedelta(days=1),
            )

    def owned(self, user: str, number: str, grade: ItemGrade = NM) -> tuple[int, int]:
        from tests.kits.collection import owned

        with Session(self.engine) as session:
            return owned(session, self.users[user], self.pids[number], grade)

    def trade(self, trade_id: int) -> Trade:
        with Session(self.engine, expire_on_commit=False) as session:
            trade = session.get(Trade, trade_id)
            assert trade is not None
            return trade

    def trade_rows(self) -> int:
        with Session(self.engine) as session:
            return int(session.scalar(select(func.count()).select_from(Trade)) or 0)

    def ledger_rows(self, reason: str | None = None) -> int:
        with Session(self.engine) as session:
            query = select(func.count()).select_from(LedgerEntry)
            if reason:
                query = query.where(LedgerEntry.reason == reason)
            return int(session.scalar(query) or 0)


def make_kit(engine: Engine, make_user, tmp_path: Path, names=("alice", "bob", "carol")) -> Kit:
    folder = write_tiny_catalogue(tmp_path / "catalogue")
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[folder])
    kit = Kit(engine)
    with catalog_db.transaction(engine) as session:
        for name in names:
            kit.users[name] = make_user(session, name, lists_public=True).id
        rows = session.execute(
            select(Printing.number, Printing.id)
            .join(CardSet, CardSet.id == Printing.set_id)
            .where(CardSet.code.in_(["T1", "T2"]))
        )
        kit.pids = {number: pid for number, pid in rows}
    return kit


def headers(kit: Kit, name: str) -> dict[str, str]:
    from catalog.models import User

    with Session(kit.engine) as session, session.begin():
        user = session.get(User, kit.users[name])
        assert user is not None
        _row, token = issue_token(session=session, user=user, name="t", now=NOW)
    return {"Authorization": f"Bearer {token}"}


def race(engine: Engine, *actions: Callable[[Session], Any]) -> list[Any]:
    """Run each action in its own writer transaction, all released at once; result or error."""
    barrier = threading.Barrier(len(actions))
    results: list[Any] = [None] * len(actions)

    def run(index: int, action: Callable[[Session], Any]) -> None:
        barrier.wait()
        try:
            with tx(engine) as session:
                results[index] = action(session)
        except Exception as error:
            results[index] = error

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(actions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def won(results: list[Any]) -> list[bool]:
    for r in results:
        assert r is None or not isinstance(r, Exception) or isinstance(r, LunzangError), repr(r)
    return [not isinstance(r, Exception) for r in results]
