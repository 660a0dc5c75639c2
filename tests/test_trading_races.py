"""Trading neither makes nor loses a card: races on real databases (threads, SQLite file or
PostgreSQL) and a randomized 1,000-operation run, after which no card was made or lost.

Cited failures elsewhere: two simultaneous accepts duplicating cards; accepting more copies
than owned; SteamKey.Trade accepting an item that was gone.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.collection import import_collection
from catalog.collection.ledger import BadTradeQuantity, NegativeQuantity, adjust, check_ledger
from catalog.errors import LunzangError
from catalog.models import CollectionItem, LedgerEntry, Trade
from catalog.models.trade_columns import OFFERED
from catalog.trading import TradeSettings, accept, cancel, counter, decline, mark_received, mark_sent, propose
from catalog.trading.reservation import LineSpec, available, held
from tests.kits.trade import NOW, NUMBERS, Kit, make_kit, race, tx, won


@pytest.fixture
def kit(engine: Engine, make_user, tmp_path: Path) -> Kit:
    return make_kit(engine, make_user, tmp_path, names=("alice", "bob", "carol", "dave", "erin"))


def offer(kit: Kit, frm: str, to: str, give=(), get=(), mode: str = "local") -> int:
    with tx(kit.engine) as session:
        trade = propose(
            session=session,
            proposer_id=kit.users[frm],
            recipient_id=kit.users[to],
            give=list(give),
            get=list(get),
            mode=mode,
            now=NOW,
        )
        assert trade.id is not None
        return trade.id


@pytest.mark.parametrize("round_", range(3))
def test_two_accepts_of_offers_sharing_copies_settle_exactly_one(kit: Kit, round_: int) -> None:
    kit.stock("alice", "T1-001", 1, 1)
    kit.stock("bob", "T1-002", 1, 1)
    kit.stock("carol", "T1-003", 1, 1)
    # bob and carol both ask for alice's single copy; alice (in two tabs) accepts both at once
    from_bob = offer(kit, "bob", "alice", give=[kit.line("T1-002")], get=[kit.line("T1-001")])
    from_carol = offer(kit, "carol", "alice", give=[kit.line("T1-003")], get=[kit.line("T1-001")])
    alice = kit.users["alice"]
    results = race(
        kit.engine,
        lambda s: accept(session=s, trade_id=from_bob, user_id=alice, version=1, now=NOW),
        lambda s: accept(session=s, trade_id=from_carol, user_id=alice, version=1, now=NOW),
    )
    assert sorted(won(results)) == [False, True]
    loser = next(r for r in results if isinstance(r, Exception))
    assert loser.code in ("unavailable", "needs_attention")
    assert kit.owned("alice", "T1-001") == (0, 0)
    assert kit.owned("bob", "T1-001")[0] + kit.owned("carol", "T1-001")[0] == 1
    assert kit.ledger_rows("trade") == 4


def test_two_users_accepting_offers_that_use_the_same_copies(kit: Kit) -> None:
    kit.stock("alice", "T1-001", 1, 1)
    kit.stock("carol", "T1-003", 1, 1)
    # carol asks for alice's copy; then alice offers that copy to bob: bob and alice accept at once
    from_carol = offer(kit, "carol", "alice", give=[kit.line("T1-003")], get=[kit.line("T1-001")])
    to_bob = offer(kit, "alice", "bob", give=[kit.line("T1-001")])
    results = race(
        kit.engine,
        lambda s: accept(session=s, trade_id=to_bob, user_id=kit.users["bob"], version=1, now=NOW),
        lambda s: accept(session=s, trade_id=from_carol, user_id=kit.users["alice"], version=1, now=NOW),
    )
    assert sorted(won(results)) == [False, True]
    assert kit.owned("alice", "T1-001") == (0, 0)
    assert kit.owned("bob", "T1-001")[0] + kit.owned("carol", "T1-001")[0] == 1


@pytest.mark.parametrize("round_", range(3))
def test_accept_racing_cancel(kit: Kit, round_: int) -> None:
    kit.stock("alice", "T1-001", 1, 1)
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001")])
    results = race(
        kit.engine,
        lambda s: accept(session=s, trade_id=tid, user_id=kit.users["bob"], version=1, now=NOW),
        lambda s: cancel(session=s, trade_id=tid, user_id=kit.users["alice"], now=NOW),
    )
    accepted, cancelled = won(results)
    assert accepted != cancelled
    status = kit.trade(tid).status
    assert status == ("completed" if accepted else "cancelled")
    assert kit.owned("bob", "T1-001") == ((1, 0) if accepted else (0, 0))
    assert kit.owned("alice", "T1-001") == ((0, 0) if accepted else (1, 1))


@pytest.mark.parametrize("round_", range(3))
def test_accept_racing_the_givers_minus_one(kit: Kit, round_: int) -> None:
    kit.stock("alice", "T1-001", 1, 1)
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001")])
    pid = kit.pids["T1-001"]
    results = race(
        kit.engine,
        lambda s: accept(session=s, trade_id=tid, user_id=kit.users["bob"], version=1, now=NOW),
        lambda s: adjust(session=s, user_id=kit.users["alice"], printing_id=pid, delta=-1, reason="manual", now=NOW),
    )
    accepted, removed = won(results)
    assert accepted != removed  # the one copy went one way
    assert kit.owned("alice", "T1-001") == (0, 0)
    assert kit.owned("bob", "T1-001") == ((1, 0) if accepted else (0, 0))
    if removed:
        assert kit.trade(tid).needs_attention and kit.trade(tid).status == "proposed"
        assert isinstance(results[0], LunzangError) and results[0].code in ("needs_attention", "unavailable")
    else:
        assert isinstance(results[1], NegativeQuantity)


# ----------------------------------------------------------------------------- randomized run

OPERATIONS = 1000
THREADS = 4


def _random_lines(rng: random.Random, pool: dict[Any, int]) -> list[LineSpec]:
    keys = sorted(pool, key=lambda k: (k[0], k[1]))
    rng.shuffle(keys)
    return [LineSpec(pid, grade, rng.randint(1, pool[(pid, grade)] + 1)) for pid, grade in keys[: rng.randint(0, 2)]]


def _operation(kit: Kit, rng: random.Random, names: list[str]) -> Callable[[Session], Any]:
    """One random operation (drawn from a per-thread seeded generator), as a function of a session."""
    kind = rng.choices(
        ["propose", "counter", "accept", "cancel", "decline", "sent", "received", "plus", "minus", "for_trade", "csv"],
        weights=[20, 8, 20, 5, 3, 5, 8, 10, 8, 5, 3],
    )[0]
    me, other = rng.sample(names, 2)
    uid, oid = kit.users[me], kit.users[other]
    mode = rng.choice(["local", "local", "mail"])
    number = rng.choice(NUMBERS[:5])
    pid = kit.pids[number]
    pick = rng.random()

    def pick_trade(session: Session, statuses: tuple[str, ...]) -> Trade | None:
        trades = session.scalars(
            select(Trade)
            .where(Trade.status.in_(statuses), (Trade.proposer_id == uid) | (Trade.recipient_id == uid))
            .order_by(Trade.id)
        ).all()
        return trades[int(pick * len(trades))] if trades else None

    def run(session: Session) -> Any:
        if kind == "propose":
            mine, theirs = available(session, user_id=uid, now=NOW), available(session, user_id=oid, now=NOW)
            give, get = _random_lines(rng_copy, mine), _random_lines(rng_copy, theirs)
            return propose(
                session=session,
                proposer_id=uid,
                recipient_id=oid,
                give=give,
                get=get,
                mode=mode,
                now=NOW,
                settings=TradeSettings(new_account_trades=0),
            )
        if kind in ("counter", "accept", "cancel", "decline"):
            trade = pick_trade(session, OFFERED if kind != "cancel" else (*OFFERED, "accepted"))
            if trade is None:
                return None
            assert trade.id is not None
            if kind == "accept":
                return accept(session=session, trade_id=trade.id, user_id=uid, version=trade.version, now=NOW)
            if kind == "cancel":
                return cancel(session=session, trade_id=trade.id, user_id=uid, now=NOW)
            if kind == "decline":
                return decline(session=session, trade_id=trade.id, user_id=uid, now=NOW)
            partner = trade.recipient_id if uid == trade.proposer_id else trade.proposer_id
            give = _random_lines(rng_copy, available(session, user_id=uid, now=NOW))
            get = _random_lines(rng_copy, available(session, user_id=partner, now=NOW))
            return counter(
                session=session, trade_id=trade.id, user_id=uid, version=trade.version, give=give, get=get, now=NOW
            )
        if kind in ("sent", "received"):
            trade = pick_trade(session, ("accepted",))
            if trade is None or trade.mode != "mail":
                return None
            assert trade.id is not None
            action = mark_sent if kind == "sent" else mark_received
            return action(session=session, trade_id=trade.id, user_id=uid, now=NOW)
        if kind in ("plus", "minus"):
            delta = 1 if kind == "plus" else -1
            return adjust(
                session=session,
                user_id=uid,
                printing_id=pid,
                delta=delta,
                trade_delta=max(delta, 0) * (pick > 0.3),
                reason="manual",
                now=NOW,
            )
        if kind == "for_trade":
            from catalog.collection.ledger import set_for_trade

            return set_for_trade(session=session, user_id=uid, printing_id=pid, for_trade=int(pick * 3), now=NOW)
        csv = f"set,number,quantity,for_trade\nT1,{number},{1 + int(pick * 3)},{int(pick * 2)}\n"
        return import_collection(
            session=session, user_id=uid, data=csv.encode(), mode="add" if pick < 0.6 else "replace", now=NOW
        )

    rng_copy = random.Random(rng.random())
    return run


def test_randomized_trading_never_makes_or_loses_a_card(kit: Kit) -> None:
    names = list(kit.users)
    for name in names:
        for number in NUMBERS[:5]:
            kit.stock(name, number, 3, 2)
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(OPERATIONS // THREADS):
            action = _operation(kit, rng, names)
            try:
                with tx(kit.engine) as session:
                    result = action(session)
                label = "ok" if result is not None else "noop"
            except (LunzangError, NegativeQuantity, BadTradeQuantity) as error:
                label = error.code
            except Exception as error:
                label = f"{type(error).__name__}: {error}"[:3000]
            with lock:
                outcomes[label] += 1

    threads = [threading.Thread(target=worker, args=(13_000 + i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    assert sum(outcomes.values()) == OPERATIONS, outcomes
    unexpected = [label for label in outcomes if ":" in label]
    assert not unexpected, unexpected  # a deadlock, a unique violation, a 500 of any kind
    assert outcomes["ok"] > 300, outcomes  # the run did real work, not only refusals
    with Session(kit.engine) as session:
        assert check_ledger(session) == []  # sums match; no quantity < 0; 0 ≤ for trade ≤ quantity
        settled = session.scalar(select(func.count()).select_from(Trade).where(Trade.status == "completed"))
        assert settled and settled > 10, outcomes
        # held ≤ for trade, for every user and item
        for uid in kit.users.values():
            items = {
                (i.printing_id, (i.condition, i.language, i.finish)): i.for_trade
                for i in session.scalars(select(CollectionItem).where(CollectionItem.user_id == uid))
            }
            for (pid, grade), copies in held(session, giver_id=uid, now=NOW).items():
                key = (pid, (grade.condition, grade.language, grade.finish))
                assert copies <= items.get(key, 0), (uid, pid, copies, items.get(key))
        # conservation: per printing and grade, trade rows add up to zero (cards only changed hands)
        trade_sums = session.execute(
            select(LedgerEntry.printing_id, LedgerEntry.condition, func.sum(LedgerEntry.delta))
            .where(LedgerEntry.reason == "trade")
            .group_by(LedgerEntry.printing_id, LedgerEntry.condition)
        ).all()
        assert trade_sums and all(total == 0 for *_k, total in trade_sums)
        totals = dict(
            session.execute(
                select(CollectionItem.printing_id, func.sum(CollectionItem.quantity)).group_by(
                    CollectionItem.printing_id
                )
            ).all()
        )
        outside = dict(
            session.execute(
                select(LedgerEntry.printing_id, func.sum(LedgerEntry.delta))
                .where(LedgerEntry.reason != "trade")
                .group_by(LedgerEntry.printing_id)
            ).all()
        )
        assert totals == outside
        # each side of each trade settled at most once
        per_side = session.execute(
            select(LedgerEntry.ref, LedgerEntry.user_id, LedgerEntry.printing_id, func.count())
            .where(LedgerEntry.reason == "trade", LedgerEntry.delta < 0)
            .group_by(LedgerEntry.ref, LedgerEntry.user_id, LedgerEntry.printing_id)
        ).all()
        assert all(count == 1 for *_k, count in per_side)
    print(dict(outcomes))
