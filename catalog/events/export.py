"""The score sheet the seed asks for ("最终选手分数要做好登记并制作电子表格，自己留一份，给官方发一份"):
an XLSX workbook (openpyxl) with one sheet for the players and their decks, one per round
(pairings and results), the standings and the prizes; and a CSV of the final standings.
The season table and a store's exchange list export the same way.

Exports a shop can hand over:

- every text cell is safe from formula injection: a CSV cell starting with ``= + - @``, a tab
  or a CR goes behind a ``'`` (:func:`catalog.collection.csvio.safe_cell`, as the collection
  export does); an XLSX text cell is stored as a string with Excel's own quote prefix, so it
  shows as typed and is never a formula (openpyxl otherwise stores ``=…`` as one);
- XLSX tiebreakers are percent cells (``0.00%``) from the exact fractions; columns are fitted
  to their text (a CJK character counts two), the deck text wraps; players are sorted by pinyin;
- CSV headers are in the page's language (``header="zh"`` or ``"en"``; the CLI takes
  ``--header en`` for scripts).
"""

from __future__ import annotations

import csv
import io
import re
from typing import TYPE_CHECKING, Any

from sqlmodel import Session

from catalog.collection.csvio import FORMULA_STARTS, safe_cell
from catalog.events.prizes import placings
from catalog.events.registration import last_round, list_problem, registrations
from catalog.events.running import matches, standings
from catalog.events.seasons import Leaderboard
from catalog.events.standings import Record
from catalog.models import Event, ExchangeItem
from catalog.text import pinyin_key

if TYPE_CHECKING:
    from openpyxl import Workbook

PLAYER_HEADER = ("编号", "选手", "账号", "卡组哈希", "卡组合法", "问题", "首轮", "退赛自第几轮", "取消资格", "卡组")
ROUND_HEADER = ("桌号", "选手A", "选手B", "A胜局", "B胜局", "平局", "结果")
STANDING_HEADER = (
    "名次", "选手", "积分", "对手胜率", "局胜率", "对手局胜率", "场次", "胜", "平", "负", "轮空", "卡组标记",
)  # fmt: skip
LIST_FLAGS = {"missing": "缺卡组", "illegal": "卡组不合法", "": ""}
STANDING_CSV = ("rank", "player", "points", "omw", "gw", "ogw", "played", "won", "drawn", "lost", "byes", "chests")
STANDING_CSV_ZH = (
    "名次",
    "选手",
    "积分",
    "对手胜率",
    "局胜率",
    "对手局胜率",
    "场次",
    "胜",
    "平",
    "负",
    "轮空",
    "白银宝箱",
)
SEASON_CSV = ("rank", "player", "points", "events", "qualified")
SEASON_CSV_ZH = ("名次", "选手", "总积分", "参赛场数", "晋级")
EXCHANGE_HEADER = ("物品", "价格（白银宝箱）", "起始日期", "截止日期")
EXCHANGE_CSV = ("item", "price", "valid_from", "valid_until")
HEADERS = ("zh", "en")
PERCENT_COLUMNS = {"对手胜率", "局胜率", "对手局胜率"}
WRAPPED_COLUMNS = {"卡组", "问题"}


class Percent(float):
    """A tiebreaker written as a percent cell (the float of an exact fraction, for the sheet)."""


def _tiebreakers(record: Record) -> list[Percent]:
    return [Percent(record.omw), Percent(record.gw), Percent(record.ogw)]


def csv_safe(row: list[Any]) -> list[Any]:
    """A CSV row with every text cell behind a ``'`` when it would start a formula."""
    return [safe_cell(v) if isinstance(v, str) else v for v in row]


PRIZE_HEADER = ("名次", "选手", "积分", "白银宝箱")


def standing_rows(session: Session, event: Event, up_to: int | None = None) -> list[list[Any]]:
    table = standings(session=session, event=event, up_to=up_to)
    flags = {r.id: LIST_FLAGS[list_problem(r)] for r in registrations(session=session, event=event)}
    return [
        [
            s.rank,
            s.record.entrant.name,
            s.record.points,
            *_tiebreakers(s.record),
            s.record.played,
            s.record.won,
            s.record.drawn,
            s.record.lost,
            s.record.byes,
            flags.get(s.record.entrant.id, ""),
        ]
        for s in table.rows
    ]


def _workbook() -> Workbook:
    """An empty workbook. openpyxl costs ~0.25 s to import: only an export pays it."""
    from openpyxl import Workbook

    workbook = Workbook()
    workbook.remove(workbook.active)
    return workbook


def _display_width(value: Any) -> int:
    text = f"{value:.2%}" if isinstance(value, Percent) else str(value)
    return sum(2 if ord(c) > 0x2E7F else 1 for c in max(text.splitlines() or [""], key=len))


