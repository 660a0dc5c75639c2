"""Nothing irreversible on one tap, deck gates (§3) and editing an event (§4):
consequences stated before a confirmation, undo where the world allows it (undrop, unlock,
reopen with the chests reversed through the ledger), the audit log, the deck policy, the
explicit choice for flagged prize winners, edits before round 1 (web and CLI)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from catalog.events import prizes, running, safety
from catalog.events import registration as reg
from catalog.events.prizes import check_chests
from catalog.models import ChestBalance, ChestLedger, Event, EventAudit
from tests.kits.event import NOW, make_event, seat_players, staff_store
from webapp.db import get_engine

NAMES = ["阿明", "白露", "陈晨", "丁一", "鄂尔", "方圆"]


def _play(session: Session, event: Event, rounds: int) -> None:
    for _ in range(rounds):
        _round, tables = running.pair_next_round(session=session, event=event, seed=7, now=NOW)
        for m in tables:
            if m.player_b_id is not None:
                running.record_result(session=session, event=event, match=m, wins_a=2, wins_b=0, draws=0, now=NOW)


def _texts(lines: list[Any]) -> list[str]:
    return [line.en for line in lines]


def test_finishing_early_states_the_unplayed_rounds_and_the_chests(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session, rounds=5)
        seat_players(session, event, NAMES, sample_catalogue)
        _play(session, event, 3)
        lines = _texts(safety.consequences(session=session, event=event, action="finish"))
        assert "2 of 5 planned rounds unplayed" in lines
        assert any(line.startswith("6 players get chests, ") for line in lines)


def test_locking_states_the_list_problems(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session)
        seat_players(session, event, NAMES[:2], sample_catalogue)
        reg.register_player(session=session, event=event, player_name="缺一", now=NOW)
        reg.register_player(
            session=session, event=event, player_name="错一", now=NOW, deck_text="主卡组:\n3 不存在的卡"
        )
        lines = _texts(safety.consequences(session=session, event=event, action="close"))
        assert "1 illegal list(s), 1 missing" in lines and "the lists of 4 players lock" in lines


def test_undrop_until_the_next_round_is_paired(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session, rounds=3)
        players = seat_players(session, event, NAMES[:4], sample_catalogue)
        _play(session, event, 1)
        reg.drop_player(session=session, event=event, registration=players[0])
        safety.undrop(session=session, event=event, registration=players[0])
        assert players[0].dropped_from is None
        reg.drop_player(session=session, event=event, registration=players[0])
        _play(session, event, 1)
        with pytest.raises(reg.EventError, match="已经配对"):
            safety.undrop(session=session, event=event, registration=players[0])
        assert players[0].dropped_from == 2


def test_unlock_only_before_round_one(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session)
        seat_players(session, event, NAMES[:4], sample_catalogue)
        reg.close_registration(session=session, event=event)
        safety.unlock(session=session, event=event)
        assert event.state == "open"
        _play(session, event, 1)
        with pytest.raises(reg.EventError):
            safety.unlock(session=session, event=event)


def test_reopen_reverses_the_chests_through_the_ledger_unless_spent(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session, rounds=2)
        seat_players(session, event, NAMES[:4], sample_catalogue)
        _play(session, event, 2)
        running.finish_event(session=session, event=event)
        prizes.award_chests(session=session, event=event, now=NOW)
        awarded = sum(b.chests for b in session.exec(select(ChestBalance)))
        assert awarded == 9 + 7 + 5 + 4
        safety.reopen(session=session, event=event, now=NOW)
        assert event.state == "running" and not event.chests_awarded
        assert sum(b.chests for b in session.exec(select(ChestBalance))) == 0 and check_chests(session) == []
        assert sorted(r.delta for r in session.exec(select(ChestLedger)))[:1] == [-9]  # reversed, not deleted
        running.finish_event(session=session, event=event)
        prizes.award_chests(session=session, event=event, now=NOW)  # awarded again, once
        assert sum(b.chests for b in session.exec(select(ChestBalance))) == awarded
        champion = max(session.exec(select(ChestBalance)), key=lambda b: b.chests)
        prizes.change_chests(
            session=session, store=champion.store, player_key=champion.player_key, player_name=champion.player_name,
            user_id=None, delta=-5, reason="redeem", now=NOW,
        )  # fmt: skip
        with pytest.raises(reg.EventError, match="已经花掉") as refused:
            safety.reopen(session=session, event=event, now=NOW)
        assert champion.player_name in refused.value.message.zh
        assert event.state == "finished" and check_chests(session) == []


def test_the_required_policy_pairs_legal_lists_only(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session, deck_policy="required")
        seat_players(session, event, NAMES[:3], sample_catalogue)
        reg.register_player(session=session, event=event, player_name="缺一", now=NOW)
        with pytest.raises(reg.EventError, match="1 名选手没有卡组") as refused:
            running.pair_next_round(session=session, event=event, seed=1, now=NOW)
        assert "缺一" in refused.value.message.zh
        safety.edit_event(session=session, event=event, changes={"deck_policy": "flag"}, now=NOW)
        _round, tables = running.pair_next_round(session=session, event=event, seed=1, now=NOW)
        assert len(tables) == 2


@pytest.mark.parametrize("choice", [None, "withhold", "award"])
def test_chests_for_a_flagged_winner_need_a_choice(sample_catalogue: Engine, choice: str | None) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session, rounds=1)
        seat_players(session, event, NAMES[:1], sample_catalogue)
        reg.register_player(session=session, event=event, player_name="缺一", now=NOW)
        _play(session, event, 1)
        running.finish_event(session=session, event=event)
        if choice is None:
            with pytest.raises(reg.EventError, match="请选择照发还是不发"):
                prizes.award_chests(session=session, event=event, now=NOW)
            assert session.exec(select(ChestLedger)).all() == []
            return
        prizes.award_chests(session=session, event=event, now=NOW, flagged=choice)
        held = {b.player_name: b.chests for b in session.exec(select(ChestBalance))}
        assert ("缺一" in held) == (choice == "award") and held["阿明"] > 0


def test_an_event_is_edited_until_it_starts(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session)
        players = seat_players(session, event, NAMES[:4], sample_catalogue)
        changed = safety.edit_event(session=session, event=event, changes={
            "name": "十二月月赛", "rounds": 3, "third_place": "playoff", "round_minutes": 40, "format_code": "standard",
        }, now=NOW)  # fmt: skip
        assert set(changed) == {"name", "rounds", "third_place", "round_minutes"}
        with pytest.raises(reg.EventError):
            safety.edit_event(session=session, event=event, changes={"rounds": 99}, now=NOW)
        with pytest.raises(reg.EventError):
            safety.edit_event(session=session, event=event, changes={"state": "finished"}, now=NOW)
        assert players[0].legal is True
        _play(session, event, 1)
        with pytest.raises(reg.EventError, match="赛事已经开始"):
            safety.edit_event(session=session, event=event, changes={"name": "x"}, now=NOW)
        safety.add_round(session=session, event=event)
        assert event.rounds == 4
        safety.end_early(session=session, event=event)
        assert event.rounds == 1
        running.finish_event(session=session, event=event)


def _web_event(app: Any, login: Any, rounds: int = 5) -> tuple[Any, int]:
    shop = app.test_client()
    login(shop, "shop", role="organizer")
    engine = get_engine(app)
    with Session(engine) as session, session.begin():
        staff_store(session, "卡牌竞技场", "shop")
        event = make_event(session, rounds=rounds)
        seat_players(session, event, NAMES[:4], engine)
        event_id = int(event.id)
    return shop, event_id


def test_one_tap_only_asks_and_changes_nothing(sample_app: Any, login: Any) -> None:
    shop, event_id = _web_event(sample_app, login)
    for round_number in (1, 2, 3):
        asked = shop.post(f"/events/{event_id}/manage/pair", data={"seed": "5"})
        assert asked.status_code == 200 and 'name="confirm" value="1"' in asked.get_data(as_text=True)
        if round_number == 1:
            assert "配对第 1 轮会截止报名并锁定卡组" in asked.get_data(as_text=True)
        assert shop.post(f"/events/{event_id}/manage/pair", data={"seed": "5", "confirm": "1"}).status_code == 303
        with Session(get_engine(sample_app)) as session:
            tables = running.matches(session=session, event=session.get(Event, event_id), round_number=round_number)
        for m in tables:
            if m.player_b_id:
                shop.post(f"/events/{event_id}/manage/result", data={"round": round_number, "table": m.table_number,
                                                                      "score": "2-1-0"})  # fmt: skip
    asked = shop.post(f"/events/{event_id}/manage/finish").get_data(as_text=True)
    assert "计划的 5 轮中有 2 轮没有打" in asked and "4 名选手获得白银宝箱，共 25 个（卡牌竞技场）" in asked
    with Session(get_engine(sample_app)) as session:
        assert session.get(Event, event_id).state == "running" and session.exec(select(ChestLedger)).all() == []
    player = re.search(
        r'name="player" value="(\d+)"', shop.get(f"/events/{event_id}/manage?tab=players").get_data(as_text=True)
    ).group(1)
    asked = shop.post(f"/events/{event_id}/manage/drop", data={"player": player}).get_data(as_text=True)
    assert "第 4 轮配对前可以撤销" in asked
    assert shop.post(f"/events/{event_id}/manage/drop", data={"player": player, "confirm": "1"}).status_code == 303
    assert shop.post(f"/events/{event_id}/manage/undrop", data={"player": player}).status_code == 303
    assert shop.post(f"/events/{event_id}/manage/finish", data={"confirm": "1"}).status_code == 303
    assert shop.post(f"/events/{event_id}/manage/reopen", data={"confirm": "1"}).status_code == 303
    log = shop.get(f"/events/{event_id}/manage?tab=log").get_data(as_text=True)
    assert "shop" in log and "撤销退赛" in log and "重新开放赛事" in log
    with Session(get_engine(sample_app)) as session:
        actions = [a.action for a in session.exec(select(EventAudit).order_by(EventAudit.id))]
        assert actions == ["pair", "pair", "pair", "drop", "undrop", "finish", "reopen"]
        assert check_chests(session) == [] and sum(b.chests for b in session.exec(select(ChestBalance))) == 0


def test_a_result_button_lands_on_the_next_table_without_a_result(sample_app: Any, login: Any) -> None:
    shop, event_id = _web_event(sample_app, login)
    shop.post(f"/events/{event_id}/manage/pair", data={"seed": "5", "confirm": "1"})
    page = shop.get(f"/events/{event_id}/manage").get_data(as_text=True)
    assert page.count('<li class="round-card') == 2 and "还有 2 桌没有结果" in page
    done = shop.post(f"/events/{event_id}/manage/result", data={"round": 1, "table": 1, "score": "1-1-1"})
    assert done.status_code == 303 and done.headers["Location"].endswith("tab=round#table-2")
    as_json = shop.post(f"/events/{event_id}/manage/result", data={"round": 1, "table": 2, "score": "0-2-0"},
                        headers={"Accept": "application/json"})  # fmt: skip
    assert as_json.get_json() == {"table": 2, "result": "0-2-0", "left": 0, "next": None}
    bad = shop.post(f"/events/{event_id}/manage/result", data={"round": 1, "table": 2, "score": "9-9-9"},
                    headers={"Accept": "application/json"})  # fmt: skip
    assert bad.status_code == 400 and "比分" in bad.get_json()["error"]["message"]
    open_only = shop.get(f"/events/{event_id}/manage?tab=round&show=open").get_data(as_text=True)
    assert '<li class="round-card' not in open_only and "还有 0 桌没有结果" in open_only


def test_the_settings_tab_edits_the_event(sample_app: Any, login: Any) -> None:
    shop, event_id = _web_event(sample_app, login)
    form = {"name": "十二月月赛", "date": "2026-12-26", "store": "卡牌竞技场", "format": "standard", "rounds": "4",
            "round_minutes": "45", "top_cut": "0", "third_place": "playoff", "deck_policy": "flag",
            "deadline": ""}  # fmt: skip
    assert shop.post(f"/events/{event_id}/manage/edit", data=form).status_code == 303
    with Session(get_engine(sample_app)) as session:
        event = session.get(Event, event_id)
        assert (event.name, event.rounds, event.round_minutes, event.third_place) == ("十二月月赛", 4, 45, "playoff")
    other = form | {"store": "别人的店"}
    assert shop.post(f"/events/{event_id}/manage/edit", data=other).status_code == 403
    settings = shop.get(f"/events/{event_id}/manage?tab=settings").get_data(as_text=True)
    assert 'value="十二月月赛"' in settings and "<select" in settings


def test_event_edit_on_the_command_line(sample_app: Any, runner: Any) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        event_id = int(make_event(session).id)
    result = runner.invoke(args=["event", "edit", str(event_id), "--name", "新名字", "--rounds", "4", "--third-place",
                                 "playoff", "--deck-policy", "required"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "name" in result.output and "rounds" in result.output
    bad = runner.invoke(args=["event", "edit", str(event_id), "--format", "nonsense"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    with Session(get_engine(sample_app)) as session:
        event = session.get(Event, event_id)
        assert (event.name, event.rounds, event.third_place, event.deck_policy) == ("新名字", 4, "playoff", "required")


def test_flagged_lists_in_the_standings_and_the_export(sample_app: Any, login: Any) -> None:
    from io import BytesIO

    from openpyxl import load_workbook

    shop, event_id = _web_event(sample_app, login)
    shop.post(f"/events/{event_id}/manage/walk_in", data={"name": "缺一"})
    with Session(get_engine(sample_app)) as session, session.begin():
        safety.edit_event(session=session, event=session.get(Event, event_id), changes={"deck_policy": "flag"}, now=NOW)
    shop.post(f"/events/{event_id}/manage/pair", data={"seed": "5", "confirm": "1"})
    round_view = shop.get(f"/events/{event_id}/manage").get_data(as_text=True)
    assert "0 份卡组不合法，1 名选手没有卡组" in round_view and round_view.count("list-flag") == 1
    for page in (f"/events/{event_id}", f"/events/{event_id}/standings?round=0"):
        assert "缺卡组" in shop.get(page).get_data(as_text=True), page
        assert "缺卡组" not in sample_app.test_client().get(page).get_data(as_text=True), page  # organiser only
    book = load_workbook(BytesIO(shop.get(f"/events/{event_id}/export.xlsx").get_data()))
    assert "缺卡组" in [c.value for c in book["排名"]["L"]] and "缺卡组" in [c.value for c in book["选手与卡组"]["E"]]
