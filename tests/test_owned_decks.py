"""Players own decks: "my decks" from a file, pasted text or the catalogue of known
decks; marked for trade; traded whole through the offer machinery (a deck is one unit, never
loose copies; every change of owner in the deck ledger); an event registration with one of
one's decks locks its identity. Runs on the sample catalogue (both databases)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import owned_decks as decks
from catalog.events import registration as reg
from catalog.ingest import import_catalogue
from catalog.models import DeckLedger, DeckRecord, LedgerEntry, OwnedDeck, TradeDeckLine
from catalog.trading import offers, settlement
from tests.conftest import SAMPLE
from tests.kits.owned_decks import DECK, NOW, OTHER


@pytest.fixture
def kit(engine: Engine, make_user):
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[SAMPLE / "keyforge"])
    with catalog_db.transaction(engine) as session:
        users = {name: make_user(session, name).id for name in ("alice", "bob", "carol")}
    return users


def _tx(engine: Engine):
    return catalog_db.transaction(engine, write=True)


def _add(engine: Engine, user_id: int, text: str = DECK) -> int:
    with _tx(engine) as session:
        (owned,) = decks.add_decks(session=session, user_id=user_id, text=text, now=NOW)
        assert owned.id is not None
        return owned.id


def test_add_a_pasted_deck_twice_is_one_deck_two_copies(engine: Engine, kit) -> None:
    first = _add(engine, kit["alice"])
    second = _add(engine, kit["bob"])
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(DeckRecord)) == 1
        record = session.scalars(select(DeckRecord)).one()
        assert record.houses == ["布罗布纳", "冥界", "圣所"]
        assert "1 锅盖哥布林 [maverick]" in record.text and "[enhanced: draw]" in record.text
        assert {o.id for o in session.scalars(select(OwnedDeck))} == {first, second}
        assert [r.reason for r in session.scalars(select(DeckLedger))] == ["add", "add"]


def test_an_illegal_deck_is_refused_and_nothing_written(engine: Engine, kit) -> None:
    with pytest.raises(decks.DeckError) as error, _tx(engine) as session:
        decks.add_decks(session=session, user_id=kit["alice"], text="12 山岳拳王", now=NOW)
    assert "不合法" in error.value.message.zh
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(DeckRecord)) == 0


def test_known_decks_are_picked_from_the_catalogue(engine: Engine, kit) -> None:
    with _tx(engine) as session:
        (record,) = decks.import_known_decks(session=session, text=DECK, now=NOW)
        again = decks.import_known_decks(session=session, text=DECK, now=NOW)
        assert [r.id for r in again] == [record.id]  # idempotent
        deck_id = record.id
    with _tx(engine) as session:
        owned = decks.add_known_deck(session=session, user_id=kit["carol"], deck_id=deck_id, now=NOW)
        assert owned.deck_id == deck_id
    with pytest.raises(decks.DeckNotFound), _tx(engine) as session:
        decks.add_known_deck(session=session, user_id=kit["carol"], deck_id=deck_id + 99, now=NOW)


def test_a_deck_is_traded_whole_through_an_offer_and_ledgered(engine: Engine, kit) -> None:
    mine, theirs = _add(engine, kit["alice"]), _add(engine, kit["bob"], OTHER)
    with _tx(engine) as session, pytest.raises(decks.DeckUnavailable):  # not marked for trade yet
        offers.propose(
            session=session,
            proposer_id=kit["alice"],
            recipient_id=kit["bob"],
            give=[],
            get=[],
            give_decks=[mine],
            get_decks=[theirs],
            now=NOW,
        )
    with _tx(engine) as session:
        decks.set_for_trade(session=session, user_id=kit["alice"], owned_id=mine, for_trade=True)
        decks.set_for_trade(session=session, user_id=kit["bob"], owned_id=theirs, for_trade=True)
    with _tx(engine) as session:
        trade = offers.propose(
            session=session,
            proposer_id=kit["alice"],
            recipient_id=kit["bob"],
            give=[],
            get=[],
            give_decks=[mine],
            get_decks=[theirs],
            now=NOW,
        )
        trade_id = trade.id
        assert trade_id is not None
    with _tx(engine) as session, pytest.raises(decks.DeckUnavailable):  # held: no second offer may hold it
        offers.propose(
            session=session,
            proposer_id=kit["alice"],
            recipient_id=kit["carol"],
            give=[],
            get=[],
            give_decks=[mine],
            now=NOW,
        )
    with _tx(engine) as session:
        settlement.accept(
            session=session, trade_id=trade_id, user_id=kit["bob"], version=1, now=NOW + timedelta(minutes=1)
        )
    with Session(engine) as session:
        assert session.get(OwnedDeck, mine).user_id == kit["bob"]
        assert session.get(OwnedDeck, theirs).user_id == kit["alice"]
        assert not session.get(OwnedDeck, mine).for_trade
        moves = session.scalars(select(DeckLedger).where(DeckLedger.reason == "trade")).all()
        assert {(m.owned_deck_id, m.from_user_id, m.to_user_id, m.ref) for m in moves} == {
            (mine, kit["alice"], kit["bob"], str(trade_id)),
            (theirs, kit["bob"], kit["alice"], str(trade_id)),
        }
        # a deck is one unit: no loose card moved through the card ledger
        assert session.scalar(select(func.count()).select_from(LedgerEntry)) == 0
        assert session.scalar(select(func.count()).select_from(TradeDeckLine)) == 2


def test_an_event_registration_locks_the_decks_identity(engine: Engine, kit) -> None:
    mine = _add(engine, kit["alice"])
    with _tx(engine) as session:
        decks.set_for_trade(session=session, user_id=kit["alice"], owned_id=mine, for_trade=True)
    with _tx(engine) as session:
        event = reg.create_event(
            session=session,
            name="熔钥月赛",
            game="keyforge",
            format_code="archon",
            date=NOW.date() + timedelta(days=3),
            now=NOW,
            store="卡牌竞技场",
            city="上海",
        )
        registration = reg.register_player(
            session=session, event=event, player_name="alice", user_id=kit["alice"], owned_deck_id=mine, now=NOW
        )
        assert registration.legal is True and registration.owned_deck_id == mine
        assert "山岳拳王" in registration.deck_text
        event_id, registration_id = event.id, registration.id
    with Session(engine) as session:
        assert not session.get(OwnedDeck, mine).for_trade  # registering took it off the trade list
    with _tx(engine) as session, pytest.raises(decks.DeckUnavailable):
        decks.set_for_trade(session=session, user_id=kit["alice"], owned_id=mine, for_trade=True)
    with _tx(engine) as session:
        from catalog.events.registration import DeckLocked

        event = session.get(reg.Event, event_id)
        registration = session.get(reg.Registration, registration_id)
        with pytest.raises(DeckLocked):
            reg.set_deck(session=session, event=event, registration=registration, text=OTHER, now=NOW)


def test_keyteki_file_adds_every_deck(engine: Engine, kit) -> None:
    data = [
        {"name": "一", "uuid": "u-1", "houses": ["brobnar", "dis", "sanctum"], "cards": []},
    ]
    with pytest.raises(decks.DeckError), _tx(engine) as session:  # 0 cards: not legal
        decks.add_decks(session=session, user_id=kit["alice"], text=json.dumps(data), now=NOW)


def test_whole_decks_through_the_api_and_bad_ids(app, client, engine: Engine, kit) -> None:
    from catalog.accounts import issue_token
    from catalog.models import User

    def headers(name: str) -> dict[str, str]:
        with Session(engine) as session, session.begin():
            user = session.get(User, kit[name])
            _row, token = issue_token(session=session, user=user, name="t", now=NOW)
        return {"Authorization": f"Bearer {token}"}

    mine = _add(engine, kit["alice"])
    with _tx(engine) as session:
        decks.set_for_trade(session=session, user_id=kit["alice"], owned_id=mine, for_trade=True)
    alice, bob = headers("alice"), headers("bob")
    bad = client.post("/api/v1/trades", json={"to": "bob", "give_decks": ["x"]}, headers=alice)
    assert bad.status_code == 400 and bad.get_json()["error"]["message_en"]
    theirs = client.post("/api/v1/trades", json={"to": "alice", "get_decks": [mine + 100]}, headers=bob)
    assert theirs.status_code == 409
    made = client.post("/api/v1/trades", json={"to": "bob", "give_decks": [mine]}, headers=alice)
    assert made.status_code == 201, made.get_json()
    body = made.get_json()
    assert body["proposer_side"]["gives_decks"] == [{"owned_deck": mine, "name": "山岳速攻"}]
    done = client.post(f"/api/v1/trades/{body['id']}/accept", json={"version": 1}, headers=bob)
    assert done.status_code == 200, done.get_json()
    with Session(engine) as session:
        assert session.get(OwnedDeck, mine).user_id == kit["bob"]


def test_cli_known_decks_and_register_with_an_owned_deck(runner, engine: Engine, kit, tmp_path) -> None:
    path = tmp_path / "deck.txt"
    path.write_text(DECK, encoding="utf-8")
    result = runner.invoke(args=["deck", "known", str(path)])
    assert result.exit_code == 0 and "已知卡组：1 副" in result.output
    mine = _add(engine, kit["alice"])
    created = runner.invoke(
        args=[
            "event",
            "create",
            "--name",
            "熔钥月赛",
            "--game",
            "keyforge",
            "--format",
            "archon",
            "--date",
            "2026-12-20",
        ]
    )
    assert created.exit_code == 0, created.output
    event_id = created.output.strip().split()[-1].lstrip("#")
    result = runner.invoke(args=["event", "register", event_id, "alice", "--user", "alice", "--owned-deck", str(mine)])
    assert result.exit_code == 0 and "合法" in result.output, result.output


def test_two_offers_for_one_deck_at_once_one_wins_and_one_deck_moves_once(engine: Engine, kit) -> None:
    """Races on the real database (threads): two offers holding the same deck at once, then two
    accepts of two offers: the deck is held by one offer and changes owner once."""
    from tests.kits.trade import race, won

    mine = _add(engine, kit["alice"])
    with _tx(engine) as session:
        decks.set_for_trade(session=session, user_id=kit["alice"], owned_id=mine, for_trade=True)

    def offer_to(name: str):
        return lambda session: offers.propose(
            session=session, proposer_id=kit["alice"], recipient_id=kit[name], give=[], get=[],
            give_decks=[mine], now=NOW,
        ).id  # fmt: skip

    results = race(engine, offer_to("bob"), offer_to("carol"))
    assert sorted(won(results)) == [False, True]
    (trade_id,) = [r for r in results if isinstance(r, int)]
    winner = "bob" if _trade_recipient(engine, trade_id) == kit["bob"] else "carol"
    results = race(
        engine,
        *(
            lambda session: settlement.accept(
                session=session, trade_id=trade_id, user_id=kit[winner], version=1, now=NOW + timedelta(minutes=1)
            )
            for _ in range(2)
        ),
    )
    assert all(won(results))  # the second accept is a retry: answered, nothing moved again
    with Session(engine) as session:
        assert session.get(OwnedDeck, mine).user_id == kit[winner]
        moves = session.scalars(select(DeckLedger).where(DeckLedger.reason == "trade")).all()
        assert len(moves) == 1


def _trade_recipient(engine: Engine, trade_id: int) -> int:
    from catalog.models import Trade

    with Session(engine) as session:
        return session.get(Trade, trade_id).recipient_id
