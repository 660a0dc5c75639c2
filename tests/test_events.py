"""Events through the use cases on a real database: registration and the deck lock, pairing
rounds, results and corrections, drops, late entries, prizes with the chest ledger, seasons,
and the XLSX/CSV score sheet re-opened cell by cell."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from openpyxl import load_workbook
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.events import prizes, running, seasons
from catalog.events import registration as reg
from catalog.events.export import event_csv, event_workbook
from catalog.events.prizes import NotEnoughChests, check_chests
from catalog.events.registration import DeckLocked, EventError
from tests.kits.deck import legal_samsara_list
from tests.kits.event import DAY, NOW, later, make_event, seat_players

NAMES = ["阿明", "白露", "陈晨", "丁一", "鄂尔", "方圆", "高远", "何夕"]


def _play_round(session: Session, event, results: dict[int, tuple[int, int, int]] | None = None):
    _round, tables = running.pair_next_round(session=session, event=event, seed=7, now=NOW)
    for m in tables:
        if m.player_b_id is not None:
            wins = (results or {}).get(m.table_number, (2, 0, 0))
            running.record_result(session=session, event=event, match=m, wins_a=wins[0], wins_b=wins[1],
                                  draws=wins[2], now=NOW)  # fmt: skip
    return tables


def test_registration_snapshots_hashes_and_judges_the_list(sample_catalogue: Engine) -> None:
    text = legal_samsara_list(sample_catalogue)
    with Session(sample_catalogue) as session:
        event = make_event(session)
        first = reg.register_player(session=session, event=event, player_name="阿明", now=NOW, deck_text=text)
        assert first.legal is True and first.verdict["legal"] is True and len(first.deck_hash) == 64
        # The same cards written differently hash the same; one card more does not.
        lines = text.splitlines()
        split = lines.index("额外卡组:")
        mains, extras = lines[2:split], lines[split + 1 :]
        name = mains[0].split(" ", 1)[1]
        rewritten = ["主卡组:", f"1 {name}", *reversed(mains[1:]), f"2x {name}", "额外卡组:", *reversed(extras)]
        reordered = reg.snapshot(session=session, event=event, text="\n".join(rewritten))
        assert reordered.hash == first.deck_hash
        more = reg.snapshot(session=session, event=event, text=text + "1 无之法力石\n")
        assert more.hash != first.deck_hash
        bad = reg.register_player(
            session=session, event=event, player_name="白露", now=NOW, deck_text="主卡组:\n3 不存在的卡"
        )
        assert bad.legal is False
        assert {v["code"] for v in bad.verdict["violations"]} >= {"unknown_card", "main_too_small"}
        with pytest.raises(EventError, match="已经报名"):
            reg.register_player(session=session, event=event, player_name=" 阿明 ", now=NOW)


def test_the_list_locks_at_the_deadline(sample_catalogue: Engine) -> None:
    text = legal_samsara_list(sample_catalogue)
    with Session(sample_catalogue) as session:
        event = make_event(session, deadline=later(60))
        player = reg.register_player(session=session, event=event, player_name="阿明", now=NOW, deck_text=text)
        changed = text + "1 无之法力石\n"
        reg.set_deck(session=session, event=event, registration=player, text=changed, now=later(30))
        locked_hash = player.deck_hash
        with pytest.raises(DeckLocked):
            reg.set_deck(session=session, event=event, registration=player, text=text, now=later(61))
        assert player.deck_hash == locked_hash and player.deck_text == changed
        event.deadline = None
        reg.close_registration(session=session, event=event)
        with pytest.raises(DeckLocked):
            reg.set_deck(session=session, event=event, registration=player, text=text, now=later(1))


def test_deck_check_at_the_table_shows_the_difference(sample_catalogue: Engine) -> None:
    text = legal_samsara_list(sample_catalogue)
    with Session(sample_catalogue) as session:
        event = make_event(session)
        player = reg.register_player(session=session, event=event, player_name="阿明", now=NOW, deck_text=text)
        first_card = text.splitlines()[2].split(" ", 1)[1]
        shown = text.replace(f"3 {first_card}\n", f"2 {first_card}\n") + "1 无之法力石\n"
        diff = reg.deck_difference(session=session, event=event, registration=player, text=shown)
        assert [(d.section, d.card, d.locked, d.shown) for d in diff] == [
            ("extra", "无之法力石", 0, 1),
            ("main", first_card, 3, 2),
        ]
        assert reg.deck_difference(session=session, event=event, registration=player, text=text) == []


def test_eight_players_three_rounds_standings_and_chests(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session)
        players = seat_players(session, event, NAMES)
        assert reg.planned_rounds(session=session, event=event) == 3  # MTR Appendix E for 8
        for _ in range(3):
            _play_round(session, event)
        assert event.state == "running"  # pairing round 1 closed registration
        with pytest.raises(DeckLocked):
            reg.set_deck(session=session, event=event, registration=players[0], text="主卡组:\n1 无之法力石", now=NOW)
        with pytest.raises(EventError, match="全部打完"):
            running.pair_next_round(session=session, event=event, seed=1, now=NOW)
        table = running.standings(session=session, event=event)
        assert [s.record.points for s in table.rows] == [9, 6, 6, 6, 3, 3, 3, 0]
        running.finish_event(session=session, event=event)
        given = prizes.award_chests(session=session, event=event, now=NOW, flagged="award")  # no lists: a choice
        assert [p.chests for p in given] == [9, 7, 5, 4, 4, 4, 4, 4]
        with pytest.raises(EventError, match="发放过了"):
            prizes.award_chests(session=session, event=event, now=NOW)
        champion = given[0].registration
        balance = prizes.balances(session=session, store="卡牌竞技场")
        assert sum(b.chests for b in balance) == 9 + 7 + 5 + 5 * 4
        assert check_chests(session) == []
        item = prizes.set_exchange_item(session=session, store="卡牌竞技场", name="M8 补充包", price=4,
                                        valid_from=DAY, now=NOW)  # fmt: skip
        prizes.redeem(session=session, store="卡牌竞技场", player_key=prizes.holder_key(champion),
                      item_id=item.id, quantity=2, today=DAY, now=NOW)  # fmt: skip
        with pytest.raises(NotEnoughChests):
            prizes.redeem(session=session, store="卡牌竞技场", player_key=prizes.holder_key(champion),
                          item_id=item.id, quantity=1, today=DAY, now=NOW)  # fmt: skip
        mine = [
            b for b in prizes.balances(session=session, store="卡牌竞技场") if b.player_name == champion.player_name
        ]
        assert mine[0].chests == 1
        assert check_chests(session) == []
        assert len(players) == 8
        session.commit()  # the conftest checks the chest ledger sums to the balances


def test_a_correction_of_round_one_changes_round_two_standings(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session)
        seat_players(session, event, NAMES[:4])
        reg.close_registration(session=session, event=event)
        first = _play_round(session, event)
        _play_round(session, event)
        before = {s.record.entrant.name: s.record.points for s in running.standings(session=session, event=event).rows}
        table_one = first[0]
        running.record_result(session=session, event=event, match=table_one, wins_a=0, wins_b=2, draws=0,
                              now=later(90))  # fmt: skip
        after = {s.record.entrant.name: s.record.points for s in running.standings(session=session, event=event).rows}
        names = running.standings(session=session, event=event).names
        a, b = names[table_one.player_a_id], names[table_one.player_b_id]
        assert after[a] == before[a] - 3 and after[b] == before[b] + 3
        after_one = {
            s.record.entrant.name: s.record.points
            for s in running.standings(session=session, event=event, up_to=1).rows
        }
        assert after_one[a] == 0 and after_one[b] == 3


def test_drops_late_entries_and_disqualification(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session, rounds=3)
        players = seat_players(session, event, NAMES[:5])
        reg.close_registration(session=session, event=event)
        tables = _play_round(session, event)
        assert sum(1 for m in tables if m.player_b_id is None) == 1  # 5 players: one bye
        reg.drop_player(session=session, event=event, registration=players[0])
        late = reg.register_player(session=session, event=event, player_name="迟到者", now=later(60))
        assert late.first_round == 2
        second = _play_round(session, event)
        seated = {m.player_a_id for m in second} | {m.player_b_id for m in second}
        assert players[0].id not in seated and late.id in seated
        assert len(seated - {None}) == 5 and None in seated  # 5 − 1 dropped + 1 late: one bye again
        rows = {s.record.entrant.id: s.record for s in running.standings(session=session, event=event).rows}
        assert rows[late.id].lost >= 1 and rows[late.id].played == 2
        reg.disqualify(session=session, event=event, registration=players[1], reason="标记牌")
        third = running.pair_next_round(session=session, event=event, seed=3, now=NOW)[1]
        seated = {m.player_a_id for m in third} | {m.player_b_id for m in third}
        assert players[1].id not in seated
        ids = [s.record.entrant.id for s in running.standings(session=session, event=event).rows]
        assert players[1].id not in ids and players[0].id in ids


def test_pairings_from_a_file_and_a_recorded_swap(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session)
        seat_players(session, event, NAMES[:5])
        reg.close_registration(session=session, event=event)
        with pytest.raises(EventError, match="没有配对"):
            running.import_pairings(session=session, event=event, rows=[(1, "阿明", "白露")], now=NOW)
        rows = [(1, "阿明", "白露"), (2, "陈晨", "丁一"), (3, "鄂尔", "")]
        _round, tables = running.import_pairings(session=session, event=event, rows=rows, now=NOW)
        assert [(m.table_number, m.player_b_id is None) for m in tables] == [(1, False), (2, False), (3, True)]
        ming = reg.find_player(session=session, event=event, name="阿明")
        chen = reg.find_player(session=session, event=event, name="陈晨")
        change = running.swap_players(session=session, event=event, first=ming, second=chen, by_user_id=None, now=NOW)
        assert "阿明" in change.description and "陈晨" in change.description
        tables = running.matches(session=session, event=event, round_number=1)
        assert tables[0].player_a_id == chen.id and tables[1].player_a_id == ming.id


def test_bad_results_are_refused_and_change_nothing(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session)
        seat_players(session, event, NAMES[:2])
        reg.close_registration(session=session, event=event)
        _round, tables = running.pair_next_round(session=session, event=event, seed=1, now=NOW)
        for wins in ((-1, 2, 0), (3, 3, 0), (0, 0, 0)):
            with pytest.raises(EventError, match="结果不合理"):
                running.record_result(session=session, event=event, match=tables[0], wins_a=wins[0],
                                      wins_b=wins[1], draws=wins[2], now=NOW)  # fmt: skip
        assert not tables[0].reported


def test_season_leaderboard_and_qualification(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        season = seasons.create_season(session=session, code="SH-2016", name="上海 2015–16", now=NOW, cut_top=1,
                                       qualifier_top=1)  # fmt: skip
        monthly = make_event(session, season_code="SH-2016")
        bawang = make_event(session, name="年霸王赛", season_code="SH-2016", kind="bawang", date=DAY + timedelta(90))
        qualifier = make_event(
            session, name="七月预选", season_code="SH-2016", kind="qualifier", date=DAY + timedelta(230)
        )
        for event in (monthly, bawang, qualifier):
            seat_players(session, event, NAMES[:4])
            reg.close_registration(session=session, event=event)
            for _ in range(reg.planned_rounds(session=session, event=event)):
                _play_round(session, event)
            running.finish_event(session=session, event=event)
        board = seasons.leaderboard(session=session, season=season)
        assert [r.points for r in board.rows[:4]] == sorted((r.points for r in board.rows[:4]), reverse=True)
        leader = board.rows[0]
        assert leader.qualified == "points" and len(leader.events) == 2  # the 霸王赛 counts like a monthly
        assert sum(1 for r in board.rows if r.qualified == "points") == 1
        via_qualifier = [r for r in board.rows if r.qualified == "qualifier"]
        assert len(via_qualifier) == 1 and via_qualifier[0].key != leader.key


def test_the_xlsx_score_sheet_cell_by_cell(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session)
        seat_players(session, event, NAMES[:3], sample_catalogue)
        reg.close_registration(session=session, event=event)
        for _ in range(2):
            _play_round(session, event, {1: (2, 1, 0)})
        running.finish_event(session=session, event=event)
        data = event_workbook(session=session, event=event)
        table = running.standings(session=session, event=event)
        rounds = {n: running.matches(session=session, event=event, round_number=n) for n in (1, 2)}
        csv_text = event_csv(session=session, event=event)
    book = load_workbook(io.BytesIO(data))
    assert book.sheetnames == ["选手与卡组", "第1轮", "第2轮", "排名", "奖励"]
    players = book["选手与卡组"]
    assert [c.value for c in players[1]][:6] == ["编号", "选手", "账号", "卡组哈希", "卡组合法", "问题"]
    assert sorted(players.cell(row=r, column=2).value for r in range(2, 5)) == sorted(NAMES[:3])
    assert {players.cell(row=r, column=5).value for r in range(2, 5)} == {"合法"}
    for number, tables in rounds.items():
        sheet = book[f"第{number}轮"]
        assert [c.value for c in sheet[1]] == ["桌号", "选手A", "选手B", "A胜局", "B胜局", "平局", "结果"]
        for row, m in enumerate(tables, start=2):
            values = [c.value for c in sheet[row]]
            assert values[0] == m.table_number
            if m.player_b_id is None:
                assert values[2:] == ["轮空", 2, 0, 0, "轮空"]
            else:
                assert values[3:] == [m.wins_a, m.wins_b, m.draws, f"{m.wins_a}-{m.wins_b}-{m.draws}"]
    standings = book["排名"]
    for row, s in enumerate(table.rows, start=2):
        values = [c.value for c in standings[row]]
        assert values[:3] == [s.rank, s.record.entrant.name, s.record.points]
        assert values[3:6] == [float(s.record.omw), float(s.record.gw), float(s.record.ogw)]
        assert [c.number_format for c in standings[row][3:6]] == ["0.00%"] * 3  # percent cells
        assert values[6:11] == [s.record.played, s.record.won, s.record.drawn, s.record.lost, s.record.byes]
    awards = book["奖励"]
    assert [awards.cell(row=r, column=4).value for r in range(2, 5)] == [9, 7, 5]
    lines = csv_text.splitlines()
    assert lines[0] == "rank,player,points,omw,gw,ogw,played,won,drawn,lost,byes,chests"
    assert lines[1].split(",")[0:3] == ["1", table.rows[0].record.entrant.name, str(table.rows[0].record.points)]
    assert lines[1].split(",")[-1] == "9"


@pytest.mark.parametrize("third_place", ["playoff", "swiss"])
def test_a_top_four_cut_after_the_swiss_rounds(sample_catalogue: Engine, third_place: str) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session, top_cut=4, third_place=third_place)
        seat_players(session, event, NAMES)
        for _ in range(3):
            _play_round(session, event)
        swiss = [s.record.entrant.id for s in running.standings(session=session, event=event).rows]
        _round, semis = running.pair_next_round(session=session, event=event, seed=0, now=NOW)
        assert _round.kind == "top4" and [(m.player_a_id, m.player_b_id) for m in semis] == [
            (swiss[0], swiss[3]),
            (swiss[1], swiss[2]),
        ]
        with pytest.raises(EventError, match="分出胜负"):
            running.record_result(session=session, event=event, match=semis[0], wins_a=1, wins_b=1, draws=0, now=NOW)
        with pytest.raises(EventError, match="决赛圈还没有打完"):
            running.record_result(session=session, event=event, match=semis[0], wins_a=0, wins_b=2, draws=0, now=NOW)
            running.record_result(session=session, event=event, match=semis[1], wins_a=2, wins_b=0, draws=0, now=NOW)
            running.finish_event(session=session, event=event)
        _round, finals = running.pair_next_round(session=session, event=event, seed=0, now=NOW)
        assert _round.kind == "final" and (finals[0].player_a_id, finals[0].player_b_id) == (swiss[3], swiss[1])
        assert len(finals) == (2 if third_place == "playoff" else 1)
        for m in finals:
            running.record_result(session=session, event=event, match=m, wins_a=2, wins_b=1, draws=0, now=NOW)
        assert running.standings(session=session, event=event).round == 3  # the cut is not in the standings
        running.finish_event(session=session, event=event)
        places = [p.registration.id for p in prizes.placings(session=session, event=event)]
        third = [swiss[0], swiss[2]] if third_place == "playoff" else sorted([swiss[0], swiss[2]], key=swiss.index)
        assert places[:4] == [swiss[3], swiss[1], *third]
        assert places[4:] == swiss[4:]


def test_a_json_list_hashes_like_the_same_text_list(sample_catalogue: Engine) -> None:
    text = legal_samsara_list(sample_catalogue)
    with Session(sample_catalogue) as session:
        event = make_event(session)
        as_text = reg.snapshot(session=session, event=event, text=text)
        sections: dict[str, list[dict[str, object]]] = {"main": [], "extra": []}
        for section, name, count in as_text.canonical:
            sections[section].append({"card": name, "count": count})
        as_json = reg.snapshot(session=session, event=event, text=json.dumps({"game": "samsara", **sections}))
        assert as_json.hash == as_text.hash and as_json.legal


def test_the_number_of_rounds_is_fixed_when_round_one_is_paired(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session)
        seat_players(session, event, NAMES)
        assert event.rounds is None and reg.planned_rounds(session=session, event=event) == 3
        _play_round(session, event)
        reg.register_player(session=session, event=event, player_name="迟到者", now=later(50))
        assert event.rounds == 3 and reg.planned_rounds(session=session, event=event) == 3  # 9 would be 5


def test_a_bye_needs_no_report(sample_catalogue: Engine, make_user) -> None:
    with Session(sample_catalogue) as session:
        event = make_event(session)
        user = make_user(session, "alice")
        reg.register_player(session=session, event=event, player_name="alice", now=NOW, user_id=user.id)
        seat_players(session, event, NAMES[:2])
        _round, tables = running.pair_next_round(session=session, event=event, seed=1, now=NOW)
        bye = next(m for m in tables if m.player_b_id is None)
        with pytest.raises(EventError, match="轮空"):
            running.report_as_player(session=session, event=event, match=bye, user_id=user.id, wins_a=2, wins_b=0,
                                     draws=0, now=NOW)  # fmt: skip


def test_concurrent_redemptions_never_spend_the_same_chests(sample_catalogue: Engine) -> None:
    """8 threads each try to spend 4 of 9 chests: exactly 2 succeed, the balance ends at 1."""
    import threading

    from catalog import db as catalog_db

    with catalog_db.transaction(sample_catalogue) as session:
        prizes.change_chests(session=session, store="卡牌竞技场", player_key="n:阿明", player_name="阿明",
                             user_id=None, delta=9, reason="adjust", now=NOW)  # fmt: skip
        item = prizes.set_exchange_item(session=session, store="卡牌竞技场", name="卡盒", price=4, valid_from=DAY,
                                        now=NOW)  # fmt: skip
        item_id = item.id
    outcomes: list[str] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def run() -> None:
        try:
            with catalog_db.transaction(sample_catalogue, write=True) as session:
                prizes.redeem(session=session, store="卡牌竞技场", player_key="n:阿明", item_id=item_id,
                              quantity=1, today=DAY, now=NOW)  # fmt: skip
            result = "ok"
        except NotEnoughChests:
            result = "refused"
        except BaseException as error:  # reported below
            failures.append(error)
            return
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert sorted(outcomes) == ["ok"] * 2 + ["refused"] * 6
    with Session(sample_catalogue) as session:
        assert [b.chests for b in prizes.balances(session=session, store="卡牌竞技场")] == [1]
        assert check_chests(session) == []
