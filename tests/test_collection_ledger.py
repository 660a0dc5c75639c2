"""The ledger: every quantity change ledgered, never negative, race-free."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from catalog import db as catalog_db
from catalog.boosters import open_packs
from catalog.collection import (
    BadGrade,
    BadTradeQuantity,
    ItemGrade,
    NegativeQuantity,
    add_opening,
    adjust,
    change_for_trade,
    change_item,
    check_ledger,
    set_for_trade,
    set_note,
)
from catalog.collection.items import BadDelta
from catalog.lookup import UnknownPrinting
from catalog.models import CollectionItem, LedgerEntry
from tests.kits.collection import NOW, committed_user, owned, printing_id
from tests.kits.db import table_counts
from webapp.shapes.collection import CollectionItem as ItemShape


@pytest.fixture
def alice(sample_catalogue: Engine, make_user) -> int:
    return committed_user(sample_catalogue, make_user)


def test_adjust_adds_removes_and_ledgers(sample_catalogue: Engine, alice: int) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        pid = printing_id(session, "M4", "M4-001")
        change = adjust(session=session, user_id=alice, printing_id=pid, delta=3, reason="manual", now=NOW)
        assert (change.before, change.after) == (0, 3)
        adjust(session=session, user_id=alice, printing_id=pid, delta=-1, reason="manual", now=NOW)
        foil = ItemGrade("LP", "EN", "闪")
        adjust(session=session, user_id=alice, printing_id=pid, grade=foil, delta=2, reason="manual", now=NOW)
        assert owned(session, alice, pid) == (2, 0)
        assert owned(session, alice, pid, foil) == (2, 0)
        entries = session.scalars(select(LedgerEntry).order_by(LedgerEntry.id)).all()
        assert [(e.delta, e.condition, e.reason) for e in entries] == [
            (3, "NM", "manual"),
            (-1, "NM", "manual"),
            (2, "LP", "manual"),
        ]
        assert check_ledger(session) == []


def test_going_negative_is_refused_and_changes_nothing(sample_catalogue: Engine, alice: int) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        pid = printing_id(session, "M4", "M4-001")
        adjust(session=session, user_id=alice, printing_id=pid, delta=1, reason="manual", now=NOW)
    before = table_counts(sample_catalogue)
    for delta in (-2, -5):
        with pytest.raises(NegativeQuantity) as caught, catalog_db.transaction(sample_catalogue) as session:
            adjust(session=session, user_id=alice, printing_id=pid, delta=delta, reason="manual", now=NOW)
        assert caught.value.code == "negative_quantity"
        assert "小于 0" in caught.value.message.zh
    with pytest.raises(NegativeQuantity), catalog_db.transaction(sample_catalogue) as session:
        other = printing_id(session, "M4", "M4-002")  # never owned: no row is created
        adjust(session=session, user_id=alice, printing_id=other, delta=-1, reason="manual", now=NOW)
    assert table_counts(sample_catalogue) == before
    with Session(sample_catalogue) as session:
        assert owned(session, alice, pid) == (1, 0)


def test_for_trade_follows_the_quantity_down_and_is_ledgered(sample_catalogue: Engine, alice: int) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        pid = printing_id(session, "M4", "M4-001")
        adjust(session=session, user_id=alice, printing_id=pid, delta=4, reason="manual", now=NOW)
        set_for_trade(session=session, user_id=alice, printing_id=pid, for_trade=3, now=NOW)
        change = adjust(session=session, user_id=alice, printing_id=pid, delta=-3, reason="manual", now=NOW)
        assert (change.after, change.for_trade_after, change.trade_delta) == (1, 1, -2)
        last = session.scalars(select(LedgerEntry).order_by(LedgerEntry.id.desc())).first()
        assert last is not None and (last.delta, last.trade_delta) == (-3, -2)
        with pytest.raises(BadTradeQuantity):
            set_for_trade(session=session, user_id=alice, printing_id=pid, for_trade=2, now=NOW)
        with pytest.raises(BadTradeQuantity):
            set_for_trade(session=session, user_id=alice, printing_id=pid, for_trade=-1, now=NOW)
        assert set_note(session=session, user_id=alice, printing_id=pid, note=" 签名版 ", now=NOW)
        item = session.scalars(select(CollectionItem)).one()
        assert (item.quantity, item.for_trade, item.note) == (1, 1, "签名版")
        assert check_ledger(session) == []


def test_check_ledger_detects_a_quantity_changed_behind_its_back(sample_catalogue: Engine, alice: int) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        pid = printing_id(session, "M4", "M4-001")
        adjust(session=session, user_id=alice, printing_id=pid, delta=2, reason="manual", now=NOW)
    with Session(sample_catalogue) as session:
        assert check_ledger(session) == []
        session.execute(text("UPDATE collection_item SET quantity = 5"))
        problems = check_ledger(session)
        assert len(problems) == 1 and "quantity 5" in problems[0] and "(2, 0)" in problems[0]
        session.rollback()
        session.execute(text("DELETE FROM collection_item"))
        assert check_ledger(session) == [
            f"no item ({alice}, {pid}, 'NM', '简中', '普通'), but the ledger sums to (2, 0)"
        ]
        session.rollback()
        session.execute(text("UPDATE ledger_entry SET trade_delta = 1"))
        assert len(check_ledger(session)) == 1
        session.rollback()


def test_a_booster_opening_goes_into_the_collection(sample_catalogue: Engine, alice: int) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        opening = open_packs(session=session, set_code="M4", packs=3, seed=7)
        changes = add_opening(session=session, user_id=alice, opening=opening, now=NOW)
        assert sum(c.delta for c in changes) == len(opening.all_cards())
        refs = set(session.scalars(select(LedgerEntry.ref)))
        reasons = set(session.scalars(select(LedgerEntry.reason)))
        assert refs == {"M4 seed 7"} and reasons == {"pack"}
        again = add_opening(session=session, user_id=alice, opening=opening, now=NOW)
        assert all(c.after == 2 * c.before for c in again)


def _hammer(engine: Engine, work: list[tuple[int, int, str, int]]) -> list[str]:
    """Run each thread's list of deltas, one transaction per delta; returns what each attempt did."""
    outcomes: list[str] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def run(deltas: list[int], user_id: int, pid: int) -> None:
        try:
            for delta in deltas:
                try:
                    with catalog_db.transaction(engine) as session:
                        adjust(session=session, user_id=user_id, printing_id=pid, delta=delta, reason="manual", now=NOW)
                    result = f"ok{delta:+d}"
                except NegativeQuantity:
                    result = "refused"
                with lock:
                    outcomes.append(result)
        except BaseException as error:  # reported by the test below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(deltas, user_id, pid)) for user_id, pid, _name, deltas in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return outcomes


