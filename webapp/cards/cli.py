"""``lunzang search``: the query language from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from flask.cli import with_appcontext
from sqlmodel import Session

from catalog.search import QueryError, result_json, search
from webapp.db import get_engine


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--game", "-g", default=None, help="只搜索这个游戏（samsara、longzhiyi、zhutian、keyforge）。")
@click.option("--page", default=1, show_default=True, type=click.IntRange(min=1), help="页码。")
@click.option("--per-page", default=60, show_default=True, type=click.IntRange(1, 175), help="每页张数。")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON（DESIGN §6）。")
@with_appcontext
def search_command(query: tuple[str, ...], game: str | None, page: int, per_page: int, as_json: bool) -> None:
    """搜索卡牌，例如：lunzang search 't:战魂 a:火 cost<=3'。出错时退出码为 2。"""
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
            click.echo(json.dumps(result_json(result), ensure_ascii=False, indent=1))
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
@click.option("--game", "-g", "game_slug", required=True, help="游戏（samsara、longzhiyi、zhutian、keyforge）。")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path, dir_okay=False), help="输出的 PNG 文件。")
@click.option("--size", default="normal", show_default=True, help="尺寸：small、normal、large。")
@with_appcontext
def render_command(card: str, game_slug: str, out: Path, size: str) -> None:
    """把一张卡的卡面画成 PNG。CARD 是卡名（简繁、全半角均可）或收藏编号；出错时退出码为 2。"""
    from catalog import browse, images
    from catalog.games import get_game

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
