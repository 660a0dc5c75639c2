"""``lunzang event …`` (DESIGN §12, a contract used by scripts): a thin caller of catalog.events.

Every command is one transaction: a domain error prints one line on stderr, exits 2 and
changes nothing.
"""

from __future__ import annotations

import json
import secrets
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import click
from flask.cli import with_appcontext
from sqlmodel import Session

from catalog import accounts
from catalog.decks.lists import DecklistError
from catalog.errors import Message
from catalog.events import prizes, running, safety, stores
from catalog.events import registration as reg
from catalog.events.export import event_csv, event_workbook
from catalog.events.registration import EventError
from catalog.models import Event, Match
from catalog.numbers import BadNumber, parse_int
from webapp.cli_numbers import ID, StrictInt
from webapp.cli_support import friendly
from webapp.db import get_engine
from webapp.events.cli_common import cell_int, csv_rows, now, read_text, writer_session
from webapp.events.season_cli import season_group
from webapp.shapes.events import Pairing, Pairings, Standings


@click.group("event")
def event_group() -> None:
    """赛事：创建、报名、配对、录入结果、排名、导出（瑞士轮，MTR 破同分）。"""


def _event(session: Session, event_id: int) -> Event:
    return reg.get_event(session=session, event_id=event_id, lock=True)


def _pairings_json(event: Event, number: int, tables: list[Match], names: dict[int, str]) -> dict[str, Any]:
    """The API's Pairings shape of a round just paired."""
    assert event.id is not None
    pairings = [
        Pairing(
            table=m.table_number,
            player_a=names[m.player_a_id],
            player_b=names[m.player_b_id] if m.player_b_id is not None else None,
        )
        for m in tables
    ]
    return Pairings(event=event.id, round=number, pairings=pairings).body()


def _names(session: Session, event: Event) -> dict[int, str]:
    return {r.id: r.player_name for r in reg.registrations(session=session, event=event)}  # type: ignore[misc]  # stored registrations were flushed, so their ids are set


@event_group.command("create")
@click.option("--name", required=True, help="赛事名称。")
@click.option("--game", required=True, help="游戏（samsara 等）。")
@click.option("--format", "format_code", default="", help="赛制代码。")
@click.option("--date", "day", required=True, help="日期 YYYY-MM-DD。")
@click.option("--rounds", type=ID, default=None, help="轮数（省略时按人数取 MTR 附录 E）。")
@click.option("--organizer", default=None, help="主办者用户名（需 organizer 或 admin 角色）。")
@click.option("--season", "season_code", default=None, help="赛季代码。")
@click.option("--store", default="", help="店铺（白银宝箱记在店铺名下）。")
@click.option("--city", default="", help="城市。")
@click.option("--kind", default="monthly", type=click.Choice(["monthly", "bawang", "qualifier"]), help="赛事类型。")
@click.option("--top-cut", type=click.Choice(["0", "4", "8"]), default="0", help="决赛圈人数。")
@click.option("--deadline", default=None, help="卡组截止时间 YYYY-MM-DDTHH:MM（UTC）。")
@click.option(
    "--third-place", type=click.Choice(["playoff", "swiss"]), default="swiss",
    help="决赛圈季军：playoff 加赛，swiss 按瑞士轮名次。",
)  # fmt: skip
@click.option(
    "--deck-policy", type=click.Choice(["required", "flag"]), default="required",
    help="required：只有合法卡组才能配对（默认）；flag：照常比赛并标记缺失或不合法的卡组。",
)  # fmt: skip
@with_appcontext
@friendly
def create_command(
    name: str,
    game: str,
    format_code: str,
    day: str,
    rounds: int | None,
    organizer: str | None,
    season_code: str | None,
    store: str,
    city: str,
    kind: str,
    top_cut: str,
    deadline: str | None,
    third_place: str,
    deck_policy: str,
) -> None:
    """创建赛事，打印新赛事的编号。"""
    try:
        held_on = date.fromisoformat(day)
        locks_at = datetime.fromisoformat(deadline).replace(tzinfo=UTC) if deadline else None
    except ValueError as error:
        raise EventError(
            Message(f"日期「{day}」应为 YYYY-MM-DD（截止时间 YYYY-MM-DDTHH:MM）", "bad date or deadline")
        ) from error
    with writer_session() as session, session.begin():
        organizer_id = None
        if organizer:
            user = accounts.find_user(session=session, username=organizer)
            if user.role not in ("organizer", "admin"):
                raise EventError(
                    Message(f"{user.username} 没有主办者（organizer）角色", f"{user.username} is not an organizer")
                )
            organizer_id = user.id
            if store.strip():  # an organiser acts only for the stores they staff
                stores.require_staff(session=session, user=user, store=store.strip())
        event = reg.create_event(
            session=session, name=name, game=game, format_code=format_code, date=held_on, now=now(),
            organizer_id=organizer_id, rounds=rounds, season_code=season_code, store=store, city=city, kind=kind,
            top_cut=int(top_cut), deadline=locks_at, third_place=third_place, deck_policy=deck_policy,
        )  # fmt: skip
        click.echo(event.id)


