"""The ``lunzang`` commands: init-db, demo, serve here, and each area's own (its ``cli.py``;
``import`` and ``catalogue`` are the catalogue's, :mod:`webapp.curation.cli`), all listed in
:mod:`webapp.cli_index` and attached to the app by :func:`register`. The ``lunzang`` program
itself is :mod:`webapp.__main__`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from catalog import db as catalog_db
from catalog.numbers import INT32, INT64
from webapp.cli_index import COMMANDS, load_command
from webapp.cli_numbers import StrictInt
from webapp.cli_support import friendly
from webapp.db import get_engine

if TYPE_CHECKING:
    pass


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
        from webapp.curation.cli import run_import

        run_import([Path(current_app.config["SAMPLE_DATA"])], dry_run=False)


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
