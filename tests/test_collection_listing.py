"""The collection page's placing, kept per collection version.

Pages 1…N, concatenated, are exactly the rows of one unpaged query sorted by the page's order
(the contract: set order = game, set position, number, item; name order = pinyin, name, then
set order), for every order and filter, with the placing kept or read anew; and a change of the
collection, of the wants or of the catalogue shows on the next page at once. The suite runs
these on SQLite and on PostgreSQL (``make test-postgres``).
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import ItemGrade, adjust
from catalog.collection.ledger import set_for_trade
from catalog.collection.listing import collection_page, filter_key_of
from catalog.collection.reads import Totals, totals
from catalog.collection.wants import set_want
from catalog.models import Card, CardSet, CollectionItem, Game, Printing
from catalog.models.columns import CARD, GAME, ITEM, PRINTING, SET
from catalog.search import printing_ids_matching
from tests.kits.collection import NM, NOW, committed_user

PER_PAGE = 13
ORDERS = {
    "set": (GAME.slug, SET.position, PRINTING.number, ITEM.id),
    "name": (CARD.pinyin, CARD.name, GAME.slug, SET.position, PRINTING.number, ITEM.id),
}


@pytest.fixture(
    autouse=True,
    params=[
        "sorted in SQL",
        "sorted in SQL, large",
        "sorted by ranks",
        "sorted by stored ranks",
        "sorted in SQL, items looked up",
    ],
)
def sorting(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, sample_catalogue: Engine) -> str:
    """Every test four times: with the sample's small collections sorted in SQL (no ranks at
    hand: the items read are sorted by id, or counted by set); as a large collection is when
    the catalogue's ranks cannot key it (the whole query sorted in SQL); sorted by the
    catalogue's ranks as a large collection is (catalog.collection.ordering); and by the ranks
    an import stored, which any collection, small too, is sorted by while they are current.

    A search filter's items are read all and filtered by its printings in the first three; in
    the last two (whose sorting the others cover) they are looked up by its printings, as a
    selective filter's are in a large collection (listing.PROBE_MAX, PROBE_RATIO)."""
    from catalog.collection import listing, ordering

    listing.cache_clear()
    if request.param in ("sorted by stored ranks", "sorted in SQL, items looked up"):
        monkeypatch.setattr(listing, "PROBE_RATIO", 0)
    else:
        monkeypatch.setattr(listing, "PROBE_MAX", -1)
    if request.param == "sorted by ranks":
        monkeypatch.setattr(ordering, "RANKED_FROM", 0)
    elif request.param == "sorted by stored ranks":
        with catalog_db.transaction(sample_catalogue) as session:
            assert min(ordering.store_ranks(session=session).values()) > 700
    else:
        monkeypatch.setattr(ordering, "ranks", lambda *_args, **_kwargs: None)
        if request.param == "sorted in SQL, large":
            monkeypatch.setattr(ordering, "RANKED_FROM", 1)
    return str(request.param)


@pytest.fixture
def collector(sample_catalogue: Engine, make_user: Any) -> int:
    """A user owning every third printing of the sample (all four games), every fifth of them in
    a second grade too, some for trade, and one item fallen to 0."""
    user_id = committed_user(sample_catalogue, make_user)
    with catalog_db.transaction(sample_catalogue) as session:
        ids = list(session.scalars(select(Printing.id).order_by(Printing.id)))
        for index, pid in enumerate(ids[::3]):
            adjust(session=session, user_id=user_id, printing_id=pid, delta=1 + index % 3, reason="manual", now=NOW)
            if index % 5 == 0:
                grade = ItemGrade("LP", "EN", "闪")
                adjust(
                    session=session, user_id=user_id, printing_id=pid, grade=grade, delta=2, reason="manual", now=NOW
                )
            if index % 4 == 0:
                set_for_trade(session=session, user_id=user_id, printing_id=pid, for_trade=1, now=NOW)
        adjust(session=session, user_id=user_id, printing_id=ids[3], delta=-2, reason="manual", now=NOW)
    return user_id


