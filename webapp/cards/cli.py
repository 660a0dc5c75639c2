"""``lunzang search``, ``lunzang render`` and ``lunzang images``: cards from the command line."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import click
from flask.cli import with_appcontext
from sqlmodel import Session

from catalog.games import DEFAULT_GAME, GAMES
from catalog.search import QueryError, search
from webapp.cli_index import with_settings
from webapp.cli_numbers import StrictInt
from webapp.db import get_engine
from webapp.shapes.catalogue import CardPage


class QueryCommand(click.Command):
    """A command whose words are a search query, which may start with ``-`` (``-t:战魂``).

    Before click parses, the command's own options (``--json``, ``--game X``, ``-g X``,
    ``--page=2`` …) are taken from anywhere in the line, and every other word — a negated
    term such as ``-t:战魂`` included — is the query; a ``--`` separator is dropped, so both
    ``lunzang search '-t:战魂' --json`` and ``lunzang search -- -t:战魂 --json`` mean what the
    user typed (DESIGN §6: "``-`` negates a term").
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        flags: set[str] = set()
        valued: set[str] = set()
        for param in self.params:
            if isinstance(param, click.Option):
                names = set(param.opts) | set(param.secondary_opts)
                (flags if param.is_flag or param.count else valued).update(names)
        options: list[str] = []
        words: list[str] = []
        items = iter(args)
        for arg in items:
            if arg == "--":
                continue
            name = arg.split("=", 1)[0] if arg.startswith("--") else arg
            if arg in flags or arg == "--help" or (name in valued and "=" in arg):
                options.append(arg)
            elif arg in valued:
                options.append(arg)
                following = next(items, None)
                if following is not None:
                    options.append(following)
            else:
                words.append(arg)
        return super().parse_args(ctx, [*options, "--", *words] if words else options)


@click.command("search", cls=QueryCommand)
@click.argument("query", nargs=-1, required=True)
@click.option("--game", "-g", default=None, help=f"只搜索这个游戏（{'、'.join(GAMES)}）。")
@click.option("--page", default=1, show_default=True, type=StrictInt(1, 100_000), help="页码。")
@click.option("--per-page", default=60, show_default=True, type=StrictInt(1, 175), help="每页张数。")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON（DESIGN §6）。")
@with_settings
def search_command(query: tuple[str, ...], game: str | None, page: int, per_page: int, as_json: bool) -> None:
    """搜索卡牌，例如：lunzang search 't:战魂 a:火 cost<=3'，也可以以 - 开头：lunzang search -t:战魂。

    出错时退出码为 2。
    """
    text = " ".join(query)
    with Session(get_engine()) as session:
        try:
            result = search(session=session, text=text, game=game, page=page, per_page=per_page)
        except QueryError as error:
            if as_json:
                body = {
                    "code": error.code,
                    "message": error.message.zh,
                    "message_en": error.message.en,
                    "position": error.position,
                    "length": error.length,
                    "term": error.term,
                }
                click.echo(json.dumps({"error": body}, ensure_ascii=False))
            else:
                click.echo(f"错误：{error.message.zh}", err=True)
                before = _width(text[: error.position])
                marked = max(1, _width(text[error.position : error.position + error.length]))
                click.echo(f"  {text}\n  {' ' * before}{'^' * marked}", err=True)
            sys.exit(2)
        if as_json:
            click.echo(json.dumps(CardPage.of(result).body(), ensure_ascii=False, indent=1))
            return
        click.echo(f"共 {result.total} 张（第 {result.page}/{result.pages} 页）")
        for hit in result.hits:
            card = hit.card
            stats = "/".join(str(v) for v in (card.attack, card.defense) if v is not None)
            click.echo(
                f"{hit.card_set.code:>5} {hit.printing.number:<10} {hit.printing.rarity:<8} {card.name}"
                f"  {card.type}{(' ' + card.cost_text) if card.cost_text else ''}{(' ' + stats) if stats else ''}"
            )


