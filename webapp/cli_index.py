"""Every ``lunzang`` command: the module it lives in and its one-line summary.

``lunzang --help`` lists the commands from this table without importing them: their modules
bring the models, the blueprints and the catalogue code, and building the app compiles every
URL rule — most of a second, for a list of thirteen lines. A command's module is imported when
the command is looked up to run (or to show its own ``--help``); the app is built by the
commands that use it (``with_appcontext``) when they run. Each summary is the first paragraph
of the command's docstring, which click would have shortened for the list; a test
(tests/test_cli_index.py) fails when the two differ.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import update_wrapper
from importlib import import_module
from typing import Any, TypeVar

import click
from flask import Flask, current_app
from flask.cli import FlaskGroup, ScriptInfo
from flask.helpers import get_debug_flag

F = TypeVar("F", bound=Callable[..., Any])

# name → ("module:attribute" of the click command, first paragraph of its docstring)
COMMANDS: dict[str, tuple[str, str]] = {
    "catalogue": ("webapp.curation.cli:catalogue", "卡牌目录：导出为导入格式（开放数据）。"),
    "collection": ("webapp.collection.cli:collection", "收藏：导入、导出 CSV，撤销导入。"),
    "deck": ("webapp.decks.cli:deck", "卡组：构筑检查、卡组图片、代理卡 PDF。"),
    "demo": ("webapp.cli:demo", "演示与压测数据。"),
    "event": ("webapp.events.cli:event_group", "赛事：创建、报名、配对、录入结果、排名、导出（瑞士轮，MTR 破同分）。"),
    "images": ("webapp.images.cli:images_group", "卡图：上传扫描图，替换依据数据绘制的卡面。"),
    "import": (
        "webapp.curation.cli:import_command",
        "导入卡牌数据：游戏目录（manifest.toml + cards/*.csv）或 KeyForge 社区 JSON 文件。",
    ),
    "init-db": ("webapp.cli:init_db", "创建或升级数据库结构（Alembic 迁移到最新版本）。"),
    "packs": ("webapp.boosters.cli:packs", "补充包模拟：开包、精确概率、集齐一个系列需要几盒。"),
    "render": (
        "webapp.images.cli:render_command",
        "把一张卡的卡面画成 PNG。CARD 是卡名（简繁、全半角均可）或收藏编号；出错时退出码为 2。",
    ),
    "search": (
        "webapp.cards.cli:search_command",
        "搜索卡牌，例如：lunzang search 't:战魂 a:火 cost<=3'，也可以以 - 开头：lunzang search -t:战魂。",
    ),
    "serve": ("webapp.cli:serve", "用 gunicorn 提供生产服务（需要设置 SECRET_KEY）。"),
    "trades": ("webapp.trading.cli:trades", "交易：记录过期的报价。"),
    "user": ("webapp.auth.cli:user", "账号：创建用户、设置角色、签发 API 令牌。"),
}


@contextmanager
def gc_paused() -> Iterator[None]:
    """The garbage collector paused while the long-lived objects of a start are made (modules,
    models, blueprints, URL rules): the collections this would trigger find nothing to free and
    cost ~10% of a command's start. Frozen afterwards, those objects are not scanned again by
    the command's own collections. Nested (the app registers the commands), the outer one
    resumes the collector."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def load_command(name: str) -> click.Command:
    """The click command ``name`` of the table, its module imported."""
    module, attribute = COMMANDS[name][0].split(":")
    with gc_paused():
        command: click.Command = getattr(import_module(module), attribute)
    return command


