"""My decks on the web: add by pasting, uploading or picking a known deck, mark for
trade, the deck page's houses, cards by house, enhancements and figures, and a whole-deck offer."""

from __future__ import annotations

import io
from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import owned_decks as decks
from catalog.models import OwnedDeck, TradeDeckLine
from tests.kits.owned_decks import DECK, NOW, OTHER
from tests.kits.wants import engine_of


@pytest.fixture
def kf_client(client: Any) -> Any:
    from catalog.ingest import import_catalogue
    from tests.conftest import SAMPLE

    engine = engine_of(client)
    catalog_db.upgrade(engine)
    with catalog_db.transaction(engine) as session:
        import_catalogue(session=session, paths=[SAMPLE / "keyforge"])
    return client


def _owned(client: Any, username: str) -> list[OwnedDeck]:
    from catalog.accounts import get_user_by_name

    with Session(engine_of(client)) as session:
        user = get_user_by_name(session=session, username=username)
        return list(session.scalars(select(OwnedDeck).where(OwnedDeck.user_id == user.id)))


def test_my_decks_needs_a_sign_in(kf_client: Any) -> None:
    assert kf_client.get("/decks/owned").status_code in (302, 401)
    assert kf_client.post("/decks/owned", data={"text": DECK}).status_code in (302, 401)


def test_paste_upload_and_pick_a_known_deck(kf_client: Any, login: Any) -> None:
    login(kf_client, "alice")
    response = kf_client.post("/decks/owned", data={"text": DECK})
    assert response.status_code == 302
    response = kf_client.post(
        "/decks/owned", data={"file": (io.BytesIO(OTHER.encode()), "deck.txt")}, content_type="multipart/form-data"
    )
    assert response.status_code == 302
    with catalog_db.transaction(engine_of(kf_client)) as session:
        (known,) = decks.import_known_decks(session=session, text=DECK.replace("山岳速攻", "已知"), now=NOW)
        known_id = known.id
    assert kf_client.post("/decks/owned", data={"known": str(known_id)}).status_code == 302
    assert len(_owned(kf_client, "alice")) == 3
    page = kf_client.get("/decks/owned").get_data(as_text=True)
    assert "山岳速攻" in page and "另一副" in page and "已知" in page


def test_bad_input_is_a_clear_message_and_nothing_written(kf_client: Any, login: Any) -> None:
    login(kf_client, "alice")
    response = kf_client.post("/decks/owned", data={"text": "12 山岳拳王"})
    assert response.status_code == 400 and "不合法" in response.get_data(as_text=True)
    assert kf_client.post("/decks/owned", data={"text": ""}).status_code == 400
    assert kf_client.post("/decks/owned", data={"known": "999"}).status_code == 404
    response = kf_client.post(
        "/decks/owned", data={"file": (io.BytesIO(b"\xff\xfe"), "x.txt")}, content_type="multipart/form-data"
    )
    assert response.status_code == 400
    assert _owned(kf_client, "alice") == []


def test_deck_page_shows_houses_cards_by_house_and_figures(kf_client: Any, login: Any) -> None:
    login(kf_client, "alice")
    kf_client.post("/decks/owned", data={"text": DECK})
    (owned,) = _owned(kf_client, "alice")
    page = kf_client.get(f"/decks/owned/{owned.id}").get_data(as_text=True)
    for text in ("布罗布纳", "冥界", "圣所", "山岳拳王", "变节", "强化：draw", "琥珀奖励合计", "总战斗力", "总护甲"):
        assert text in page, text


def test_mark_for_trade_and_offer_a_whole_deck(kf_client: Any, login: Any) -> None:
    login(kf_client, "alice")
    kf_client.post("/decks/owned", data={"text": DECK})
    (alice_deck,) = _owned(kf_client, "alice")
    assert kf_client.post(f"/decks/owned/{alice_deck.id}/trade", data={"for_trade": "1"}).status_code == 302
    login(kf_client, "bob")
    kf_client.post("/decks/owned", data={"text": OTHER})
    (bob_deck,) = _owned(kf_client, "bob")
    kf_client.post(f"/decks/owned/{bob_deck.id}/trade", data={"for_trade": "1"})
    # bob may not mark alice's deck
    assert kf_client.post(f"/decks/owned/{alice_deck.id}/trade", data={"for_trade": "0"}).status_code == 404
    page = kf_client.get(f"/decks/owned/{alice_deck.id}").get_data(as_text=True)
    assert "用整副卡组交换" in page
    response = kf_client.post(f"/decks/owned/{alice_deck.id}/offer", data={"give": str(bob_deck.id)})
    assert response.status_code == 302 and "/trades/" in response.headers["Location"]
    with Session(engine_of(kf_client)) as session:
        lines = {(line.giver_id, line.owned_deck_id) for line in session.scalars(select(TradeDeckLine))}
    assert {deck for _giver, deck in lines} == {alice_deck.id, bob_deck.id}
    trade_page = kf_client.get(response.headers["Location"]).get_data(as_text=True)
    assert "整副卡组" in trade_page and "山岳速攻" in trade_page


def test_register_for_a_keyforge_event_with_an_owned_deck(kf_client: Any, login: Any) -> None:
    from datetime import timedelta

    from catalog.events import registration as reg
    from catalog.models import Registration

    user = login(kf_client, "alice")
    kf_client.post("/decks/owned", data={"text": DECK})
    (owned,) = _owned(kf_client, "alice")
    with catalog_db.transaction(engine_of(kf_client)) as session:
        event = reg.create_event(
            session=session, name="熔钥月赛", game="keyforge", format_code="archon",
            date=NOW.date() + timedelta(days=3), now=NOW, store="卡牌竞技场", city="上海",
        )  # fmt: skip
        event_id = event.id
    page = kf_client.get(f"/events/{event_id}").get_data(as_text=True)
    assert "用我拥有的卡组" in page and "山岳速攻" in page
    response = kf_client.post(f"/events/{event_id}/register", data={"owned_deck": str(owned.id)})
    assert response.status_code == 303
    with Session(engine_of(kf_client)) as session:
        entry = session.scalars(select(Registration).where(Registration.user_id == user.id)).one()
        assert entry.owned_deck_id == owned.id and entry.legal is True
    assert "卡组身份已锁定" in kf_client.get(f"/events/{event_id}").get_data(as_text=True)
    # locked: it cannot be put up for trade while the event is not over
    assert kf_client.post(f"/decks/owned/{owned.id}/trade", data={"for_trade": "1"}).status_code == 409


def test_a_web_counter_keeps_the_whole_decks(kf_client: Any, login: Any) -> None:
    login(kf_client, "alice")
    kf_client.post("/decks/owned", data={"text": DECK})
    (alice_deck,) = _owned(kf_client, "alice")
    kf_client.post(f"/decks/owned/{alice_deck.id}/trade", data={"for_trade": "1"})
    login(kf_client, "bob")
    response = kf_client.post(f"/decks/owned/{alice_deck.id}/offer", data={"message": "想要"})
    trade_url = response.headers["Location"]
    login(kf_client, "alice")
    response = kf_client.post(trade_url + "/counter", data={"version": "1", "message": "好"})
    assert response.status_code == 302, response.get_data(as_text=True)[:500]
    with Session(engine_of(kf_client)) as session:
        versions = {(line.version, line.owned_deck_id) for line in session.scalars(select(TradeDeckLine))}
    assert versions == {(1, alice_deck.id), (2, alice_deck.id)}
