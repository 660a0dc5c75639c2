"""The score sheet the seed asks for ("最终选手分数要做好登记并制作电子表格，自己留一份，给官方发一份"):
an XLSX workbook (openpyxl) with one sheet for the players and their decks, one per round
(pairings and results), the standings and the prizes; and a CSV of the final standings.
The season table exports the same way.
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING, Any

from sqlmodel import Session

from catalog.events.prizes import placings
from catalog.events.registration import last_round, registrations
from catalog.events.running import matches, standings
from catalog.events.seasons import Leaderboard
from catalog.models import Event

if TYPE_CHECKING:
    from openpyxl import Workbook

PLAYER_HEADER = ("编号", "选手", "账号", "卡组哈希", "卡组合法", "问题", "首轮", "退赛自第几轮", "取消资格", "卡组")
ROUND_HEADER = ("桌号", "选手A", "选手B", "A胜局", "B胜局", "平局", "结果")
STANDING_HEADER = ("名次", "选手", "积分", "对手胜率", "局胜率", "对手局胜率", "场次", "胜", "平", "负", "轮空")
STANDING_CSV = ("rank", "player", "points", "omw", "gw", "ogw", "played", "won", "drawn", "lost", "byes", "chests")
PRIZE_HEADER = ("名次", "选手", "积分", "白银宝箱")


def standing_rows(session: Session, event: Event, up_to: int | None = None) -> list[list[Any]]:
    table = standings(session=session, event=event, up_to=up_to)
    return [
        [
            s.rank,
            s.record.entrant.name,
            s.record.points,
            round(float(s.record.omw), 4),
            round(float(s.record.gw), 4),
            round(float(s.record.ogw), 4),
            s.record.played,
            s.record.won,
            s.record.drawn,
            s.record.lost,
            s.record.byes,
        ]
        for s in table.rows
    ]


def _workbook() -> Workbook:
    """An empty workbook. openpyxl costs ~0.25 s to import: only an export pays it (issue 17)."""
    from openpyxl import Workbook

    workbook = Workbook()
    workbook.remove(workbook.active)
    return workbook


def _sheet(workbook: Workbook, title: str, header: tuple[str, ...], rows: list[list[Any]]) -> None:
    from openpyxl.styles import Font

    sheet = workbook.create_sheet(title)
    sheet.append(list(header))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in rows:
        sheet.append(row)
    sheet.freeze_panes = "A2"


def event_workbook(*, session: Session, event: Event) -> bytes:
    """The event as XLSX: 选手与卡组, 第 N 轮 for every round, 排名, 奖励."""
    workbook = _workbook()
    regs = registrations(session=session, event=event)
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
                "" if r.legal is None else ("合法" if r.legal else "不合法"),
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


def event_csv(*, session: Session, event: Event) -> str:
    """The final standings as CSV (UTF-8; with the chests each place earns)."""
    chests = {p.registration.id: p.chests for p in placings(session=session, event=event)}
    table = standings(session=session, event=event)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(STANDING_CSV)
    for s in table.rows:
        r = s.record
        writer.writerow(
            [s.rank, r.entrant.name, r.points, *(f"{float(v):.4f}" for v in (r.omw, r.gw, r.ogw)), r.played,
             r.won, r.drawn, r.lost, r.byes, chests.get(r.entrant.id, 0)]
        )  # fmt: skip
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


def season_csv(board: Leaderboard) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("rank", "player", "points", "events", "qualified"))
    for r in board.rows:
        writer.writerow([r.rank, r.player, r.points, len(r.events), r.qualified])
    return out.getvalue()