@event_group.command("register")
@click.argument("event_id", type=ID)
@click.argument("player")
@click.option("--deck", "deck_file", default=None, help="卡组文件（文本或 JSON，“-” 为标准输入）。")
@click.option("--user", "username", default=None, help="选手的账号。")
@click.option(
    "--owned-deck", "owned_deck", type=int, default=None, help="选手自己拥有的一副卡组的编号（需 --user；锁定其身份）。"
)
@with_appcontext
@friendly
def register_command(
    event_id: int, player: str, deck_file: str | None, username: str | None, owned_deck: int | None
) -> None:
    """为选手报名（可附卡组：立即按赛事赛制检查）。"""
    text = read_text(deck_file) if deck_file else None
    with writer_session() as session, session.begin():
        event = _event(session, event_id)
        user_id = accounts.find_user(session=session, username=username).id if username else None
        try:
            entry = reg.register_player(
                session=session,
                event=event,
                player_name=player,
                now=now(),
                user_id=user_id,
                deck_text=text,
                owned_deck_id=owned_deck,
            )
        except DecklistError as error:
            for problem in error.problems:
                click.echo(f"{deck_file}:{problem.line}: {problem.message.zh}", err=True)
            sys.exit(2)
        verdict = "无卡组" if entry.legal is None else ("合法" if entry.legal else "不合法")
        click.echo(f"已报名 #{entry.id} {entry.player_name}：卡组{verdict} {entry.deck_hash[:8]}")
        for violation in entry.verdict.get("violations", []):
            click.echo(f"  {violation['message']}")


@event_group.command("pair")
@click.argument("event_id", type=ID)
@click.option("--seed", type=StrictInt(0, running.MAX_SEED), default=None, help="随机种子（省略时随机并显示）。")
@click.option("--from", "from_file", default=None, help="从 CSV（table,player_a,player_b）导入本轮配对。")
@click.option("--json", "as_json", is_flag=True, help="以 JSON 输出。")
@with_appcontext
@friendly
def pair_command(event_id: int, seed: int | None, from_file: str | None, as_json: bool) -> None:
    """为下一轮配对（第一轮配对时截止报名、锁定卡组），打印配对。"""
    text = read_text(from_file) if from_file else None
    with writer_session() as session, session.begin():
        event = _event(session, event_id)
        if text is not None:
            rows = [
                (cell_int(r["table"], "table", i), r["player_a"], r["player_b"])
                for i, r in enumerate(csv_rows(text, ("table", "player_a", "player_b")), start=2)
            ]
            round_row, tables = running.import_pairings(session=session, event=event, rows=rows, now=now())
        else:
            chosen = secrets.randbelow(running.MAX_SEED) if seed is None else seed
            round_row, tables = running.pair_next_round(session=session, event=event, seed=chosen, now=now())
        names = _names(session, event)
        data = _pairings_json(event, round_row.number, tables, names)
        if as_json:
            click.echo(json.dumps(data, ensure_ascii=False, indent=2))
            return
        source = f"种子 {round_row.seed}" if round_row.seed is not None else "从文件导入"
        click.echo(f"第 {round_row.number} 轮（{source}）")
        for p in data["pairings"]:
            click.echo(f"  第 {p['table']} 桌：{p['player_a']} — {p['player_b'] or '轮空'}")


def _parse_result(text: str) -> tuple[int, int, int]:
    parts = text.replace("–", "-").split("-")
    try:
        if len(parts) not in (2, 3):
            raise BadNumber(Message("", ""), "result")
        wins = [parse_int(p, field="result", high=99) for p in parts] + ([0] if len(parts) == 2 else [])
    except BadNumber as error:
        raise EventError(
            Message(f"结果「{text}」应写作 胜-负-平，如 2-1-0", f"result '{text}' must be W-L-D like 2-1-0")
        ) from error
    return wins[0], wins[1], wins[2]