def _sheet(workbook: Workbook, title: str, header: tuple[str, ...], rows: list[list[Any]]) -> None:
    """A sheet: bold frozen header, text cells stored as text (never a formula), percent cells,
    fitted widths (at most 60; wrapped columns 50)."""
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    sheet = workbook.create_sheet(re.sub(r"[\[\]:*?/\\']", "", title)[:31] or "-")
    widths = [_display_width(h) for h in header]
    sheet.append(list(header))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for index, row in enumerate(rows, start=2):
        for column, value in enumerate(row, start=1):
            cell = sheet.cell(row=index, column=column)
            if isinstance(value, str):
                cell.value = value
                cell.data_type = "s"  # openpyxl makes "=…" a formula; a text cell it stays
                if value[:1] in FORMULA_STARTS:
                    cell.quotePrefix = True  # Excel's own mark of a typed-as-text cell
            else:
                cell.value = float(value) if isinstance(value, Percent) else value
                if isinstance(value, Percent):
                    cell.number_format = "0.00%"
            if column <= len(widths):
                widths[column - 1] = max(widths[column - 1], _display_width(value))
    for column, name in enumerate(header, start=1):
        letter = get_column_letter(column)
        if name in WRAPPED_COLUMNS:
            sheet.column_dimensions[letter].width = 50
            for cell in sheet[letter][1:]:
                cell.alignment = Alignment(wrap_text=True, vertical="top")
        else:
            sheet.column_dimensions[letter].width = min(widths[column - 1] + 2, 60)
    sheet.freeze_panes = "A2"


def event_workbook(*, session: Session, event: Event) -> bytes:
    """The event as XLSX: 选手与卡组, 第 N 轮 for every round, 排名, 奖励."""
    workbook = _workbook()
    regs = sorted(registrations(session=session, event=event), key=lambda r: (pinyin_key(r.player_name), r.id))
    names = {r.id: r.player_name for r in regs}
    _sheet(
        workbook,
        "选手与卡组",
        PLAYER_HEADER,
        [
            [
                r.id,
                r.player_name,
                "是" if r.user_id else "",
                r.deck_hash[:16],
                "缺卡组" if r.legal is None else ("合法" if r.legal else "不合法"),
                "；".join(v.get("message", "") for v in r.verdict.get("violations", [])),
                r.first_round,
                r.dropped_from or "",
                r.dq_reason if r.disqualified else "",
                r.deck_text,
            ]
            for r in regs
        ],
    )
    for number in range(1, last_round(session=session, event=event) + 1):
        rows = []
        for m in matches(session=session, event=event, round_number=number):
            if m.player_b_id is None:
                rows.append([m.table_number, names[m.player_a_id], "轮空", 2, 0, 0, "轮空"])
                continue
            result = f"{m.wins_a}-{m.wins_b}-{m.draws}" if m.reported else "未录入"
            rows.append(
                [m.table_number, names[m.player_a_id], names[m.player_b_id], m.wins_a, m.wins_b, m.draws, result]
            )
        _sheet(workbook, f"第{number}轮", ROUND_HEADER, rows)
    _sheet(workbook, "排名", STANDING_HEADER, standing_rows(session, event))
    _sheet(
        workbook,
        "奖励",
        PRIZE_HEADER,
        [[p.place, p.registration.player_name, p.points, p.chests] for p in placings(session=session, event=event)],
    )
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def _header(zh: tuple[str, ...], en: tuple[str, ...], header: str) -> tuple[str, ...]:
    return en if header == "en" else zh


def event_csv(*, session: Session, event: Event, header: str = "en") -> str:
    """The final standings as CSV (UTF-8; with the chests each place earns); ``header`` "zh"
    or "en" (the page's language; scripts ask for "en")."""
    chests = {p.registration.id: p.chests for p in placings(session=session, event=event)}
    table = standings(session=session, event=event)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_header(STANDING_CSV_ZH, STANDING_CSV, header))
    for s in table.rows:
        r = s.record
        writer.writerow(csv_safe(
            [s.rank, r.entrant.name, r.points, *(f"{float(v):.4f}" for v in (r.omw, r.gw, r.ogw)), r.played,
             r.won, r.drawn, r.lost, r.byes, chests.get(r.entrant.id, 0)]
        ))  # fmt: skip
    return out.getvalue()


SEASON_HEADER = ("名次", "选手", "总积分", "参赛场数", "晋级")


def _season_rows(board: Leaderboard) -> list[list[Any]]:
    label = {"points": "积分晋级", "qualifier": "预选赛晋级", "": ""}
    return [[r.rank, r.player, r.points, len(r.events), label[r.qualified]] for r in board.rows]


def season_workbook(board: Leaderboard) -> bytes:
    workbook = _workbook()
    _sheet(workbook, "赛季排名", SEASON_HEADER, _season_rows(board))
    history = [
        [r.player, e.name, e.date.isoformat(), place, points] for r in board.rows for e, place, points in r.events
    ]
    _sheet(workbook, "参赛记录", ("选手", "赛事", "日期", "名次", "积分"), history)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def season_csv(board: Leaderboard, header: str = "en") -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_header(SEASON_CSV_ZH, SEASON_CSV, header))
    for r in board.rows:
        writer.writerow(csv_safe([r.rank, r.player, r.points, len(r.events), r.qualified]))
    return out.getvalue()


def _exchange_rows(items: list[ExchangeItem]) -> list[list[Any]]:
    return [
        [i.name, i.price, i.valid_from.isoformat(), i.valid_until.isoformat() if i.valid_until else ""] for i in items
    ]


def exchange_workbook(store: str, items: list[ExchangeItem]) -> bytes:
    """A store's exchange list (every dated item) as XLSX."""
    workbook = _workbook()
    _sheet(workbook, store or "兑换列表", EXCHANGE_HEADER, _exchange_rows(items))
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def exchange_csv(items: list[ExchangeItem], header: str = "en") -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_header(EXCHANGE_HEADER, EXCHANGE_CSV, header))
    for row in _exchange_rows(items):
        writer.writerow(csv_safe(row))
    return out.getvalue()