def test_concurrent_plus_and_minus_never_lose_an_update(sample_catalogue: Engine, alice: int) -> None:
    with Session(sample_catalogue) as session:
        pid = printing_id(session, "M4", "M4-001")
    work = [(alice, pid, f"t{i}", [+1, -1] * 25) for i in range(8)]
    outcomes = _hammer(sample_catalogue, work)
    assert outcomes.count("ok+1") == 200 and outcomes.count("ok-1") == 200
    with Session(sample_catalogue) as session:
        assert owned(session, alice, pid) == (0, 0)
        assert session.scalar(text("SELECT COUNT(*) FROM ledger_entry")) == 400


def test_concurrent_removals_stop_at_zero(sample_catalogue: Engine, alice: int) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        pid = printing_id(session, "M4", "M4-001")
        adjust(session=session, user_id=alice, printing_id=pid, delta=10, reason="manual", now=NOW)
    work = [(alice, pid, f"add{i}", [+1] * 10) for i in range(3)] + [
        (alice, pid, f"rm{i}", [-1] * 15) for i in range(5)
    ]
    outcomes = _hammer(sample_catalogue, work)
    removed = outcomes.count("ok-1")
    assert outcomes.count("ok+1") == 30
    assert removed + outcomes.count("refused") == 75
    assert removed <= 40
    with Session(sample_catalogue) as session:
        assert owned(session, alice, pid) == (40 - removed, 0)
        assert check_ledger(session) == []


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        ({}, ("NM", "简中", "普通")),
        ({"condition": "lightly played", "language": "English", "finish": "foil"}, ("LP", "EN", "闪")),
        ({"language": "繁體中文"}, ("NM", "繁中", "普通")),
    ],
)
def test_change_item_by_set_and_number(sample_catalogue: Engine, alice: int, cells: dict, expected: tuple) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        result = change_item(
            session=session, user_id=alice, set_code="m4", number="ｍ４-００１", delta=2, now=NOW, **cells
        )
        data = ItemShape.changed(result).body()
        assert (data["condition"], data["language"], data["finish"]) == expected
        assert (data["set"], data["number"], data["quantity"], data["for_trade"]) == ("M4", "M4-001", 2, 0)
        traded = change_for_trade(
            session=session, user_id=alice, set_code="M4", number="M4-001", for_trade=1, now=NOW, **cells
        )
        assert ItemShape.changed(traded).body()["for_trade"] == 1


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"set_code": "M4", "number": "M4-001", "delta": -1}, NegativeQuantity),
        ({"set_code": "M4", "number": "M4-999", "delta": 1}, UnknownPrinting),
        ({"set_code": "ZZ", "number": "1", "delta": 1}, UnknownPrinting),
        ({"set_code": "M4", "number": "M4-001", "delta": 1, "condition": "shiny"}, BadGrade),
        ({"set_code": "M4", "number": "M4-001", "delta": 10**9}, BadDelta),
        ({"set_code": "M4", "number": "M4-001", "delta": True}, BadDelta),
    ],
)
def test_change_item_errors_change_nothing(sample_catalogue: Engine, alice: int, kwargs: dict, error: type) -> None:
    before = table_counts(sample_catalogue)
    with pytest.raises(error), catalog_db.transaction(sample_catalogue) as session:
        change_item(session=session, user_id=alice, now=NOW, **kwargs)
    assert table_counts(sample_catalogue) == before


