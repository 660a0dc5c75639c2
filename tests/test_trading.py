"""Trading use cases: offers, reservation, needs attention, settlement, expiry.

Anchors: OpenMTG (any edit resets both confirmations), SteamKey.Trade (accept refused when the
item is gone; disputed must not show as completed), Deckbox (a cancel after acceptance needs
both parties), and the shipped bugs "accepting more copies than owned" and "a request for 2
copies taking 1".
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.collection.ledger import adjust, set_for_trade
from catalog.models import LedgerEntry, TradeEvent
from catalog.trading import (
    NeedsAttention,
    OfferLimit,
    StaleVersion,
    TradeConflict,
    TradeError,
    TradeNotFound,
    TradeSettings,
    Unavailable,
    accept,
    cancel,
    counter,
    decline,
    dispute,
    mark_received,
    mark_sent,
    propose,
)
from catalog.trading.offers import expire_due
from catalog.trading.reads import action_count, list_trades, trade_view
from catalog.trading.reservation import available, held
from tests.kits.trade import NM, NOW, Kit, make_kit, tx


@pytest.fixture
def kit(engine: Engine, make_user, tmp_path: Path) -> Kit:
    kit = make_kit(engine, make_user, tmp_path)
    kit.stock("alice", "T1-001", 3, 2)  # 3 owned, 2 for trade
    kit.stock("bob", "T1-005", 1, 1)
    kit.stock("carol", "T1-006", 2, 2)
    return kit


def offer(kit: Kit, frm: str, to: str, give=(), get=(), mode: str = "local", **kw) -> int:
    with tx(kit.engine) as session:
        trade = propose(
            session=session,
            proposer_id=kit.users[frm],
            recipient_id=kit.users[to],
            give=list(give),
            get=list(get),
            mode=mode,
            message="换吗？",
            now=kw.pop("now", NOW),
            **kw,
        )
        assert trade.id is not None
        return trade.id


def test_local_trade_settles_once_through_the_ledger_on_both_sides(kit: Kit) -> None:
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001", 2)], get=[kit.line("T1-005")])
    with tx(kit.engine) as session:
        out = accept(session=session, trade_id=tid, user_id=kit.users["bob"], version=1, now=NOW)
        assert (out.trade.status, out.repeated) == ("completed", False)
    assert kit.owned("alice", "T1-001") == (1, 0)  # 3 − 2; for trade 2 − 2
    assert kit.owned("bob", "T1-001") == (2, 0)  # received copies are not offered on
    assert kit.owned("bob", "T1-005") == (0, 0)
    assert kit.owned("alice", "T1-005") == (1, 0)
    with Session(kit.engine) as session:
        rows = session.scalars(select(LedgerEntry).where(LedgerEntry.reason == "trade")).all()
        assert sorted((r.user_id, r.delta, r.trade_delta, r.ref) for r in rows) == sorted(
            [
                (kit.users["alice"], -2, -2, str(tid)),
                (kit.users["bob"], 2, 0, str(tid)),
                (kit.users["bob"], -1, -1, str(tid)),
                (kit.users["alice"], 1, 0, str(tid)),
            ]
        )
    # A retried accept (the same request again) answers the trade and moves nothing.
    with tx(kit.engine) as session:
        again = accept(session=session, trade_id=tid, user_id=kit.users["bob"], version=1, now=NOW)
        assert again.repeated and again.trade.status == "completed"
    assert kit.ledger_rows("trade") == 4


def test_an_offer_holds_the_proposers_copies(kit: Kit) -> None:
    offer(kit, "alice", "bob", give=[kit.line("T1-001", 2)])
    with Session(kit.engine) as session:
        assert held(session, giver_id=kit.users["alice"], now=NOW) == {(kit.pids["T1-001"], NM): 2}
        assert available(session, user_id=kit.users["alice"], now=NOW) == {}
    before = kit.trade_rows()
    with pytest.raises(Unavailable) as refused, tx(kit.engine) as session:
        propose(
            session=session,
            proposer_id=kit.users["alice"],
            recipient_id=kit.users["carol"],
            give=[kit.line("T1-001", 1)],
            get=[],
            now=NOW,
        )
    assert "赤焰剑士" in refused.value.message.zh and "可交换的只有 0 张" in refused.value.message.zh
    assert refused.value.lines[0]["number"] == "T1-001" and refused.value.lines[0]["available"] == 0
    assert kit.trade_rows() == before


@pytest.mark.parametrize(
    ("give", "get", "words"),
    [
        ([("T1-001", 3)], [], "可交换的只有 2 张"),  # more than the proposer has for trade
        ([], [("T1-005", 2)], "要 2 张，可交换的只有 1 张"),  # a request for 2 of someone's 1
        ([], [("T1-007", 1)], "可交换的只有 0 张"),  # a card the recipient does not have
    ],
)
def test_beyond_availability_is_409_naming_the_lines(kit: Kit, give, get, words) -> None:
    with pytest.raises(Unavailable) as refused, tx(kit.engine) as session:
        propose(
            session=session,
            proposer_id=kit.users["alice"],
            recipient_id=kit.users["bob"],
            give=[kit.line(n, q) for n, q in give],
            get=[kit.line(n, q) for n, q in get],
            now=NOW,
        )
    assert words in refused.value.message.zh
    assert kit.trade_rows() == 0


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"recipient": "alice"}, "不能和自己交易"),
        ({"quantity": 0}, "数量必须是 1 到 999"),
        ({"quantity": -2}, "数量必须是 1 到 999"),
        ({"mode": "pigeon"}, "未知的交易方式"),
        ({"empty": True}, "至少要有一张卡"),
        ({"message": "长" * 1001}, "留言最多"),
    ],
)
def test_bad_offers_are_refused_in_chinese_and_write_nothing(kit: Kit, change, words) -> None:
    quantity = change.get("quantity", 1)
    with pytest.raises(TradeError) as refused, tx(kit.engine) as session:
        propose(
            session=session,
            proposer_id=kit.users["alice"],
            recipient_id=kit.users[change.get("recipient", "bob")],
            give=[] if change.get("empty") else [kit.line("T1-001", quantity)],
            get=[],
            mode=change.get("mode", "local"),
            message=change.get("message", ""),
            now=NOW,
        )
    assert words in refused.value.message.zh and refused.value.message.en
    assert kit.trade_rows() == 0


def test_counter_is_a_new_version_and_resets_confirmations(kit: Kit) -> None:
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001", 1)], get=[kit.line("T1-005")])
    with tx(kit.engine) as session:  # bob wants two of alice's for his one
        t = counter(
            session=session,
            trade_id=tid,
            user_id=kit.users["bob"],
            version=1,
            give=[kit.line("T1-005")],
            get=[kit.line("T1-001", 2)],
            now=NOW,
        )
        assert (t.version, t.status, t.author_id) == (2, "countered", kit.users["bob"])
    with pytest.raises(TradeConflict, match="对方接受"), tx(kit.engine) as session:  # bob cannot accept his own
        accept(session=session, trade_id=tid, user_id=kit.users["bob"], version=2, now=NOW)
    with pytest.raises(StaleVersion) as stale, tx(kit.engine) as session:  # alice saw version 1
        accept(session=session, trade_id=tid, user_id=kit.users["alice"], version=1, now=NOW)
    assert "第 2 版" in stale.value.message.zh
    with tx(kit.engine) as session:
        accept(session=session, trade_id=tid, user_id=kit.users["alice"], version=2, now=NOW)
    assert kit.owned("bob", "T1-001") == (2, 0) and kit.owned("alice", "T1-001") == (1, 0)
    with Session(kit.engine) as session:
        view = trade_view(session=session, trade_id=tid, viewer_id=kit.users["alice"], now=NOW)
        assert [e.action for e in view.events] == ["propose", "counter", "accept", "complete"]
        assert [e.actor for e in view.events] == ["alice", "bob", "alice", "alice"]


def test_held_copy_leaving_marks_needs_attention_until_countered(kit: Kit) -> None:
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001", 2)])
    with tx(kit.engine) as session:  # alice sells two copies elsewhere: 3 → 1, for trade follows to 1
        adjust(
            session=session,
            user_id=kit.users["alice"],
            printing_id=kit.pids["T1-001"],
            delta=-2,
            reason="manual",
            now=NOW,
        )
    assert kit.trade(tid).needs_attention
    with pytest.raises(NeedsAttention), tx(kit.engine) as session:
        accept(session=session, trade_id=tid, user_id=kit.users["bob"], version=1, now=NOW)
    with pytest.raises(Unavailable), tx(kit.engine) as session:  # the fix must fit the new for-trade
        counter(
            session=session,
            trade_id=tid,
            user_id=kit.users["alice"],
            version=1,
            give=[kit.line("T1-001", 2)],
            get=[],
            now=NOW,
        )
    with tx(kit.engine) as session:
        counter(
            session=session,
            trade_id=tid,
            user_id=kit.users["alice"],
            version=1,
            give=[kit.line("T1-001", 1)],
            get=[],
            now=NOW,
        )
    assert not kit.trade(tid).needs_attention
    with tx(kit.engine) as session:
        accept(session=session, trade_id=tid, user_id=kit.users["bob"], version=2, now=NOW)
    assert kit.owned("bob", "T1-001") == (1, 0)


def test_lowering_for_trade_and_another_trade_mark_the_offers_relying_on_it(kit: Kit) -> None:
    # carol asks for alice's two for-trade copies (alice has not agreed: nothing held)
    asked = offer(kit, "carol", "alice", give=[kit.line("T1-006")], get=[kit.line("T1-001", 2)])
    # alice gives one of them to bob; carol's request can no longer be met
    given = offer(kit, "alice", "bob", give=[kit.line("T1-001", 1)])
    assert not kit.trade(asked).needs_attention  # 2 for trade − 1 held = 1 < 2? checked on accept, marked on loss
    with tx(kit.engine) as session:
        accept(session=session, trade_id=given, user_id=kit.users["bob"], version=1, now=NOW)
    assert kit.trade(asked).needs_attention
    third = offer(kit, "bob", "alice", get=[kit.line("T1-001", 1)])
    with tx(kit.engine) as session:
        set_for_trade(session=session, user_id=kit.users["alice"], printing_id=kit.pids["T1-001"], for_trade=0, now=NOW)
    assert kit.trade(third).needs_attention


def test_decline_cancel_and_their_guards(kit: Kit) -> None:
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001")])
    with pytest.raises(TradeConflict, match="撤回"), tx(kit.engine) as session:
        decline(session=session, trade_id=tid, user_id=kit.users["alice"], now=NOW)
    with tx(kit.engine) as session:
        assert decline(session=session, trade_id=tid, user_id=kit.users["bob"], now=NOW).status == "declined"
    with pytest.raises(TradeConflict), tx(kit.engine) as session:
        accept(session=session, trade_id=tid, user_id=kit.users["bob"], version=1, now=NOW)
    other = offer(kit, "alice", "bob", give=[kit.line("T1-001")])
    with tx(kit.engine) as session:
        assert cancel(session=session, trade_id=other, user_id=kit.users["alice"], now=NOW).status == "cancelled"
    with Session(kit.engine) as session:
        assert held(session, giver_id=kit.users["alice"], now=NOW) == {}


def test_offers_expire_after_14_days_by_default_and_the_setting_changes_it(kit: Kit) -> None:
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001", 2)])
    later = NOW + timedelta(days=14, seconds=1)
    with Session(kit.engine) as session:
        assert held(session, giver_id=kit.users["alice"], now=later) == {}
        assert [v.status for v in list_trades(session=session, user_id=kit.users["bob"], now=later)] == ["expired"]
    with pytest.raises(TradeConflict, match="过期"), tx(kit.engine) as session:
        accept(session=session, trade_id=tid, user_id=kit.users["bob"], version=1, now=later)
    with tx(kit.engine) as session:
        assert expire_due(session=session, user_ids=[kit.users["bob"]], now=later) == 1
    assert kit.trade(tid).status == "expired"
    short = offer(kit, "alice", "bob", give=[kit.line("T1-001")], settings=TradeSettings(expiry_days=2))
    with Session(kit.engine) as session:
        assert held(session, giver_id=kit.users["alice"], now=NOW + timedelta(days=3)) == {}
    assert kit.trade(short).status == "proposed"


def test_mail_trade_moves_each_side_on_its_receipt(kit: Kit) -> None:
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001")], get=[kit.line("T1-005")], mode="mail")
    with tx(kit.engine) as session:
        assert (
            accept(session=session, trade_id=tid, user_id=kit.users["bob"], version=1, now=NOW).trade.status
            == "accepted"
        )
    assert kit.owned("bob", "T1-001") == (0, 0) and kit.ledger_rows("trade") == 0  # nothing moves on accept
    with Session(kit.engine) as session:  # both sides stay held while in the mail
        assert held(session, giver_id=kit.users["bob"], now=NOW) == {(kit.pids["T1-005"], NM): 1}
        assert action_count(session=session, user_id=kit.users["alice"], now=NOW) == 1
    with tx(kit.engine) as session:
        mark_sent(session=session, trade_id=tid, user_id=kit.users["alice"], now=NOW)
        out = mark_received(session=session, trade_id=tid, user_id=kit.users["bob"], now=NOW)
        assert out.trade.status == "accepted"
    assert kit.owned("bob", "T1-001") == (1, 0) and kit.owned("alice", "T1-005") == (0, 0)
    with tx(kit.engine) as session:  # a retried confirmation moves nothing
        assert mark_received(session=session, trade_id=tid, user_id=kit.users["bob"], now=NOW).repeated
    with pytest.raises(TradeConflict, match="不能再取消"), tx(kit.engine) as session:
        cancel(session=session, trade_id=tid, user_id=kit.users["bob"], now=NOW)
    with tx(kit.engine) as session:
        assert (
            mark_received(session=session, trade_id=tid, user_id=kit.users["alice"], now=NOW).trade.status
            == "completed"
        )
    assert kit.owned("alice", "T1-005") == (1, 0) and kit.ledger_rows("trade") == 4


def test_cancel_after_acceptance_needs_both_parties(kit: Kit) -> None:
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001")], mode="mail")
    with tx(kit.engine) as session:
        accept(session=session, trade_id=tid, user_id=kit.users["bob"], version=1, now=NOW)
    with tx(kit.engine) as session:
        t = cancel(session=session, trade_id=tid, user_id=kit.users["bob"], now=NOW)
        assert (t.status, t.cancel_requested_by) == ("accepted", kit.users["bob"])
    with tx(kit.engine) as session:
        assert cancel(session=session, trade_id=tid, user_id=kit.users["alice"], now=NOW).status == "cancelled"
    with Session(kit.engine) as session:
        assert held(session, giver_id=kit.users["alice"], now=NOW) == {}


def test_a_dispute_stays_a_dispute(kit: Kit) -> None:
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001")], mode="mail")
    with tx(kit.engine) as session:
        accept(session=session, trade_id=tid, user_id=kit.users["bob"], version=1, now=NOW)
        dispute(session=session, trade_id=tid, user_id=kit.users["bob"], now=NOW, message="包裹丢了")
    with tx(kit.engine) as session:  # the parcel turns up after all: the cards move, the dispute stays
        assert (
            mark_received(session=session, trade_id=tid, user_id=kit.users["bob"], now=NOW).trade.status == "disputed"
        )
    assert kit.owned("bob", "T1-001") == (1, 0)
    with Session(kit.engine) as session:
        assert [v.status for v in list_trades(session=session, user_id=kit.users["alice"], now=NOW, tab="history")] == [
            "disputed"
        ]


def test_new_accounts_are_limited_in_open_offers(kit: Kit) -> None:
    settings = TradeSettings(new_account_trades=1, new_account_open_offers=1)
    offer(kit, "alice", "bob", give=[kit.line("T1-001")], settings=settings)
    with pytest.raises(OfferLimit, match="最多同时发出 1 个"), tx(kit.engine) as session:
        propose(
            session=session,
            proposer_id=kit.users["alice"],
            recipient_id=kit.users["carol"],
            give=[kit.line("T1-001")],
            get=[],
            now=NOW,
            settings=settings,
        )
    offer(kit, "alice", "carol", give=[kit.line("T1-001")], settings=TradeSettings(new_account_trades=0))


def test_third_users_learn_nothing_and_cannot_act(kit: Kit, make_user) -> None:
    tid = offer(kit, "alice", "bob", give=[kit.line("T1-001")])
    carol = kit.users["carol"]
    with Session(kit.engine) as session:
        with pytest.raises(TradeNotFound):
            trade_view(session=session, trade_id=tid, viewer_id=carol, now=NOW)
        assert trade_view(session=session, trade_id=tid, viewer_id=carol, is_admin=True, now=NOW).id == tid
    for action in (
        lambda s: accept(session=s, trade_id=tid, user_id=carol, version=1, now=NOW),
        lambda s: counter(
            session=s, trade_id=tid, user_id=carol, version=1, give=[], get=[kit.line("T1-001")], now=NOW
        ),
        lambda s: cancel(session=s, trade_id=tid, user_id=carol, now=NOW),
        lambda s: decline(session=s, trade_id=tid, user_id=carol, now=NOW),
    ):
        with pytest.raises(TradeNotFound), tx(kit.engine) as session:
            action(session)
    assert kit.trade(tid).status == "proposed"
    with Session(kit.engine) as session:
        assert session.scalars(select(TradeEvent.action)).all() == ["propose"]


def test_lunzang_trades_expire_records_every_lapsed_offer(app, kit: Kit) -> None:
    # the fresh one first: proposing records the lapsed offers of the two users itself
    fresh = offer(kit, "alice", "carol", give=[kit.line("T1-001")], now=NOW + timedelta(days=3650))
    lapsed = offer(kit, "alice", "bob", give=[kit.line("T1-001")], now=NOW - timedelta(days=30))
    result = app.test_cli_runner().invoke(args=["trades", "expire"])
    assert result.exit_code == 0 and "已将 1 个报价标为过期" in result.output
    assert (kit.trade(lapsed).status, kit.trade(fresh).status) == ("expired", "proposed")
    with Session(kit.engine) as session:
        assert session.scalars(select(TradeEvent.action).where(TradeEvent.trade_id == lapsed)).all() == [
            "propose",
            "expire",
        ]