def _width(text: str) -> int:
    """Terminal columns of ``text``: CJK characters take two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


@click.command("render")
@click.argument("card")
@click.option("--game", "-g", "game_slug", required=True, help=f"游戏（{'、'.join(GAMES)}）。")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path, dir_okay=False), help="输出的 PNG 文件。")
@click.option("--size", default="normal", show_default=True, help="尺寸：small、normal、large。")
@with_appcontext
def render_command(card: str, game_slug: str, out: Path, size: str) -> None:
    """把一张卡的卡面画成 PNG。CARD 是卡名（简繁、全半角均可）或收藏编号；出错时退出码为 2。"""
    from catalog import browse
    from catalog.games import get_game
    from catalog.images import faces as images

    if size not in images.SIZES:
        click.echo(f"错误：未知的尺寸「{size}」，可用：{'、'.join(images.SIZES)}", err=True)
        sys.exit(2)
    module = get_game(game_slug)
    with Session(get_engine()) as session:
        game = browse.get_game_row(session, module.slug) if module else None
        if module is None or game is None:
            click.echo(f"错误：没有这个游戏「{game_slug}」", err=True)
            sys.exit(2)
        found = browse.find_printings(session, game, card)
        if not found:
            click.echo(f"错误：{module.name}没有名为或编号为「{card}」的卡", err=True)
            sys.exit(2)
        printing, found_card, card_set = found[0]
        image = images.render_card(found_card, printing, card_set, module, size)
    try:
        image.save(out, "PNG")
    except OSError as error:
        click.echo(f"错误：无法写入 {out}：{error.strerror or error}", err=True)
        sys.exit(2)
    click.echo(f"已写入 {out}：{found_card.name}（{card_set.code} {printing.number}，{image.width}×{image.height}）")


@click.group("images")
def images_group() -> None:
    """卡图：上传扫描图，替换依据数据绘制的卡面。"""


def _scan_store() -> Path:
    from webapp.helpers import scan_dir

    return scan_dir()


def _now() -> datetime:
    return datetime.now(UTC)


@images_group.command("add")
@click.argument("printing")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--game", "-g", "game", default=None, help=f"游戏（{'、'.join(GAMES)}）。")
@click.option("--set", "set_code", default=None, help="系列代码（编号在几个系列里重复时用）。")
@with_appcontext
def images_add(printing: str, file: Path, game: str | None, set_code: str | None) -> None:
    """把 FILE（JPEG、PNG 或 WebP）设为收藏编号 PRINTING（如 M4-001）的卡图。出错时退出码为 2，不保存任何东西。"""
    from catalog import db as catalog_db
    from catalog.errors import LunzangError
    from catalog.images import scans
    from catalog.lookup import find_printing

    try:
        with catalog_db.transaction(get_engine()) as session:
            found = find_printing(session=session, number=printing, game=game, set_code=set_code)
            label = f"{found.set.code} {found.number}"
            result = scans.add_scan(
                session=session, printing_id=found.id, data=scans.read_file(file), store_dir=_scan_store(), now=_now()
            )
    except LunzangError as error:
        click.echo(f"错误：{error.message.zh}", err=True)
        sys.exit(2)
    replaced = "（替换了原有的扫描图）" if result.replaced and result.replaced != result.sha256 else ""
    click.echo(f"已保存 {label} 的卡图 {result.sha256[:12]}（原图 {result.width}×{result.height}）{replaced}")


@images_group.command("add-folder")
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "--set", "set_code", required=True, help="系列代码：文件名是这个系列的收藏编号（M4-001.jpg 或 001.png）。"
)
@click.option("--game", "-g", "game", default=DEFAULT_GAME, show_default=True, help="游戏。")
@with_appcontext
def images_add_folder(folder: Path, set_code: str, game: str) -> None:
    """把文件夹里的每张图设为同名收藏编号的卡图。全部成功才保存；有一个文件不行就全部不保存（退出码 2）。"""
    from catalog import db as catalog_db
    from catalog.errors import LunzangError
    from catalog.images import scans

    try:
        with catalog_db.transaction(get_engine()) as session:
            result = scans.add_scans_from_folder(
                session=session, game=game, set_code=set_code, folder=folder, store_dir=_scan_store(), now=_now()
            )
    except scans.ScanFolderError as error:
        for problem in error.problems:
            click.echo(f"错误：{problem}", err=True)
        click.echo(f"{error.message.zh}。", err=True)
        sys.exit(2)
    except LunzangError as error:
        click.echo(f"错误：{error.message.zh}", err=True)
        sys.exit(2)
    click.echo(f"已保存 {len(result.stored)} 张卡图（{set_code}）")


@images_group.command("warm")
@click.option("--game", "-g", "game", default=None, help=f"只画这个游戏（{'、'.join(GAMES)}）；默认全部。")
@with_appcontext
def images_warm(game: str | None) -> None:
    """预先绘制每张印刷的卡面（网格与卡牌页的尺寸），存入卡图缓存；已画过的跳过。"""
    from catalog import db as catalog_db
    from catalog.images.warm import WarmReport, warm_faces
    from webapp.helpers import cache_dir

    if game is not None and game not in GAMES:
        click.echo(f"错误：没有这个游戏「{game}」，可用：{'、'.join(GAMES)}", err=True)
        sys.exit(2)

    def progress(report: WarmReport) -> None:
        click.echo(f"已绘制 {report.drawn} 张……")

    with catalog_db.transaction(get_engine()) as session:
        report = warm_faces(session=session, cache_dir=cache_dir(), game=game, progress=progress)
    click.echo(f"已绘制 {report.drawn} 张卡面，{report.kept} 张已在缓存中，{report.scans} 张印刷使用上传的扫描图")


@images_group.command("remove")
@click.argument("printing")
@click.option("--game", "-g", "game", default=None, help="游戏。")
@click.option("--set", "set_code", default=None, help="系列代码。")
@with_appcontext
def images_remove(printing: str, game: str | None, set_code: str | None) -> None:
    """删除 PRINTING 的扫描图，恢复依据数据绘制的卡面。"""
    from catalog import db as catalog_db
    from catalog.errors import LunzangError
    from catalog.images import scans
    from catalog.lookup import find_printing

    try:
        with catalog_db.transaction(get_engine()) as session:
            found = find_printing(session=session, number=printing, game=game, set_code=set_code)
            label = f"{found.set.code} {found.number}"
            removed = scans.remove_scan(session=session, printing_id=found.id)
    except LunzangError as error:
        click.echo(f"错误：{error.message.zh}", err=True)
        sys.exit(2)
    if removed is None:
        click.echo(f"{label} 没有扫描图")
    else:
        click.echo(f"已删除 {label} 的扫描图，恢复绘制的卡面")
