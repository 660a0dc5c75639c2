"""``lunzang event …`` (DESIGN §12 contract): create, register, pair (seeded, or from a CSV),
report (file or one table), drop, standings JSON, finish with chests, export; bad input exits 2
and changes nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from sqlmodel import Session

from catalog.models import Event
from tests.kits.db import table_counts
from tests.kits.deck import legal_samsara_list
from tests.kits.event import staff_store
from webapp.db import get_engine

PLAYERS = ["阿明", "白露", "陈晨", "丁一", "鄂尔"]
STANDING_KEYS = {"rank", "player", "points", "omw", "gw", "ogw", "played", "won", "drawn", "lost", "byes"}


def _ok(runner: Any, *args: str) -> str:
    result = runner.invoke(args=list(args))
    assert result.exit_code == 0, result.output
    return str(result.output)


def _new_event(runner: Any, *extra: str) -> str:
    out = _ok(runner, "event", "create", "--name", "十一月月赛", "--game", "samsara", "--format", "standard",
              "--date", "2026-11-28", "--store", "卡牌竞技场", "--deck-policy", "flag", *extra)  # fmt: skip
    return out.strip()


def test_a_whole_event_from_the_command_line(sample_app: Any, runner: Any, tmp_path: Path, make_user: Any) -> None:
    with sample_app.app_context(), Session(get_engine()) as session, session.begin():
        make_user(session, "shop", role="organizer")
        staff_store(session, "卡牌竞技场", "shop")
        deck = legal_samsara_list(get_engine())
    deck_file = tmp_path / "deck.txt"
    deck_file.write_text(deck, encoding="utf-8")
    event = _new_event(runner, "--organizer", "shop", "--rounds", "3", "--deadline", "2026-11-28T12:30")
    assert event.isdigit()
    with sample_app.app_context(), Session(get_engine()) as session:
        row = session.get(Event, int(event))
        assert row is not None and row.deadline == datetime(2026, 11, 28, 12, 30, tzinfo=UTC) and row.rounds == 3
    for name in PLAYERS:
        assert "卡组合法" in _ok(runner, "event", "register", event, name, "--deck", str(deck_file))
    first = json.loads(_ok(runner, "event", "pair", event, "--seed", "42", "--json"))
    assert first["event"] == int(event) and first["round"] == 1
    assert [p["table"] for p in first["pairings"]] == [1, 2, 3]
    assert first["pairings"][-1]["player_b"] is None  # five players: the bye is the last table
    seated = [p["player_a"] for p in first["pairings"]] + [p["player_b"] for p in first["pairings"] if p["player_b"]]
    assert sorted(seated) == sorted(PLAYERS)
    lines = ["table,player_a,player_b,wins_a,wins_b,draws"]
    lines += [f"{p['table']},{p['player_a']},{p['player_b'] or ''},2,1,0" for p in first["pairings"]]
    results = tmp_path / "r1.csv"
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert "2 桌" in _ok(runner, "event", "report", event, "--round", "1", "--file", str(results))
    standings = json.loads(_ok(runner, "event", "standings", event, "--json"))
    assert standings["round"] == 1 and len(standings["standings"]) == 5
    assert set(standings["standings"][0]) == STANDING_KEYS
    top = standings["standings"][0]
    # Every winner has 3 points and OMW 1/3 (their opponent's 0 is floored; the bye's player has
    # no opponent: the floor too); the bye counts 2–0, so its GW 1 beats the 2–1 winners' 2/3.
    assert top["player"] == first["pairings"][-1]["player_a"]
    assert (top["points"], top["omw"], top["gw"], top["byes"]) == (3, round(1 / 3, 6), 1.0, 1)
    assert standings["standings"][1]["gw"] == round(2 / 3, 6)
    _ok(runner, "event", "drop", event, first["pairings"][0]["player_b"])
    second = json.loads(_ok(runner, "event", "pair", event, "--json"))
    assert second["round"] == 2 and len(second["pairings"]) == 2  # 4 left: no bye
    for p in second["pairings"]:
        _ok(runner, "event", "report", event, "--round", "2", "--table", str(p["table"]), "--result", "2-0-1")
    third = json.loads(_ok(runner, "event", "pair", event, "--seed", "1", "--json"))
    for p in third["pairings"]:
        _ok(runner, "event", "report", event, "--round", "3", "--table", str(p["table"]), "--result", "1-1-1")
    after_one = json.loads(_ok(runner, "event", "standings", event, "--round", "1", "--json"))
    assert after_one["round"] == 1 and after_one["standings"][0]["played"] == 1
    finish = _ok(runner, "event", "finish", event)
    assert "第 1 名" in finish and "9 个白银宝箱" in finish
    out = tmp_path / "sheet.xlsx"
    _ok(runner, "event", "export", event, "--out", str(out))
    assert load_workbook(out).sheetnames == ["选手与卡组", "第1轮", "第2轮", "第3轮", "排名", "奖励"]
    csv_out = tmp_path / "sheet.csv"
    _ok(runner, "event", "export", event, "--out", str(csv_out))
    assert csv_out.read_text(encoding="utf-8").startswith("名次,选手,积分,对手胜率,局胜率,对手局胜率")
    _ok(runner, "event", "export", event, "--out", str(csv_out), "--header", "en")  # for scripts
    assert csv_out.read_text(encoding="utf-8").startswith("rank,player,points,omw,gw,ogw")


def test_pairings_from_a_csv_file(sample_app: Any, runner: Any, tmp_path: Path) -> None:
    event = _new_event(runner)
    for name in PLAYERS[:3]:
        _ok(runner, "event", "register", event, name)
    pairing = tmp_path / "r1.csv"
    pairing.write_text("table,player_a,player_b\n1,阿明,陈晨\n2,白露,\n", encoding="utf-8")
    data = json.loads(_ok(runner, "event", "pair", event, "--from", str(pairing), "--json"))
    assert data["pairings"] == [
        {"table": 1, "player_a": "阿明", "player_b": "陈晨"},
        {"table": 2, "player_a": "白露", "player_b": None},
    ]


def test_bad_input_exits_2_and_changes_nothing(sample_app: Any, runner: Any, tmp_path: Path) -> None:
    event = _new_event(runner)
    _ok(runner, "event", "register", event, "阿明")
    with sample_app.app_context():
        before = table_counts(get_engine())
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("table,player_a,player_b\n1,阿明,不存在\n", encoding="utf-8")
    cases = [
        ["event", "create", "--name", "x", "--game", "samsara", "--date", "2026-13-01"],
        ["event", "create", "--name", "x", "--game", "nosuch", "--date", "2026-11-01"],
        ["event", "create", "--name", "x", "--game", "samsara", "--date", "2026-11-01", "--deadline", "noon"],
        ["event", "register", event, "阿明"],
        ["event", "register", "999", "某人"],
        ["event", "pair", event, "--from", str(bad_csv)],
        ["event", "pair", event],  # one player cannot be paired
        ["event", "report", event, "--round", "1", "--table", "1", "--result", "2-x"],
        ["event", "drop", event, "无名氏"],
        ["event", "standings", event, "--round", "5", "--json"],
        ["event", "export", event, "--out", str(tmp_path / "x.pdf")],
    ]
    for args in cases:
        result = runner.invoke(args=args)
        assert result.exit_code == 2, (args, result.output)
        assert "错误" in result.output and "Traceback" not in result.output
    with sample_app.app_context():
        assert table_counts(get_engine()) == before


def test_the_float_tie_event_names_p1_champion(sample_app: Any, runner: Any, tmp_path: Path) -> None:
    """the 8-player, 3-round event imported with ``event pair --from`` and ``event
    report --file`` where two OMWs of exactly 11/27 differed as floats and P6 was champion."""
    from tests.kits.event import FLOAT_TIE

    event = _new_event(runner, "--rounds", "3")
    for i in range(1, 9):
        _ok(runner, "event", "register", event, f"P{i}")
    for number in (1, 2, 3):
        tables = [r for r in FLOAT_TIE if r.round == number]
        pairs = tmp_path / f"p{number}.csv"
        pairs.write_text("table,player_a,player_b\n" + "".join(
            f"{t},P{r.a},P{r.b}\n" for t, r in enumerate(tables, start=1)), encoding="utf-8")  # fmt: skip
        _ok(runner, "event", "pair", event, "--from", str(pairs))
        results = tmp_path / f"r{number}.csv"
        results.write_text("table,player_a,player_b,wins_a,wins_b,draws\n" + "".join(
            f"{t},P{r.a},P{r.b},{r.wins_a},{r.wins_b},{r.draws}\n" for t, r in enumerate(tables, start=1)
        ), encoding="utf-8")  # fmt: skip
        _ok(runner, "event", "report", event, "--round", str(number), "--file", str(results))
    standings = json.loads(_ok(runner, "event", "standings", event, "--json"))["standings"]
    assert [s["player"] for s in standings[:2]] == ["P1", "P6"]
    assert standings[0]["points"] == standings[1]["points"] and standings[0]["omw"] == standings[1]["omw"]
    assert standings[0]["gw"] > standings[1]["gw"]
