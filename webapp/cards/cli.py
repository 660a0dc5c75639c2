"""``lunzang search``: the query language from the command line."""

from __future__ import annotations

import json
import sys

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