def test_concurrent_read_then_write_transactions_with_write_true(sample_catalogue: Engine, alice: int) -> None:
    """A request reads (its user) before it adjusts: ``transaction(write=True)`` takes the
    SQLite write lock up front, so none fails with "database is locked" and none is lost."""
    from catalog.models import User

    with Session(sample_catalogue) as session:
        pid = printing_id(session, "M4", "M4-001")
    failures: list[BaseException] = []

    def run() -> None:
        for delta in [+1, +1, -1] * 8:
            try:
                with catalog_db.transaction(sample_catalogue, write=True) as session:
                    assert session.get(User, alice) is not None
                    adjust(session=session, user_id=alice, printing_id=pid, delta=delta, reason="manual", now=NOW)
            except BaseException as error:  # reported below
                failures.append(error)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    with Session(sample_catalogue) as session:
        assert owned(session, alice, pid) == (8 * 8, 0)


def test_bulk_and_single_writers_creating_the_same_items_wait_for_each_other(
    sample_catalogue: Engine, alice: int
) -> None:
    """A bulk write (import, checklist, opening) plans which items to INSERT; a concurrent +1
    creating one of them first must make it wait, not fail on the unique index."""
    from catalog.collection.grades import ItemGrade
    from catalog.collection.ledger import apply_deltas

    with Session(sample_catalogue) as session:
        pids = [printing_id(session, "M4", f"M4-{n:03d}") for n in range(1, 13)]
    failures: list[BaseException] = []
    grade = ItemGrade()

    def bulk() -> None:
        try:
            for _ in range(6):
                with catalog_db.transaction(sample_catalogue, write=True) as session:
                    apply_deltas(
                        session=session, user_id=alice, deltas={(p, grade): 1 for p in pids}, reason="manual", now=NOW
                    )
        except BaseException as error:  # reported below
            failures.append(error)

    def single(pid: int) -> None:
        try:
            for _ in range(6):
                with catalog_db.transaction(sample_catalogue, write=True) as session:
                    adjust(session=session, user_id=alice, printing_id=pid, delta=1, reason="manual", now=NOW)
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=bulk) for _ in range(2)]
    threads += [threading.Thread(target=single, args=(pid,)) for pid in pids[::3]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    with Session(sample_catalogue) as session:
        for index, pid in enumerate(pids):
            assert owned(session, alice, pid) == (12 + (6 if index % 3 == 0 else 0), 0)
