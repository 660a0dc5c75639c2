"""``lunzang deck check FILE --game G [--format F] [--json]``: exit 0 legal, 1 illegal, 2 unreadable.

``lunzang deck image`` / ``lunzang deck proxies``: the deck as a PNG to share, or a proxy PDF.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from flask.cli import with_appcontext
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.decks.check import DeckCheck, check_decklist, check_decklists
from catalog.decks.lists import DecklistError
from catalog.errors import LunzangError
from catalog.games import GAMES
from webapp.cli_index import with_settings
from webapp.db import get_engine


@click.group("deck")
def deck() -> None:
    """卡组：构筑检查、卡组图片、代理卡 PDF。"""


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise click.exceptions.Exit(_fail(f"无法读取文件 {path}：{error.strerror or error}")) from error
    except UnicodeDecodeError as error:
        raise click.exceptions.Exit(_fail(f"文件 {path} 不是 UTF-8 文本")) from error


def _fail(message: str) -> int:
    click.echo(f"错误：{message}", err=True)
    return 2


@deck.command("check")
@click.argument("file", type=str)
@click.option("--game", "game", default=None, help=f"游戏：{'、'.join(GAMES)}（或中文名）。")
@click.option("--format", "format_code", default=None, help="赛制代码或规则类型；省略时用游戏的默认规则。")
@click.option("--json", "as_json", is_flag=True, help="以 JSON 输出判定结果。")
@with_settings
def deck_check(file: str, game: str | None, format_code: str | None, as_json: bool) -> None:
    """检查卡组是否合法：一次列出所有问题。退出码 0 合法，1 不合法，2 无法读取。

    FILE 是文本或 JSON 卡组（“-” 表示标准输入）。
    """
    text = _read(file)
    try:
        engine = get_engine()
        if catalog_db.is_empty(engine):
            sys.exit(_fail("数据库还没有卡牌数据：请先运行 lunzang init-db --with-sample 或 lunzang import"))
        with Session(engine) as session:
            results = check_decklists(session=session, text=text, game=game, format_code=format_code)
    except DecklistError as error:
        for problem in error.problems:
            click.echo(f"{file}:{problem.line}: {problem.message.zh}" if problem.line else problem.message.zh, err=True)
        sys.exit(2)
    except LunzangError as error:
        sys.exit(_fail(error.message.zh))
    if as_json:
        # one verdict for one deck; a file of several decks (keyteki's list) gives a list of them
        if len(results) == 1:
            click.echo(json.dumps(results[0].verdict.to_json(), ensure_ascii=False, indent=2))
        else:
            click.echo(json.dumps([_with_name(result) for result in results], ensure_ascii=False, indent=2))
    for result in results if not as_json else ():
        verdict = result.verdict
        counts = verdict.counts
        state = "合法" if verdict.legal else "不合法"
        named = f"「{result.deck.name}」" if len(results) > 1 and result.deck.name else ""
        click.echo(
            f"{named}{state}：{result.pool.game} / {verdict.format}，"
            f"主卡组 {counts['main']} 张，额外卡组 {counts['extra']} 张，备牌 {counts['side']} 张"
        )
        for violation in verdict.violations:
            label = "错误" if violation.severity == "error" else "警告"
            click.echo(f"  {label} [{violation.code}] {violation.message}")
    sys.exit(0 if all(result.verdict.legal for result in results) else 1)


def _with_name(result: DeckCheck) -> dict[str, Any]:
    """The verdict (DESIGN §5), plus the deck's name (which deck of the file it is)."""
    verdict = result.verdict.to_json()
    if result.deck.name:
        verdict["deck"] = result.deck.name
    return verdict


