"""Wants, haves and the keep rule; totals, completion, history and saved decks (§6)."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import ItemGrade, adjust, import_collection
from catalog.collection.reads import Totals, collection_page, history, set_completion, totals
from catalog.collection.saved_decks import (
    add_missing_to_wants,
    deck_ownership,
    decks_overview,
    delete_deck,
    get_deck,
    list_decks,
    save_deck,
)
from catalog.collection.wants import (
    NotFound,
    WantError,
    have_list,
    list_wants,
    mark_extras_for_trade,
    remove_want,
    set_want,
)
from catalog.decks.lists import DecklistError
from catalog.lookup import UnknownPrinting, find_card
from catalog.models import Printing, User
from tests.kits.collection import NM, NOW, committed_user, owned, printing_id
from webapp.shapes.collection import LedgerEntry

HEADER = "set,number,name,quantity,condition,language,finish,for_trade\n"


@pytest.fixture
def alice(sample_catalogue: Engine, make_user) -> int:
    return committed_user(sample_catalogue, make_user)


def _add(session: Session, user_id: int, number: str, delta: int, grade: ItemGrade = NM) -> int:
    pid = printing_id(session, number.split("-")[0], number)
    adjust(session=session, user_id=user_id, printing_id=pid, grade=grade, delta=delta, reason="manual", now=NOW)
    return pid


def test_wants_set_replace_remove_and_ownership(sample_catalogue: Engine, alice: int, make_user) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        pid = _add(session, alice, "M4-001", 1)
        card_id = session.get(Printing, pid).card_id
        assert find_card(session=session, game="samsara", name="小紅帽・森林歌者").id == card_id
        with pytest.raises(UnknownPrinting):
            find_card(session=session, game="longzhiyi", name="小红帽·森林歌者")
        set_want(session=session, user_id=alice, card_id=card_id, quantity=3, now=NOW)
        set_want(session=session, user_id=alice, card_id=card_id, quantity=2, min_condition="LP", now=NOW)
        specific = set_want(session=session, user_id=alice, card_id=card_id, printing_id=pid, quantity=1, now=NOW)
        wants = list_wants(session=session, user_id=alice)
        assert [(w.quantity, w.min_condition, w.set, w.owned) for w in wants] == [
            (2, "LP", None, 1),
            (1, "MP", "M4", 1),
        ]
        with pytest.raises(WantError):
            set_want(session=session, user_id=alice, card_id=card_id, min_condition="GREAT", now=NOW)
        other = printing_id(session, "M4", "M4-002")
        with pytest.raises(NotFound):
            set_want(session=session, user_id=alice, card_id=card_id, printing_id=other, now=NOW)
        bob = make_user(session, "bob")
        assert specific is not None and specific.id is not None
        with pytest.raises(NotFound):
            remove_want(session=session, user_id=bob.id, want_id=specific.id)
        remove_want(session=session, user_id=alice, want_id=specific.id)
        set_want(session=session, user_id=alice, card_id=card_id, quantity=0, now=NOW)
        assert list_wants(session=session, user_id=alice) == []


def test_keep_rule_marks_extras_for_trade_worst_condition_first(sample_catalogue: Engine, alice: int) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        common = _add(session, alice, "M4-001", 3)  # C
        _add(session, alice, "M4-001", 2, ItemGrade("HP"))
        _add(session, alice, "M4-001", 1, ItemGrade("LP", "EN"))
        rare = _add(session, alice, "M4-002", 2)  # R
        changed = mark_extras_for_trade(session=session, user_id=alice, game="samsara", keep={"C": 3, "R": 3}, now=NOW)
        # 6 copies of the C, keep 3: the 2 HP first, then the LP one; the R is under its keep.
        assert changed == 2
        assert owned(session, alice, common, ItemGrade("HP")) == (2, 2)
        assert owned(session, alice, common, ItemGrade("LP", "EN")) == (1, 1)
        assert owned(session, alice, common) == (3, 0)
        assert owned(session, alice, rare) == (2, 0)
        user = session.get(User, alice)
        assert user is not None and user.keep_rules == {"samsara": {"C": 3, "R": 3}}
        haves = have_list(session=session, user_id=alice)
        assert sorted((h.grade.condition, h.for_trade) for h in haves) == [("HP", 2), ("LP", 1)]
        # Keeping more takes them back off the trade list.
        mark_extras_for_trade(session=session, user_id=alice, game="samsara", keep={"C": 5}, now=NOW)
        assert owned(session, alice, common, ItemGrade("HP")) == (2, 1)
        assert owned(session, alice, common, ItemGrade("LP", "EN")) == (1, 0)
        with pytest.raises(WantError):
            mark_extras_for_trade(session=session, user_id=alice, game="samsara", keep={"C": -1}, now=NOW)


def test_totals_completion_page_and_history(sample_catalogue: Engine, alice: int) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        report = import_collection(
            session=session, user_id=alice, data=(HEADER + "M4,M4-001,,3,,,,1\nM4,M4-002,,1,,,,\n").encode(), now=NOW
        )
        pid = _add(session, alice, "M4-001", 1, ItemGrade("LP"))
        assert totals(session=session, user_id=alice) == Totals(printings=2, cards=5, for_trade=1)
        sets = {s.code: s for s in set_completion(session=session, user_id=alice, game="samsara")}
        m4 = sets["M4"]
        assert (m4.owned, m4.total) == (2, 45)
        assert m4.by_rarity["C"] == (1, 23) and m4.by_rarity["R"] == (1, 10) and m4.by_rarity["SR"] == (0, 2)
        assert list(m4.by_rarity) == ["C", "R", "PR", "UR", "SR"]  # lowest rarity first
        assert sets["M1"].owned == 0
        started = set_completion(session=session, user_id=alice, only_started=True)
        assert [s.code for s in started] == ["M4"]
        page = collection_page(session=session, user_id=alice, per_page=2)
        assert page.total == 3 and len(page.items) == 2
        assert collection_page(session=session, user_id=alice, query="狼猎手").total == 1
        assert collection_page(session=session, user_id=alice, for_trade_only=True).items[0].for_trade == 1
        assert collection_page(session=session, user_id=alice, query="m4").total == 3
        assert collection_page(session=session, user_id=alice, query="xiaohongmao").total == 3
        card_history = history(session=session, user_id=alice, printing_id=pid)
        assert [(h.delta, h.reason, h.condition) for h in card_history] == [(1, "manual", "LP"), (3, "import", "NM")]
        assert LedgerEntry.of(card_history[1]).body()["at"] == "2026-06-01T12:00:00Z"
        assert LedgerEntry.of(card_history[1]).body()["set"] == "M4"
        by_import = history(session=session, user_id=alice, import_id=report.import_id)
        assert len(by_import) == 2 and all(h.ref == f"import #{report.import_id}" for h in by_import)


DECK = """名称: 小红帽
主卡组:
3 小红帽·森林歌者
2x M4-002
1 不存在的卡
"""


def test_saved_decks_ownership_and_missing_to_wants(sample_catalogue: Engine, alice: int, make_user) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        _add(session, alice, "M4-001", 2)
        _add(session, alice, "M4-002", 1, ItemGrade("HP", "EN", "闪"))
        deck = save_deck(session=session, user_id=alice, game="永恒之轮", name="小红帽", text=DECK, now=NOW)
        assert deck.id is not None
        result = deck_ownership(session=session, user_id=alice, deck=deck)
        assert [(x.name, x.needed, x.owned, x.missing) for x in result.lines] == [
            ("小红帽·森林歌者", 3, 2, 1),
            ("小红帽·狼猎手", 2, 1, 1),
        ]
        assert not result.buildable and result.missing == 2 and len(result.unresolved) == 1
        assert add_missing_to_wants(session=session, user_id=alice, deck=deck, now=NOW) == 2
        assert add_missing_to_wants(session=session, user_id=alice, deck=deck, now=NOW) == 0
        assert sorted(w.quantity for w in list_wants(session=session, user_id=alice)) == [1, 1]
        fixed = save_deck(
            session=session,
            user_id=alice,
            game="samsara",
            name="小红帽",
            deck_id=deck.id,
            text="2 小红帽·森林歌者\n1 小红帽·狼猎手\n",
            now=NOW,
        )
        assert fixed.id == deck.id and deck_ownership(session=session, user_id=alice, deck=fixed).buildable
        save_deck(session=session, user_id=alice, game="samsara", name="另一副", text="4 小红帽·森林歌者\n", now=NOW)
        overview = decks_overview(session=session, user_id=alice)
        assert sorted((d.name, o.buildable, o.missing) for d, o in overview) == [
            ("另一副", False, 2),
            ("小红帽", True, 0),
        ]
        other = next(d for d, _ in overview if d.name == "另一副")
        assert other.id is not None
        delete_deck(session=session, user_id=alice, deck_id=other.id)
        with pytest.raises(DecklistError):
            save_deck(session=session, user_id=alice, game="samsara", name="坏", text="{broken", now=NOW)
        bob = make_user(session, "bob")
        with pytest.raises(NotFound):
            get_deck(session=session, user_id=bob.id, deck_id=deck.id)
        with pytest.raises(NotFound):
            delete_deck(session=session, user_id=bob.id, deck_id=deck.id)
        assert [d.id for d in list_decks(session=session, user_id=alice)] == [deck.id]
        delete_deck(session=session, user_id=alice, deck_id=deck.id)
        assert list_decks(session=session, user_id=alice) == []


def test_raising_a_want_from_a_deck_keeps_its_language_and_finish(sample_catalogue: Engine, alice: int) -> None:
    """ "add missing to wants" raises the quantity of a 闪 want, it does not widen it to any finish."""
    with catalog_db.transaction(sample_catalogue) as session:
        card_id = find_card(session=session, game="samsara", name="小红帽·森林歌者").id
        assert card_id is not None
        set_want(session=session, user_id=alice, card_id=card_id, quantity=1, finish="闪", language="EN", now=NOW)
        deck = save_deck(session=session, user_id=alice, game="samsara", name="闪", text="3 小红帽·森林歌者\n", now=NOW)
        assert add_missing_to_wants(session=session, user_id=alice, deck=deck, now=NOW) == 1
        (row,) = list_wants(session=session, user_id=alice)
        assert (row.quantity, row.language, row.finish) == (3, "EN", "闪")


def test_collection_pages_in_set_order_across_sets_and_grades(sample_catalogue: Engine, alice: int) -> None:
    """The page is chosen from the sets it falls in: whatever the page size, the pages
    run through the items in (game, set position, number, item) order without gap or overlap,
    across set boundaries and grades of one printing, and a page past the end is empty."""
    from sqlmodel import col, select

    from catalog.models import CardSet, CollectionItem, Game

    with catalog_db.transaction(sample_catalogue) as session:
        sets = session.exec(select(CardSet).order_by(col(CardSet.position))).all()
        chosen = [s for s in sets if s.code in ("M1", "M4", "G2", "S8", "LZ1", "ZT1")]
        for card_set in chosen:
            numbers = session.exec(
                select(Printing.number).where(Printing.set_id == card_set.id).order_by(col(Printing.number))
            ).all()
            for number in numbers[1:8:3]:
                pid = printing_id(session, card_set.code, number)
                for grade in (NM, ItemGrade("LP")):
                    adjust(
                        session=session, user_id=alice, printing_id=pid, grade=grade, delta=1, reason="manual", now=NOW
                    )
    with Session(sample_catalogue) as session:
        rows = session.exec(
            select(CollectionItem.id, Game.slug, CardSet.position, Printing.number, CardSet.code)
            .join(Printing, col(Printing.id) == col(CollectionItem.printing_id))
            .join(CardSet, col(CardSet.id) == col(Printing.set_id))
            .join(Game, col(Game.id) == col(CardSet.game_id))
            .where(CollectionItem.user_id == alice)
        ).all()
        expected = [r[0] for r in sorted(rows, key=lambda r: (r[1], r[2], r[3], r[0]))]
        assert len(expected) == 2 * 3 * len(chosen) and len({r[4] for r in rows}) == len(chosen)
        by_item = {item.id: item.printing_id for item in session.exec(select(CollectionItem))}
        for per_page in (1, 2, 5, 7, 50):
            seen: list[int] = []
            for page_number in range(1, len(expected) // per_page + 2):
                page = collection_page(session=session, user_id=alice, page=page_number, per_page=per_page)
                assert page.total == len(expected)
                seen += [item.printing_id for item in page.items]
            assert seen == [by_item[i] for i in expected], per_page
        beyond = collection_page(session=session, user_id=alice, page=len(expected) + 1, per_page=1)
        assert beyond.items == [] and beyond.total == len(expected)
        m4 = collection_page(session=session, user_id=alice, set_code="M4", page=2, per_page=4)
        assert m4.total == 6 and [i.set for i in m4.items] == ["M4", "M4"]


def test_totals_moved_on_count_a_printing_once_whatever_its_grades(sample_catalogue: Engine, alice: int) -> None:
    """The totals kept for one version are moved on by the item changes since: a second grade
    of a printing already owned, or one of its two grades falling to 0, leaves the distinct
    printings as they were."""
    from sqlalchemy import distinct, func, select

    from catalog.models import CollectionItem

    item = CollectionItem.__table__.c
    with catalog_db.transaction(sample_catalogue) as session:
        _add(session, alice, "M4-001", 1, ItemGrade())
        assert totals(session=session, user_id=alice).printings == 1  # kept for this version
        steps = [(ItemGrade("LP"), 1), (ItemGrade("LP"), -1), (ItemGrade("LP"), 2), (ItemGrade(), -1), (NM, 1)]
        for grade, delta in steps:
            _add(session, alice, "M4-001", delta, grade)
            _add(session, alice, "M4-002", 1)  # and another printing, so both kinds of change come together
            owned = session.scalar(
                select(func.count(distinct(item.printing_id))).where(item.user_id == alice, item.quantity > 0)
            )
            assert totals(session=session, user_id=alice).printings == owned, (grade, delta)