def _expected(session: Session, user_id: int, order: str, *where: Any) -> list[tuple[Any, ...]]:
    """The rows of one unpaged query in the page's order: (printing, grade, quantity, for trade)."""
    rows = session.execute(
        select(ITEM.printing_id, ITEM.condition, ITEM.language, ITEM.finish, ITEM.quantity, ITEM.for_trade)
        .select_from(CollectionItem)
        .join(Printing, PRINTING.id == ITEM.printing_id)
        .join(Card, CARD.id == PRINTING.card_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
        .where(ITEM.user_id == user_id, ITEM.quantity > 0, *where)
        .order_by(*ORDERS[order])
    )
    return [tuple(row) for row in rows]


def _paged(session: Session, user_id: int, **arguments: Any) -> tuple[list[tuple[Any, ...]], int]:
    """Every page in turn, concatenated (and the one past the end, which must be empty)."""
    seen: list[tuple[Any, ...]] = []
    number = 1
    while True:
        page = collection_page(session=session, user_id=user_id, page=number, per_page=PER_PAGE, **arguments)
        if not page.items:
            assert len(seen) == page.total
            return seen, page.total
        assert len(page.items) == min(PER_PAGE, page.total - len(seen))
        seen += [
            (i.printing_id, i.grade.condition, i.grade.language, i.grade.finish, i.quantity, i.for_trade)
            for i in page.items
        ]
        number += 1


def _search(session: Session, user_id: int, text: str, keep: bool) -> dict[str, Any]:
    ids = printing_ids_matching(session=session, text=text, user_id=user_id)
    return {"printing_ids": ids, "filter_key": filter_key_of(text, None) if keep else None}


def _totals(session: Session, user_id: int) -> Totals:
    rows = session.execute(
        select(ITEM.printing_id, ITEM.quantity, ITEM.for_trade).where(ITEM.user_id == user_id, ITEM.quantity > 0)
    ).all()
    return Totals(len({pid for pid, _q, _t in rows}), sum(q for _p, q, _t in rows), sum(t for _p, _q, t in rows))


@pytest.mark.parametrize("order", ["set", "name"])
def test_pages_run_through_the_sorted_rows_for_every_filter(
    sample_catalogue: Engine, collector: int, order: str
) -> None:
    with Session(sample_catalogue) as session:
        fire = printing_ids_matching(session=session, text="a:火", user_id=collector)
        cases: list[tuple[dict[str, Any], tuple[Any, ...]]] = [
            ({}, ()),
            ({"for_trade_only": True}, (ITEM.for_trade > 0,)),
            ({"game": "longzhiyi"}, (GAME.slug == "longzhiyi",)),
            ({"set_code": "m4"}, (SET.code == "M4",)),
            ({"game": "keyforge", "for_trade_only": True}, (GAME.slug == "keyforge", ITEM.for_trade > 0)),
            (_search(session, collector, "a:火", keep=True), (ITEM.printing_id.in_(fire),)),
            (_search(session, collector, "a:火", keep=False), (ITEM.printing_id.in_(fire),)),
            (_search(session, collector, "own>2", keep=True), ()),
        ]
        for arguments, where in cases:
            expected = _expected(session, collector, order, *where)
            if arguments.get("printing_ids") is not None and not where:  # own>2: copies of a printing
                owned = session.execute(
                    select(ITEM.printing_id)
                    .where(ITEM.user_id == collector)
                    .group_by(ITEM.printing_id)
                    .having(func.sum(ITEM.quantity) > 2)
                )
                keep = {pid for (pid,) in owned}
                expected = [row for row in expected if row[0] in keep]
            assert len(expected) > PER_PAGE or arguments.get("set_code") or arguments.get("game"), arguments
            assert expected, arguments
            for _twice in range(2):  # placed, then kept
                assert _paged(session, collector, order=order, **arguments) == (expected, len(expected)), arguments


def test_a_kept_placing_follows_every_change(sample_catalogue: Engine, collector: int) -> None:
    """Quantities and quantities for trade (ledgered), wants (not ledgered: a want filter is never
    kept) and the catalogue (a new catalogue_version) each show on the next page at once."""

    def check(session: Session) -> None:
        own = printing_ids_matching(session=session, text="own>2", user_id=collector)
        owning = select(ITEM.printing_id).where(ITEM.user_id == collector).group_by(ITEM.printing_id)
        owning = owning.having(func.sum(ITEM.quantity) > 2)
        for order in ORDERS:
            every = _expected(session, collector, order)
            assert _paged(session, collector, order=order) == (every, len(every))
            trade = _expected(session, collector, order, ITEM.for_trade > 0)
            assert _paged(session, collector, order=order, for_trade_only=True) == (trade, len(trade))
            many = _expected(session, collector, order, ITEM.printing_id.in_(owning))
            kept_own = {"printing_ids": own, "filter_key": filter_key_of("own>2", None)}
            assert _paged(session, collector, order=order, **kept_own) == (many, len(many))
        assert totals(session=session, user_id=collector) == _totals(session, collector)

    def change(*steps: tuple[int, int, int | None]) -> None:
        """(printing, delta, for trade) each in a transaction of its own, then every page checked."""
        with catalog_db.transaction(sample_catalogue) as session:
            for pid, delta, for_trade in steps:
                if delta:
                    adjust(session=session, user_id=collector, printing_id=pid, delta=delta, reason="manual", now=NOW)
                if for_trade is not None:
                    set_for_trade(session=session, user_id=collector, printing_id=pid, for_trade=for_trade, now=NOW)
        with Session(sample_catalogue) as session:
            check(session)

    with Session(sample_catalogue) as session:
        check(session)
        first = _expected(session, collector, "set")[0][0]
        unowned = session.scalar(select(func.min(PRINTING.id)).where(PRINTING.id.not_in(select(ITEM.printing_id))))
        two = session.scalar(
            select(func.min(ITEM.printing_id)).where(
                ITEM.printing_id.in_(
                    select(ITEM.printing_id).group_by(ITEM.printing_id).having(func.sum(ITEM.quantity) == 2)
                )
            )
        )
        default = (ITEM.condition == NM.condition, ITEM.language == NM.language, ITEM.finish == NM.finish)
        untraded = session.scalar(
            select(func.min(ITEM.printing_id)).where(ITEM.for_trade == 0, ITEM.quantity > 1, *default)
        )
        assert unowned is not None and two is not None and untraded is not None
    change((first, 1, None))  # one more of an item owned: nothing enters or leaves a page
    change((unowned, 4, 3))  # a new item, for trade
    change((two, 1, None))  # own 2 → 3: it enters own>2 with no quantity crossing 0
    change((first, -1, None), (untraded, 0, 1))  # back; an item offered for trade
    change((unowned, -4, None), (untraded, 0, 0))  # the new item gone (its for-trade follows it)

    # Wants change without a ledger row: a filter reading them is placed anew every time.
    with Session(sample_catalogue) as session:
        card_id = session.scalar(select(PRINTING.card_id).where(PRINTING.id == first))
        assert filter_key_of("want>0", None) is None and filter_key_of("-(a:火 or want>0)", None) is None
        wanted = {"printing_ids": printing_ids_matching(session=session, text="want>0", user_id=collector)}
        assert collection_page(session=session, user_id=collector, **wanted).total == 0
    with catalog_db.transaction(sample_catalogue) as session:
        assert card_id is not None
        set_want(session=session, user_id=collector, card_id=card_id, quantity=2, now=NOW)
    with Session(sample_catalogue) as session:
        wanted = {"printing_ids": printing_ids_matching(session=session, text="want>0", user_id=collector)}
        page = collection_page(session=session, user_id=collector, filter_key=filter_key_of("want>0", None), **wanted)
        assert page.total > 0 and {i.card_id for i in page.items} == {card_id}

    # The catalogue: an import gives the game a new version (here: two sets swap places).
    with catalog_db.transaction(sample_catalogue) as session:
        m1, m4 = (session.scalar(select(SET.position).where(SET.code == code)) for code in ("M1", "M4"))
        session.execute(update(CardSet).where(SET.code == "M1").values(position=m4))
        session.execute(update(CardSet).where(SET.code == "M4").values(position=m1))
        session.execute(update(Game).where(GAME.slug == "samsara").values(catalogue_version="swapped"))
    with Session(sample_catalogue) as session:
        check(session)
    # Two sets sharing a place and collector numbers: their printings tie in set order, and
    # the items' ids decide (the ranks are dense).
    with catalog_db.transaction(sample_catalogue) as session:
        session.execute(update(CardSet).where(SET.code == "M1").values(position=m1))  # where M4 is now
        m1_id = session.scalar(select(SET.id).where(SET.code == "M1"))
        session.execute(
            update(Printing).where(PRINTING.set_id == m1_id).values(number="M4-" + func.substr(PRINTING.number, 4))
        )
        session.execute(update(Game).where(GAME.slug == "samsara").values(catalogue_version="shared"))
        tied = session.execute(
            select(func.min(PRINTING.id), func.max(PRINTING.id))
            .join(CardSet, SET.id == PRINTING.set_id)
            .where(SET.code.in_(["M1", "M4"]))
            .group_by(PRINTING.number)
            .having(func.count() > 1)
        ).first()
        assert tied is not None
        # New items of two tied printings, the later printing's first: their ids run against
        # the printings' order, which must not decide.
        for pid in reversed(tuple(tied)):
            grade = ItemGrade("DMG", "日", "闪")
            adjust(session=session, user_id=collector, printing_id=pid, grade=grade, delta=3, reason="manual", now=NOW)
    with Session(sample_catalogue) as session:
        # The page reads its rows in SQL's order, so a tie inside one page cannot show: the
        # ranks themselves must tie.
        from catalog.collection import ordering

        table = ordering.made_ranks(session, "set")
        assert table is not None and table[tied[0]] == table[tied[1]]
        check(session)