@event_group.command("report")
@click.argument("event_id", type=ID)
@click.option("--round", "round_number", type=ID, required=True, help="轮次。")
@click.option("--file", "result_file", default=None, help="CSV：table,player_a,player_b,wins_a,wins_b,draws。")
@click.option("--table", type=ID, default=None, help="桌号（与 --result 一起用）。")
@click.option("--result", default=None, help="该桌结果 A胜-B胜-平，如 2-1-0。")
@with_appcontext
@friendly
def report_command(
    event_id: int, round_number: int, result_file: str | None, table: int | None, result: str | None
) -> None:
    """录入（或更正）一轮的结果：更正之后的排名随之重算。"""
    if (result_file is None) == (table is None or result is None):
        raise EventError(
            Message("请给出 --file，或同时给出 --table 和 --result", "give --file, or --table and --result")
        )
    entries: list[tuple[int, tuple[int, int, int], str, str]] = []
    if result_file:
        columns = ("table", "player_a", "player_b", "wins_a", "wins_b", "draws")
        for i, row in enumerate(csv_rows(read_text(result_file), columns), start=2):
            wins = (cell_int(row["wins_a"] or "0", "wins_a", i), cell_int(row["wins_b"] or "0", "wins_b", i),
                    cell_int(row["draws"] or "0", "draws", i))  # fmt: skip
            entries.append((cell_int(row["table"], "table", i), wins, row["player_a"], row["player_b"]))
    else:
        assert table is not None and result is not None
        entries.append((table, _parse_result(result), "", ""))
    with writer_session() as session, session.begin():
        event = _event(session, event_id)
        names = _names(session, event)
        done = 0
        for number, wins, name_a, name_b in entries:
            match = running.get_match(session=session, event=event, round_number=round_number, table=number)
            if match.player_b_id is None:
                continue  # a bye's line in the file: nothing to record
            if name_a and (name_a, name_b) != (names[match.player_a_id], names[match.player_b_id]):
                raise EventError(
                    Message(
                        f"第 {number} 桌是 {names[match.player_a_id]} 对 {names[match.player_b_id]}，"
                        f"文件写的是 {name_a} 对 {name_b}",
                        f"table {number} is not {name_a} v {name_b}",
                    )
                )
            running.record_result(
                session=session, event=event, match=match, wins_a=wins[0], wins_b=wins[1], draws=wins[2], now=now()
            )
            done += 1
        click.echo(f"已录入第 {round_number} 轮 {done} 桌的结果")


@event_group.command("drop")
@click.argument("event_id", type=ID)
@click.argument("player")
@with_appcontext
@friendly
def drop_command(event_id: int, player: str) -> None:
    """选手退赛：从下一轮起不再配对（已打的结果保留）。"""
    with writer_session() as session, session.begin():
        event = _event(session, event_id)
        entry = reg.drop_player(
            session=session, event=event, registration=reg.find_player(session=session, event=event, name=player)
        )
        click.echo(f"{entry.player_name} 自第 {entry.dropped_from} 轮起退赛")


@event_group.command("standings")
@click.argument("event_id", type=ID)
@click.option("--round", "round_number", type=ID, default=None, help="第几轮之后的排名（默认最新）。")
@click.option("--json", "as_json", is_flag=True, help="以 JSON 输出。")
@with_appcontext
@friendly
def standings_command(event_id: int, round_number: int | None, as_json: bool) -> None:
    """排名：积分，然后对手胜率、局胜率、对手局胜率（MTR；对手胜率每人至少 1/3）。"""
    with Session(get_engine()) as session:
        event = reg.get_event(session=session, event_id=event_id)
        data = Standings.of(session=session, event=event, up_to=round_number).body()
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    click.echo(f"第 {data['round']} 轮后排名")
    for s in data["standings"]:
        click.echo(
            f"  {s['rank']:>3}. {s['player']}  {s['points']} 分  对手胜率 {s['omw']:.2%}  局胜率 {s['gw']:.2%}  "
            f"对手局胜率 {s['ogw']:.2%}"
        )


@event_group.command("finish")
@click.argument("event_id", type=ID)
@click.option(
    "--flagged", type=click.Choice(["award", "withhold"]), default=None,
    help="卡组不合法或缺失的获奖选手：award 照发，withhold 不发（有这样的选手时必须选择）。",
)  # fmt: skip
@with_appcontext
@friendly
def finish_command(event_id: int, flagged: str | None) -> None:
    """结束赛事并按名次发放白银宝箱（冠军 9、亚军 7、季军 5、其余 4，或赛事的奖励表）。"""
    with writer_session() as session, session.begin():
        event = _event(session, event_id)
        running.finish_event(session=session, event=event)
        given = prizes.award_chests(session=session, event=event, now=now(), flagged=flagged) if event.store else []
        safety.record(session=session, event=event, by_user_id=None, action="finish", detail="结束赛事（命令行）",
                      now=now())  # fmt: skip
        for p in given:
            click.echo(f"  第 {p.place} 名 {p.registration.player_name}：{p.chests} 个白银宝箱")
        if not event.store:
            click.echo("赛事没有填写店铺：未发放宝箱")


