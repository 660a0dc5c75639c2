"""Stores are accounts: an organiser acts only for the stores they staff. Another
store's redemption, minting (an event at that store, a prize table past the cap), repricing and
balance reads are refused with 403 and change nothing; admins create stores and assign staff
on /admin/stores (granting the organiser role, recorded)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from sqlmodel import Session, select

from catalog.events import prizes
from catalog.events import registration as reg
from catalog.models import ChestBalance, ChestLedger, Event, ExchangeItem, Redemption, RoleGrant, User
from tests.kits.db import table_counts
from tests.kits.event import NOW, make_event, staff_store
from webapp.db import get_engine

A, B = "卡牌竞技场", "龙城卡店"


def _engine(app: Any) -> Any:
    with app.app_context():
        return get_engine()


@pytest.fixture
def two_stores(sample_app: Any, login: Any) -> dict[str, Any]:
    """Store A (staff anna) where walk-in 小明 holds 4 chests and an item costs 2; store B (staff bo)."""
    anna, bo = sample_app.test_client(), sample_app.test_client()
    login(anna, "anna", role="organizer")
    login(bo, "bo", role="organizer")
    with Session(_engine(sample_app)) as session, session.begin():
        staff_store(session, A, "anna")
        staff_store(session, B, "bo")
        prizes.change_chests(session=session, store=A, player_key="n:小明", player_name="小明", user_id=None,
                             delta=4, reason="prize", now=NOW)  # fmt: skip
        item = prizes.set_exchange_item(session=session, store=A, name="补充包", price=2, valid_from=date(2026, 1, 1),
                                        valid_until=None, now=NOW)  # fmt: skip
        event = make_event(
            session, store=A, organizer_id=session.exec(select(User.id).where(User.username == "bo")).one()
        )
        ids = {"item": item.id, "event": event.id}
    return {"anna": anna, "bo": bo, **ids}


def _state(app: Any) -> tuple[Any, ...]:
    with Session(_engine(app)) as session:
        return (
            table_counts(session.get_bind()),
            [(b.store_key, b.player_key, b.chests) for b in session.exec(select(ChestBalance))],
            [(i.id, i.price) for i in session.exec(select(ExchangeItem))],
        )


def test_another_stores_organiser_cannot_redeem_reprice_or_mint(sample_app: Any, two_stores: dict[str, Any]) -> None:
    bo = two_stores["bo"]
    before = _state(sample_app)
    redeem = {"action": "redeem", "player": "n:小明", "item": two_stores["item"], "quantity": 1}
    assert bo.post(f"/stores/{A}/exchange", data=redeem).status_code == 403
    reprice = {"item": two_stores["item"], "name": "补充包", "price": 1, "valid_from": "2026-01-01"}
    assert bo.post(f"/stores/{A}/exchange", data=reprice).status_code == 403
    new_item = {"name": "闪卡", "price": 1}
    assert bo.post(f"/stores/{A}/exchange", data=new_item).status_code == 403
    mint = {"name": "刷箱赛", "game": "samsara", "format": "standard", "date": "2026-11-28", "store": A,
            "round_minutes": "50", "top_cut": "0", "kind": "monthly"}  # fmt: skip
    assert bo.post("/events/new", data=mint).status_code == 403
    # an event at A that names bo as organiser (made before stores were accounts) is still A's
    event = two_stores["event"]
    assert bo.get(f"/events/{event}/manage").status_code == 403
    assert bo.post(f"/events/{event}/manage/prizes", data={"others": "1000"}).status_code == 403
    assert _state(sample_app) == before
    with Session(_engine(sample_app)) as session:
        assert session.exec(select(Redemption)).all() == [] and session.exec(select(ChestLedger)).all()[0].delta == 4
        assert session.exec(select(Event).where(Event.name == "刷箱赛")).first() is None


def test_only_the_stores_staff_see_its_balances(sample_app: Any, two_stores: dict[str, Any], login: Any) -> None:
    assert "小明" not in two_stores["bo"].get(f"/stores/{A}/exchange").get_data(as_text=True)
    assert "小明" not in sample_app.test_client().get(f"/stores/{A}/exchange").get_data(as_text=True)
    assert "小明" in two_stores["anna"].get(f"/stores/{A}/exchange").get_data(as_text=True)
    admin = sample_app.test_client()
    login(admin, "root", role="admin")
    assert "小明" in admin.get(f"/stores/{A}/exchange").get_data(as_text=True)


def test_the_own_stores_staff_redeem(sample_app: Any, two_stores: dict[str, Any]) -> None:
    redeem = {"action": "redeem", "player": "n:小明", "item": two_stores["item"], "quantity": 1}
    assert two_stores["anna"].post(f"/stores/{A}/exchange", data=redeem).status_code == 303
    with Session(_engine(sample_app)) as session:
        assert session.exec(select(ChestBalance.chests)).one() == 2
        assert prizes.check_chests(session) == []


def test_a_prize_table_past_the_stores_cap_is_refused(sample_app: Any, two_stores: dict[str, Any]) -> None:
    with Session(_engine(sample_app)) as session, session.begin():
        event = make_event(session, store=A, name="一千箱")
        with pytest.raises(reg.LunzangError) as refused:
            reg.set_prize_table(session=session, event=event, prizes={1: 1000, 0: 4})
        assert "20" in refused.value.message.zh
        assert reg.prize_table(session=session, event=event) == reg.DEFAULT_PRIZES
        reg.set_prize_table(session=session, event=event, prizes={1: 20, 0: 4})  # at the cap: fine


def test_admins_create_stores_and_assign_staff_on_a_page(sample_app: Any, login: Any) -> None:
    admin, carol, nobody = sample_app.test_client(), sample_app.test_client(), sample_app.test_client()
    login(admin, "root", role="admin")
    login(carol, "carol")
    login(nobody, "nobody", role="organizer")
    assert nobody.get("/admin/stores").status_code == 403
    assert (
        nobody.post("/admin/stores", data={"action": "create", "name": "黑店", "prize_cap": "1000"}).status_code == 403
    )
    assert (
        admin.post("/admin/stores", data={"action": "create", "name": B, "city": "杭州", "prize_cap": "12"}).status_code
        == 303
    )
    assert B in admin.get("/admin/stores").get_data(as_text=True)
    with Session(_engine(sample_app)) as session:
        from catalog.events.stores import find_store

        store = find_store(session=session, name=B)
        assert store is not None and store.prize_cap == 12
        store_id = store.id
    duplicate = admin.post("/admin/stores", data={"action": "create", "name": f" {B} "}, follow_redirects=True)
    assert "已经存在" in duplicate.get_data(as_text=True)
    assert (
        admin.post("/admin/stores", data={"action": "staff", "store": store_id, "username": "carol"}).status_code == 303
    )
    with Session(_engine(sample_app)) as session:
        carol_row = session.exec(select(User).where(User.username == "carol")).one()
        assert carol_row.role == "organizer"  # granted with the assignment, and recorded
        assert session.exec(select(RoleGrant).where(RoleGrant.user_id == carol_row.id)).one().new_role == "organizer"
    login(carol, "carol")
    form = {"name": "月赛", "game": "samsara", "format": "standard", "date": "2026-11-28", "store": B,
            "round_minutes": "50", "top_cut": "0", "kind": "monthly"}  # fmt: skip
    assert carol.post("/events/new", data=form).status_code == 303
    odd = admin.post("/admin/stores", data={"action": "cap", "store": store_id, "prize_cap": "²"})
    assert odd.status_code == 400 and "0–9" in odd.get_data(as_text=True)  # the site's input check
    huge = {"action": "cap", "store": store_id, "prize_cap": "99999999999"}
    assert "整数" in admin.post("/admin/stores", data=huge, follow_redirects=True).get_data(as_text=True)
    assert (
        admin.post("/admin/stores", data={"action": "unstaff", "store": store_id, "user": carol_row.id}).status_code
        == 303
    )
    assert carol.post("/events/new", data=form | {"name": "又一场"}).status_code == 403


def test_the_cli_refuses_an_organiser_outside_the_store(
    sample_app: Any, runner: Any, two_stores: dict[str, Any]
) -> None:
    result = runner.invoke(args=["event", "create", "--name", "刷箱赛", "--game", "samsara", "--date", "2026-11-28",
                                 "--store", A, "--organizer", "bo"])  # fmt: skip
    assert result.exit_code != 0 and "店员" in result.output
    ok = runner.invoke(args=["event", "create", "--name", "月赛", "--game", "samsara", "--date", "2026-11-28",
                             "--store", A, "--organizer", "anna", "--third-place", "playoff"])  # fmt: skip
    assert ok.exit_code == 0, ok.output
    with Session(_engine(sample_app)) as session:
        assert session.get(Event, int(ok.output.strip())).third_place == "playoff"
