"""Exports a shop can hand over: no text cell of any event, season or exchange
export is a formula (CSV behind a ``'``, XLSX stored as text with Excel's quote prefix), the
tiebreakers are percent cells, columns are fitted, the deck text wraps, players are sorted by
pinyin, and CSV headers follow the page's language (``--header en`` for scripts)."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from datetime import date
from typing import Any

from openpyxl import load_workbook
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.collection.csvio import FORMULA_STARTS
from catalog.events import prizes, running, seasons
from catalog.events import registration as reg
from catalog.events.export import (
    event_csv,
    event_workbook,
    exchange_csv,
    exchange_workbook,
    season_csv,
    season_workbook,
)
from tests.kits.event import NOW, make_event, staff_store
from webapp.db import get_engine

HOSTILE = ["=1+1", "@SUM(A1)", "-2+3", "+1", '=HYPERLINK("http://x","点我")']
DECK = '=HYPERLINK("http://evil.example","点我")\n3 不存在的卡'


def _finished_event(session: Session) -> Any:
    season = seasons.create_season(session=session, code="S1", name="=1+2", now=NOW)
    event = make_event(session, name="=cmd|' /C calc'!A0", season_code=season.code)
    for name in [*HOSTILE, "张三", "阿明", "李四"]:
        reg.register_player(session=session, event=event, player_name=name, now=NOW, deck_text=DECK)
    reg.close_registration(session=session, event=event)
    for number in range(1, 4):
        _round, tables = running.pair_next_round(session=session, event=event, seed=number, now=NOW)
        for m in tables:
            if m.player_b_id is not None:
                running.record_result(session=session, event=event, match=m, wins_a=2, wins_b=1, draws=0, now=NOW)
    running.finish_event(session=session, event=event)
    return event, season


def _no_formula_in_xlsx(data: bytes) -> None:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for name in archive.namelist():
            if name.startswith("xl/worksheets/"):
                assert "<f>" not in archive.read(name).decode() and "<f " not in archive.read(name).decode(), name
    book = load_workbook(io.BytesIO(data))
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (sheet.title, cell.coordinate, cell.value)
                if isinstance(cell.value, str) and cell.value[:1] in FORMULA_STARTS:
                    assert cell.quotePrefix, (sheet.title, cell.coordinate)


def _no_formula_in_csv(text: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text)))
    for row in rows:
        for cell in row:
            assert cell[:1] not in FORMULA_STARTS, cell
    return rows


def test_event_and_season_exports_hold_no_formula(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event, season = _finished_event(session)
        book = event_workbook(session=session, event=event)
        rows = _no_formula_in_csv(event_csv(session=session, event=event, header="zh"))
        board = seasons.leaderboard(session=session, season=season)
        season_book = season_workbook(board)
        season_rows = _no_formula_in_csv(season_csv(board, "en"))
    _no_formula_in_xlsx(book)
    _no_formula_in_xlsx(season_book)
    players = load_workbook(io.BytesIO(book))["选手与卡组"]
    names = {players.cell(row=r, column=2).value for r in range(2, players.max_row + 1)}
    assert set(HOSTILE) <= names  # as typed, shown as text
    assert {players.cell(row=r, column=10).value for r in range(2, players.max_row + 1)} == {DECK}
    assert {"'=1+1", "'@SUM(A1)", "'-2+3", "'+1"} <= {r[1] for r in rows[1:]}
    assert rows[0][:3] == ["名次", "选手", "积分"]
    assert season_rows[0] == ["rank", "player", "points", "events", "qualified"]
    assert "'=1+1" in {r[1] for r in season_rows[1:]}


def test_the_score_sheet_is_readable(sample_catalogue: Engine) -> None:
    with Session(sample_catalogue) as session:
        event, _season = _finished_event(session)
        book = load_workbook(io.BytesIO(event_workbook(session=session, event=event)))
    players = book["选手与卡组"]
    chinese = [players.cell(row=r, column=2).value for r in range(2, players.max_row + 1)]
    chinese = [n for n in chinese if re.match(r"[\u4e00-\u9fff]", n)]
    assert chinese == ["阿明", "李四", "张三"]  # a, li, zhang: pinyin, not code point (张 < 李 < 阿)
    assert players.column_dimensions["J"].width == 50 and players["J2"].alignment.wrap_text  # the deck
    assert players.column_dimensions["B"].width >= len('=HYPERLINK("http://x","点我")')  # fitted
    standings = book["排名"]
    assert standings["D2"].number_format == "0.00%" and isinstance(standings["D2"].value, float)
    assert standings.column_dimensions["D"].width >= 10  # "对手胜率" is 8 wide, plus padding


def test_the_exchange_export_is_for_the_staff_and_safe(sample_app: Any, login: Any) -> None:
    staff, other = sample_app.test_client(), sample_app.test_client()
    login(staff, "anna", role="organizer")
    login(other, "bo", role="organizer")
    with Session(get_engine(sample_app)) as session, session.begin():
        staff_store(session, "卡牌竞技场", "anna")
        prizes.set_exchange_item(session=session, store="卡牌竞技场", name="=1+1", price=3, valid_from=date(2026, 1, 1),
                                 valid_until=None, now=NOW)  # fmt: skip
    assert other.get("/stores/卡牌竞技场/exchange.csv").status_code == 403
    text = staff.get("/stores/卡牌竞技场/exchange.csv").get_data(as_text=True).lstrip("\ufeff")
    assert _no_formula_in_csv(text)[0][0] == "物品" and "'=1+1" in text
    english = staff.get("/stores/卡牌竞技场/exchange.csv?lang=en").get_data(as_text=True).lstrip("\ufeff")
    assert english.startswith("item,price,valid_from,valid_until")
    _no_formula_in_xlsx(staff.get("/stores/卡牌竞技场/exchange.xlsx").get_data())
    with Session(get_engine(sample_app)) as session:
        items = prizes.exchange_list(session=session, store="卡牌竞技场")
        _no_formula_in_xlsx(exchange_workbook("=x", items))
        _no_formula_in_csv(exchange_csv(items))
