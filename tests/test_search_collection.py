"""own / want / trade (DESIGN §6): search counts the signed-in user's collection and wants.

Rows are written with their ledger entries, so the ledger invariant holds for these tests too.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from catalog.models import Card, CardSet, CollectionItem, LedgerEntry, Printing, User, WantItem
from catalog.search import QueryError, search

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _user(session: Session, name: str) -> int:
    user = User(username=name, username_key=name, password_hash="x", created_at=NOW)
    session.add(user)
    session.flush()
    assert user.id is not None
    return user.id


def _printing(session: Session, number: str) -> Printing:
    return session.exec(select(Printing).where(Printing.number == number)).one()


def _own(session: Session, user_id: int, number: str, quantity: int, for_trade: int = 0, condition: str = "NM") -> None:
    printing = _printing(session, number)
    assert printing.id is not None
    grade = {"condition": condition, "language": "简中", "finish": "普通"}
    session.add(
        CollectionItem(
            user_id=user_id, printing_id=printing.id, quantity=quantity, for_trade=for_trade, updated_at=NOW, **grade
        )
    )
    session.add(
        LedgerEntry(
            user_id=user_id,
            printing_id=printing.id,
            delta=quantity,
            trade_delta=for_trade,
            reason="manual",
            at=NOW,
            **grade,
        )
    )


@pytest.fixture
def owners(sample_catalogue: Engine) -> dict[str, int]:
    """alice owns two printings of one card in two grades, one other card, and wants a third."""
    with Session(sample_catalogue) as session:
        alice, bob = _user(session, "alice"), _user(session, "bob")
        g2 = session.exec(select(CardSet).where(CardSet.code == "G2")).one()
        reprint = session.exec(select(Printing).where(Printing.set_id == g2.id)).first()
        assert reprint is not None
        card = session.get(Card, reprint.card_id)
        assert card is not None
        original = session.exec(select(Printing).where(Printing.card_id == card.id, Printing.id != reprint.id)).first()
        assert original is not None
        _own(session, alice, reprint.number, 2, for_trade=1)
        _own(session, alice, original.number, 1, condition="LP")
        _own(session, alice, "M4-001", 0)  # an item that went back to zero counts as none
        _own(session, bob, "M5-001", 3)
        wanted = _printing(session, "M6-001")
        session.add(WantItem(user_id=alice, card_id=wanted.card_id, quantity=2, updated_at=NOW))
        session.commit()
        return {"alice": alice, "bob": bob, "card": card.id or 0, "wanted": wanted.card_id}


def _names(engine: Engine, text: str, user_id: int | None, **options: object) -> list[str]:
    with Session(engine) as session:
        result = search(session=session, text=text, user_id=user_id, per_page=175, **options)
        if result.unique == "prints":
            return [f"{hit.card.name}@{hit.printing.number}" for hit in result.hits]
        return [hit.card.name for hit in result.hits]


def test_own_counts_every_printing_and_grade_of_the_card(sample_catalogue: Engine, owners: dict[str, int]) -> None:
    with Session(sample_catalogue) as session:
        card = session.get(Card, owners["card"])
        assert card is not None
        name = card.name
    assert _names(sample_catalogue, "own>0", owners["alice"]) == [name]
    assert _names(sample_catalogue, "own=3", owners["alice"]) == [name]  # 2 + 1 over two printings
    assert _names(sample_catalogue, "own>=4", owners["alice"]) == []
    assert _names(sample_catalogue, "trade>0", owners["alice"]) == [name]
    assert _names(sample_catalogue, "拥有>0", owners["alice"]) == [name]


def test_zero_comparisons_include_the_cards_never_owned(sample_catalogue: Engine, owners: dict[str, int]) -> None:
    with Session(sample_catalogue) as session:
        total = search(session=session, text="g:samsara", per_page=1).total
        missing = search(session=session, text="g:samsara own=0", per_page=1, user_id=owners["alice"]).total
        below_two = search(session=session, text="g:samsara own<2", per_page=1, user_id=owners["alice"]).total
        not_owned = search(session=session, text="g:samsara -own>0", per_page=1, user_id=owners["alice"]).total
    assert missing == total - 1 == not_owned
    assert below_two == total - 1  # alice has 3 of her one card


def test_prints_mode_counts_per_printing(sample_catalogue: Engine, owners: dict[str, int]) -> None:
    hits = _names(sample_catalogue, "own>0 unique:prints", owners["alice"])
    assert len(hits) == 2
    assert len(_names(sample_catalogue, "own=2 unique:prints", owners["alice"])) == 1
    assert len(_names(sample_catalogue, "trade>=1 unique:prints", owners["alice"])) == 1


def test_want_counts_any_printing_wants(sample_catalogue: Engine, owners: dict[str, int]) -> None:
    with Session(sample_catalogue) as session:
        card = session.get(Card, owners["wanted"])
        assert card is not None
        printings = len(session.exec(select(Printing).where(Printing.card_id == card.id)).all())
    assert _names(sample_catalogue, "want>0", owners["alice"]) == [card.name]
    assert _names(sample_catalogue, "want=2", owners["alice"]) == [card.name]
    assert len(_names(sample_catalogue, "want>0 unique:prints", owners["alice"])) == printings


def test_each_user_sees_only_their_own(sample_catalogue: Engine, owners: dict[str, int]) -> None:
    bob = _names(sample_catalogue, "own>0", owners["bob"])
    alice = _names(sample_catalogue, "own>0", owners["alice"])
    assert len(bob) == 1 and bob != alice
    assert _names(sample_catalogue, "want>0", owners["bob"]) == []


@pytest.mark.parametrize(("query", "fragment"), [("own>0", "需要登录"), ("want:1", "需要登录")])
def test_anonymous_gets_a_clear_error(sample_catalogue: Engine, query: str, fragment: str) -> None:
    with Session(sample_catalogue) as session, pytest.raises(QueryError) as error:
        search(session=session, text=query)
    assert fragment in error.value.message.zh
    assert "sign in" in error.value.message.en


def test_non_numbers_are_refused(sample_catalogue: Engine, owners: dict[str, int]) -> None:
    with Session(sample_catalogue) as session, pytest.raises(QueryError) as error:
        search(session=session, text="own>many", user_id=owners["alice"])
    assert "不是整数" in error.value.message.zh
