"""``lunzang search``: cards from the command line (``render`` and ``images``: webapp.images.cli)."""

from __future__ import annotations

import json
import sys

import click
from sqlmodel import Session

from catalog.games import GAMES
from catalog.search import QueryError, search
from webapp.cli_index import with_settings
from webapp.cli_numbers import StrictInt
from webapp.db import get_engine


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
            from webapp.shapes.catalogue import CardPage  # pydantic's shapes: only for --json

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
