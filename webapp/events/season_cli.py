"""``lunzang event season …``: seasons created, their standings shown or exported."""

from __future__ import annotations

import json
from pathlib import Path

import click
from flask.cli import with_appcontext
from sqlmodel import Session

from catalog.events import seasons
from catalog.events.export import season_csv, season_workbook
from webapp.cli_numbers import ID
from webapp.cli_support import friendly
from webapp.db import get_engine
from webapp.events.cli_common import now, writer_session


@click.group("season")
def season_group() -> None:
    """赛季：创建、排名、导出。"""


@season_group.command("create")
@click.argument("code")
@click.option("--name", default="", help="赛季名称。")
@click.option("--cut", "cut_top", type=ID, default=1, show_default=True, help="积分前 N 名获得国冠资格。")
@click.option("--qualifier-top", type=ID, default=0, show_default=True, help="预选赛前 K 名获得资格。")
@click.option("--points", "points_rule", default="match_points", type=click.Choice(sorted(seasons.POINTS_RULES)))
@with_appcontext
@friendly
def season_create(code: str, name: str, cut_top: int, qualifier_top: int, points_rule: str) -> None:
    """创建赛季（赛事用 --season CODE 加入）。"""
    with writer_session() as session, session.begin():
        season = seasons.create_season(
            session=session, code=code, name=name, now=now(), cut_top=cut_top, qualifier_top=qualifier_top,
            points_rule=points_rule,
        )  # fmt: skip
        click.echo(season.code)


@season_group.command("standings")
@click.argument("code")
@click.option("--json", "as_json", is_flag=True)
@click.option("--out", "out", default=None, type=click.Path(path_type=Path), help="导出 FILE.xlsx 或 FILE.csv。")
@click.option(
    "--header", type=click.Choice(["zh", "en"]), default="zh",
    help="CSV 表头语言：zh 中文（默认），en 英文键名（供脚本使用）。",
)  # fmt: skip
@with_appcontext
@friendly
def season_standings(code: str, as_json: bool, out: Path | None, header: str) -> None:
    """赛季排名与国冠资格线。"""
    with Session(get_engine()) as session:
        board = seasons.leaderboard(session=session, season=seasons.get_season(session=session, code=code))
        if out is not None:
            data = season_workbook(board) if out.suffix.lower() == ".xlsx" else season_csv(board, header).encode()
            out.write_bytes(data)
            click.echo(f"已导出 {out}")
            return
        rows = [
            {"rank": r.rank, "player": r.player, "points": r.points, "events": len(r.events), "qualified": r.qualified}
            for r in board.rows
        ]
    if as_json:
        click.echo(json.dumps({"season": code, "standings": rows}, ensure_ascii=False, indent=2))
        return
    for r in rows:
        mark = {"points": "（积分晋级）", "qualifier": "（预选赛晋级）"}.get(str(r["qualified"]), "")
        click.echo(f"  {r['rank']:>3}. {r['player']}  {r['points']} 分，{r['events']} 场{mark}")