class LunzangInfo(ScriptInfo):
    """Flask's script info, which can also give a command the settings app
    (:func:`webapp.create_settings_app`) instead of the whole one."""

    def __init__(self, *, create_settings_app: Callable[[], Flask], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.create_settings_app = create_settings_app
        self._settings_app: Flask | None = None

    def load_settings_app(self) -> Flask:
        """The app's settings and database, made as :meth:`load_app` makes the app (the debug
        flag set the same way); the whole app when it is already built."""
        if self._loaded_app is not None:
            return self._loaded_app
        if self._settings_app is None:
            app = self.create_settings_app()
            if self.set_debug_flag:
                app.debug = get_debug_flag()
            self._settings_app = app
        return self._settings_app


def with_settings(command: F) -> F:
    """Flask's ``with_appcontext`` for a command that needs the app's settings and database
    only (``get_engine``, ``current_app.config``): under ``lunzang`` it runs in the settings app,
    built without the extensions, blueprints and pages that are most of the whole app's cost.
    Elsewhere — the test runner's ``app.cli``, ``flask --app`` — in the app given."""

    @click.pass_context
    def decorator(ctx: click.Context, /, *args: Any, **kwargs: Any) -> Any:
        if not current_app:
            info = ctx.ensure_object(ScriptInfo)
            app = info.load_settings_app() if isinstance(info, LunzangInfo) else info.load_app()
            ctx.with_resource(app.app_context())
        return ctx.invoke(command, *args, **kwargs)

    return update_wrapper(decorator, command)  # type: ignore[return-value]  # as Flask's own


class LunzangGroup(FlaskGroup):
    """Flask's command group, which knows the ``lunzang`` commands without building the app.

    Flask's own group builds the app (and loads the commands of installed Flask extensions) to
    find any command, or to list them. Here a command of :data:`COMMANDS` is imported by
    itself; the rest — Flask's ``run``, ``shell`` and ``routes``, Flask-Limiter's ``limiter``,
    a mistyped name — goes the Flask way, with the same messages. A command marked
    :func:`with_settings` gets ``create_settings_app``'s app instead of ``create_app``'s.
    """

    def __init__(self, *args: Any, create_settings_app: Callable[[], Flask], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.create_settings_app = create_settings_app

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        if "obj" not in extra and "obj" not in self.context_settings:
            extra["obj"] = LunzangInfo(
                create_app=self.create_app,
                create_settings_app=self.create_settings_app,
                set_debug_flag=self.set_debug_flag,
                load_dotenv_defaults=self.load_dotenv,
            )
        return super().make_context(info_name, args, parent=parent, **extra)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS:
            return load_command(name)
        return super().get_command(ctx, name)

    def invoke(self, ctx: click.Context) -> object:
        """Any command on a database without the tables it reads (``lunzang search`` before
        ``lunzang init-db``, or after an upgrade that added a table) says what to do, in one
        line and with exit status 2, instead of a traceback."""
        try:
            return super().invoke(ctx)
        except Exception as error:
            if not _missing_table(error):
                raise
            click.echo("错误：数据库还没有建好表，或结构不是最新的：先运行 lunzang init-db。", err=True)
            ctx.exit(2)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugin_commands()
        return sorted({*self.commands, *COMMANDS})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of ``--help``, each command of the table summarised by its entry (the
        same words click takes from its docstring), none of them imported."""
        _Summaries(self).format_commands(ctx, formatter)


def _missing_table(error: BaseException) -> bool:
    """Whether ``error`` is the database saying a table does not exist (SQLite's "no such
    table", PostgreSQL's SQLSTATE 42P01). SQLAlchemy is imported only here, on the way out of
    a failed command: ``--help`` does not load it."""
    from sqlalchemy.exc import DBAPIError

    if not isinstance(error, DBAPIError) or error.orig is None:
        return False
    return getattr(error.orig, "sqlstate", None) == "42P01" or str(error.orig).startswith("no such table")


class _Summaries(click.Group):
    """The group as ``format_commands`` reads it: its names, and a stand-in for each command
    of the table that carries only its summary."""

    def __init__(self, group: LunzangGroup) -> None:
        super().__init__(group.name)
        self._group = group

    def list_commands(self, ctx: click.Context) -> list[str]:
        return self._group.list_commands(ctx)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS:
            return click.Command(name, help=COMMANDS[name][1])
        return self._group.get_command(ctx, name)
