"""The ``lunzang`` commands: init-db, import, demo, serve here, and each blueprint's own (its
``cli.py``), all listed in :mod:`webapp.cli_index` and attached to the app by :func:`register`.
The ``lunzang`` program itself is :mod:`webapp.__main__`."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from catalog import db as catalog_db
from catalog.ingest import ImportFailed, ImportReport, import_catalogue, vacuum_after_import
from catalog.numbers import INT32, INT64
from webapp.cli_index import COMMANDS, load_command
from webapp.cli_numbers import StrictInt
from webapp.cli_support import friendly
from webapp.db import get_engine

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine


def register(app: Flask) -> None:
    """Attach the commands of :data:`webapp.cli_index.COMMANDS` to ``app.cli`` (so the test
    runner and the app's own CLI see them; ``lunzang`` finds them without the app)."""
    for name in COMMANDS:
        app.cli.add_command(load_command(name))


@click.command("init-db")
@click.option("--with-sample", is_flag=True, help="数据库为空时导入随附的样例卡牌数据。")
@with_appcontext
@friendly
def init_db(with_sample: bool) -> None:
    """创建或升级数据库结构（Alembic 迁移到最新版本）。"""
    engine = get_engine()
    catalog_db.upgrade(engine)
    click.echo(f"数据库已是最新结构：{engine.url.render_as_string(hide_password=True)}")
    if with_sample:
        from sqlalchemy import func, select
        from sqlmodel import Session

        from catalog.models import Printing

        with Session(engine) as session:
            count = session.scalar(select(func.count()).select_from(Printing))
        if count:
            click.echo(f"数据库已有 {count} 张印刷卡牌，不导入样例数据。")
            return
        _run_import([Path(current_app.config["SAMPLE_DATA"])], dry_run=False)


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


def _run_import(paths: list[Path], *, dry_run: bool) -> ImportReport:
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
    _run_import(list(paths), dry_run=dry_run)


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


@click.group("demo")
def demo() -> None:
    """演示与压测数据。"""


@demo.command("synth")
@click.option(
    "--printings", "count", type=StrictInt(1, INT32), default=1000, show_default=True, help="生成的印刷卡牌数。"
)
@click.option("--out", "out", type=click.Path(path_type=Path), required=True, help="输出目录。")
@click.option("--seed", type=StrictInt(0, INT64), default=1, show_default=True, help="随机种子。")
@friendly
def demo_synth(count: int, out: Path, seed: int) -> None:
    """生成 N 张印刷的合成永恒之轮目录（导入格式，可重复生成），用于压测。"""
    from catalog.ingest.synth import write_synthetic_catalogue

    folder = write_synthetic_catalogue(out, printings=count, seed=seed)
    click.echo(f"已生成 {count} 张印刷：{folder}")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=StrictInt(1, 65535))
@click.option("--workers", default=2, show_default=True, type=StrictInt(1, 256))
@click.option("--check", is_flag=True, help="只检查数据库与限流存储（Redis）能否连接，不启动服务；正常时退出码为 0。")
@with_appcontext
def serve(host: str, port: int, workers: int, check: bool) -> None:
    """用 gunicorn 提供生产服务（需要设置 SECRET_KEY）。"""
    from webapp.config import short_key_problem

    # The key the production workers will sign with: the environment's (or the instance
    # config's), never a generated one; refused here, before gunicorn, with the reason.
    configured = os.environ.get("SECRET_KEY") or current_app.config.get("SECRET_KEY")
    if problem := short_key_problem(configured):
        click.echo(f"错误：{problem[0]}\nError: {problem[1]}", err=True)
        raise SystemExit(2)
    if check:
        from webapp.health import checks

        results = checks(current_app)
        for name, state in results.items():
            click.echo(f"{name}: {state}", err=state != "ok")
        raise SystemExit(0 if all(v == "ok" for v in results.values()) else 1)
    env = dict(os.environ, LUNZANG_ENV="production")
    args = [sys.executable, "-m", "gunicorn", "--workers", str(workers), "--bind", f"{host}:{port}", "webapp.wsgi:app"]
    os.execvpe(args[0], args, env)
