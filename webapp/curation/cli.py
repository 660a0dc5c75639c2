"""The catalogue's commands: ``lunzang import`` (a game folder or a KeyForge JSON file into the
database, all or nothing) and ``lunzang catalogue export`` (the catalogue back in the import
format). Beside the catalogue's web pages (bulk upload, open data), which import the same way."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from flask.cli import with_appcontext

from catalog import db as catalog_db
from catalog.ingest import ImportFailed, ImportReport, import_catalogue, vacuum_after_import
from webapp.cli_support import friendly
from webapp.db import get_engine

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine


def _progress_printer() -> Callable[[str, int, int], None]:
    interactive = sys.stderr.isatty()
    state = {"last": 0.0}

    def show(stage: str, done: int, total: int) -> None:
        if total < 5000:
            return
        now = time.monotonic()
        if done < total and now - state["last"] < 0.2:
            return
        state["last"] = now
        width = 30
        filled = int(width * done / total) if total else width
        bar = "█" * filled + "·" * (width - filled)
        line = f"{stage} [{bar}] {done}/{total}"
        if interactive:
            click.echo(f"\r{line}", err=True, nl=done >= total)
        elif done >= total:
            click.echo(line, err=True)

    return show


def _print_report(report: ImportReport, *, dry_run: bool, seconds: float) -> None:
    from catalog.ingest.report import report_lines  # the same lines the web's bulk upload shows

    for line in report_lines(report, dry_run=dry_run, seconds=seconds):
        click.echo(line)


def run_import(paths: list[Path], *, dry_run: bool) -> ImportReport:
    engine = get_engine()
    if not dry_run or catalog_db.is_empty(engine):
        catalog_db.upgrade(engine)
    started = time.perf_counter()
    from sqlmodel import Session

    with Session(engine) as session:
        transaction = session.begin()
        try:
            report = import_catalogue(session=session, paths=paths, progress=_progress_printer())
        except ImportFailed as failure:
            transaction.rollback()
            for problem in failure.problems:
                click.echo(str(problem), err=True)
            click.echo(f"导入失败：{len(failure.problems)} 个错误，数据库未作任何改动。", err=True)
            sys.exit(1)
        if dry_run:
            transaction.rollback()
        else:
            transaction.commit()
    if report.changed and not dry_run:
        vacuum_after_import(engine)  # PostgreSQL: the new rows all-visible for the first searches
    _print_report(report, dry_run=dry_run, seconds=time.perf_counter() - started)
    if not dry_run:
        _store_orders(engine)
    return report


def _store_orders(engine: Engine) -> None:
    """The collection page's orders of the new catalogue, stored in a transaction of their own
    after the import's (catalog.collection.ordering.store_ranks): derived data, so the import
    stands even should this fail."""
    from catalog.collection.ordering import store_ranks

    started = time.perf_counter()
    with catalog_db.transaction(engine) as session:
        counts = store_ranks(session=session, unless_current=True)
    if not counts:
        return  # the import changed nothing: the orders stored are of this catalogue
    click.echo(
        f"  收藏页的排序已备好（{max(counts.values(), default=0)} 张印刷），用时 {time.perf_counter() - started:.2f} 秒"
    )


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="只检查并报告将要发生的改动，不写入数据库。")
@with_appcontext
@friendly
def import_command(paths: tuple[Path, ...], dry_run: bool) -> None:
    """导入卡牌数据：游戏目录（manifest.toml + cards/*.csv）或 KeyForge 社区 JSON 文件。

    全部成功才写入；任何错误都以“文件:行: 列: 说明”列出，数据库保持不变。
    """
    run_import(list(paths), dry_run=dry_run)


@click.group("catalogue")
def catalogue() -> None:
    """卡牌目录：导出为导入格式（开放数据）。"""


@catalogue.command("export")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--game", "games", multiple=True, help="只导出这个游戏（可重复）；默认导出全部。")
@with_appcontext
@friendly
def catalogue_export(out: Path, games: tuple[str, ...]) -> None:
    """把卡牌目录写成导入格式：OUT/<游戏>/manifest.toml + cards/<系列>.csv。

    再用 lunzang import 导入空数据库，得到同样的目录；再次导出，文件逐字节相同。
    """
    from catalog.ingest.export import export_catalogue

    if out.exists() and not out.is_dir():
        raise click.BadParameter(f"「{out}」不是目录 (not a folder)", param_hint="OUT")
    with catalog_db.transaction(get_engine()) as session:
        written = export_catalogue(session=session, out=out, games=list(games) or None)
    if not written:
        click.echo("目录为空：没有可导出的游戏。")
    for game in written:
        click.echo(f"{game.slug}：{game.sets} 个系列，{game.printings} 张印刷，{game.formats} 个赛制 → {game.folder}")