def _checked(file: str, game: str | None, format_code: str | None) -> tuple[Session, DeckCheck]:
    """The decklist judged, in an open session; exits 2 when unreadable or naming unknown cards."""
    from catalog.images import decks as deckimages  # Pillow: only drawing pays for it

    text = _read(file)
    engine = get_engine()
    if catalog_db.is_empty(engine):
        sys.exit(_fail("数据库还没有卡牌数据：请先运行 lunzang init-db --with-sample 或 lunzang import"))
    session = Session(engine)
    try:
        result = check_decklist(session=session, text=text, game=game, format_code=format_code)
    except DecklistError as error:
        session.close()
        for problem in error.problems:
            click.echo(f"{file}:{problem.line}: {problem.message.zh}" if problem.line else problem.message.zh, err=True)
        sys.exit(2)
    except LunzangError as error:
        session.close()
        sys.exit(_fail(error.message.zh))
    missing = deckimages.unresolved(result.verdict)
    if missing or not result.deck.entries:
        session.close()
        for message in missing:
            click.echo(f"错误：{message}", err=True)
        sys.exit(_fail("没有画出任何文件：卡组里有找不到的卡" if missing else "卡组是空的"))
    return session, result


def _write(out: Path, data: bytes) -> None:
    try:
        out.write_bytes(data)
    except OSError as error:
        sys.exit(_fail(f"无法写入 {out}：{error.strerror or error}"))


@deck.command("image")
@click.argument("file", type=str)
@click.option("--game", "game", default=None, help=f"游戏：{'、'.join(GAMES)}（或中文名）。")
@click.option("--format", "format_code", default=None, help="赛制代码或规则类型；省略时用游戏的默认规则。")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path, dir_okay=False), help="输出的 PNG 文件。")
@with_appcontext
def deck_image(file: str, game: str | None, format_code: str | None, out: Path) -> None:
    """把卡组画成一张 PNG（卡图网格、张数、合法性），便于分享。出错时退出码为 2，不写文件。"""
    from catalog.images import decks as deckimages  # Pillow: only drawing pays for it
    from webapp.helpers import cache_dir, scan_dir

    session, result = _checked(file, game, format_code)
    with session:
        data, rows = deckimages.deck_image_of(session=session, check=result, scan_dir=scan_dir(), cache_dir=cache_dir())
    _write(out, data)
    state = "合法" if result.verdict.legal else "不合法"
    click.echo(f"已写入 {out}：{len(rows)} 种卡，{sum(r.count for r in rows)} 张（{state}）")


@deck.command("proxies")
@click.argument("file", type=str)
@click.option("--game", "game", default=None, help=f"游戏：{'、'.join(GAMES)}（或中文名）。")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path, dir_okay=False), help="输出的 PDF 文件。")
@click.option(
    "--no-basics", "no_basics", is_flag=True, help="不打印游戏的基本卡（永恒之轮：没有规则文字的基本法力石）。"
)
@with_appcontext
def deck_proxies(file: str, game: str | None, out: Path, no_basics: bool) -> None:
    """把卡组的每一张卡排成 A4 代理卡 PDF（每页 3×3，63×88 毫米，带裁切线）。出错时退出码为 2，不写文件。"""
    from catalog.images import proxies  # Pillow: only drawing pays for it
    from webapp.helpers import cache_dir, scan_dir

    session, result = _checked(file, game, None)
    with session:
        try:
            data, copies = proxies.deck_proxies_of(
                session=session, check=result, scan_dir=scan_dir(), cache_dir=cache_dir(), skip_basics=no_basics
            )
        except proxies.ProxiesRefused as error:
            raise click.exceptions.Exit(_fail(error.message.zh)) from error
    _write(out, data)
    click.echo(f"已写入 {out}：{copies} 张代理卡，{-(-copies // proxies.PER_PAGE)} 页 A4")


@deck.command("known")
@click.argument("file")
@with_appcontext
def deck_known(file: str) -> None:
    """把文件中的卡组收入已知卡组目录（玩家可以从中挑选自己拥有的卡组）；重复导入不会重复收录。"""
    from catalog.collection.owned_decks import import_known_decks
    from webapp.helpers import utcnow

    text = _read(file)
    engine = get_engine()
    try:
        with catalog_db.transaction(engine, write=True) as session:
            records = import_known_decks(session=session, text=text, now=utcnow())
            names = [record.name for record in records]
    except DecklistError as error:
        for problem in error.problems:
            click.echo(f"{file}:{problem.line}: {problem.message.zh}" if problem.line else problem.message.zh, err=True)
        sys.exit(2)
    except LunzangError as error:
        sys.exit(_fail(error.message.zh))
    click.echo(f"已知卡组：{len(names)} 副")
    for name in names:
        click.echo(f"  {name}")