@event_group.command("export")
@click.argument("event_id", type=ID)
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="FILE.xlsx 或 FILE.csv。")
@click.option(
    "--header", type=click.Choice(["zh", "en"]), default="zh",
    help="CSV 表头语言：zh 中文（默认），en 英文键名（供脚本使用）。",
)  # fmt: skip
@with_appcontext
@friendly
def export_command(event_id: int, out: Path, header: str) -> None:
    """导出成绩表：XLSX（选手与卡组、每轮配对与结果、排名、奖励）或 CSV（最终排名）。"""
    suffix = out.suffix.lower()
    if suffix not in (".xlsx", ".csv"):
        raise EventError(Message("--out 应以 .xlsx 或 .csv 结尾", "--out must end in .xlsx or .csv"))
    with Session(get_engine()) as session:
        event = reg.get_event(session=session, event_id=event_id)
        data = (
            event_workbook(session=session, event=event)
            if suffix == ".xlsx"
            else event_csv(session=session, event=event, header=header).encode()
        )
    try:
        out.write_bytes(data)
    except OSError as error:
        raise EventError(Message(f"无法写入 {out}：{error.strerror or error}", f"cannot write {out}")) from error
    click.echo(f"已导出 {out}")


@event_group.command("edit")
@click.argument("event_id", type=ID)
@click.option("--name", default=None, help="赛事名称。")
@click.option("--date", "day", default=None, help="日期 YYYY-MM-DD。")
@click.option("--store", default=None, help="店铺（空字符串：无店铺）。")
@click.option("--format", "format_code", default=None, help="赛制代码。")
@click.option("--rounds", type=click.IntRange(0, 20), default=None, help="轮数（0：按人数取 MTR 附录 E）。")
@click.option("--round-minutes", type=ID, default=None, help="每轮时长（分钟）。")
@click.option("--top-cut", type=click.Choice(["0", "4", "8"]), default=None, help="决赛圈人数。")
@click.option("--third-place", type=click.Choice(["playoff", "swiss"]), default=None, help="季军：加赛或按瑞士轮名次。")
@click.option("--deck-policy", type=click.Choice(["required", "flag"]), default=None, help="卡组政策。")
@click.option("--deadline", default=None, help="卡组截止时间 YYYY-MM-DDTHH:MM（UTC；空字符串：无）。")
@click.option("--add-round", is_flag=True, help="进行中：增加一轮。")
@click.option("--end-early", is_flag=True, help="进行中：本轮后提前结束。")
@with_appcontext
@friendly
def edit_command(event_id: int, day: str | None, rounds: int | None, top_cut: str | None, deadline: str | None,
                 add_round: bool, end_early: bool, **fields: Any) -> None:  # fmt: skip
    """修改赛事设置（第 1 轮配对前）；进行中只能 --add-round 或 --end-early。"""
    changes: dict[str, Any] = {key: value for key, value in fields.items() if value is not None}
    try:
        if day is not None:
            changes["date"] = date.fromisoformat(day)
        if deadline is not None:
            changes["deadline"] = datetime.fromisoformat(deadline).replace(tzinfo=UTC) if deadline else None
    except ValueError as error:
        raise EventError(Message("日期应为 YYYY-MM-DD（截止时间 YYYY-MM-DDTHH:MM）", "bad date or deadline")) from error
    if rounds is not None:
        changes["rounds"] = rounds or None
    if top_cut is not None:
        changes["top_cut"] = int(top_cut)
    with writer_session() as session, session.begin():
        event = _event(session, event_id)
        if add_round or end_early:
            if changes:
                raise EventError(Message("--add-round / --end-early 不能与其他修改一起用", "use them alone"))
            (safety.add_round if add_round else safety.end_early)(session=session, event=event)
            click.echo(f"共 {event.rounds} 轮")
            action = "add_round" if add_round else "end_early"
            detail = f"共 {event.rounds} 轮（命令行）"
            safety.record(session=session, event=event, by_user_id=None, action=action, detail=detail, now=now())
            return
        changed = safety.edit_event(session=session, event=event, changes=changes, now=now())
        safety.record(session=session, event=event, by_user_id=None, action="edit",
                      detail="修改（命令行）：" + "、".join(changed), now=now())  # fmt: skip
        click.echo("已修改：" + ("、".join(changed) if changed else "（没有变化）"))


event_group.add_command(season_group)
