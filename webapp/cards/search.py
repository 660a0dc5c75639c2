"""Search pages: results (/cards), the syntax help, the keyword glossary. Thin views over
catalog.search and catalog.browse."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from flask import abort, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from catalog import browse
from catalog.decks.lists import copies_by_name
from catalog.games import DEFAULT_GAME, GAMES, GameModule
from catalog.search import QueryError, SearchResult, search
from catalog.search.compile import ORDERS
from catalog.search.keys import FLAGS, KEYS, lookup
from catalog.text import fold
from webapp.answers import alike, cached, dont_keep, game_rows
from webapp.cards import bp
from webapp.cards.routes import _columns, _game_or_404, field_labels
from webapp.cards.tiles import tiles_for
from webapp.db import get_session
from webapp.helpers import mark_error, owned_for, working_deck

VIEWS = ("grid", "table")
DIRECTIONS = ("asc", "desc")
MAX_PAGE = 100_000

# Queries shown on the help page, per key of the registry; each runs when clicked. A key
# missing here still gets its row (from the registry), and a test asks for an example.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "name": ("n:龙王", "n=孙悟空"),
    "o": ("o:抽一张", "o:破坏"),
    "t": ("t:战魂", "t:魔法", "t:soul"),
    "a": ("a:火", "a:火水", "a=光", "a<=火水"),
    "f": ("f:逻格斯", "f:logos"),
    "cost": ("cost<=3", "cost=0"),
    "atk": ("atk>=5", "power>=4"),
    "def": ("def>=4", "armor>=1"),
    "lv": ("lv>=2",),
    "r": ("r:SR", "r>=UR"),
    "set": ("set:M4",),
    "series": ("series:M",),
    "number": ("number:M4-001",),
    "trait": ("tr:英灵", "tr:圣骸", "tr:*圣骸*", "tr=西游"),
    "life": ("life>=6",),
    "amber": ("amber>=1", "琥珀=2"),
    "kw": ("kw:军团", "kw:军团(5)", "kw:『童话』限定"),
    "game": (f"g:{DEFAULT_GAME}", "g:龍之弈"),
    "is": ("is:legion", "is:reprint"),
    "own": ("own>0",),
    "want": ("want>0",),
    "trade": ("trade>0",),
}
# Keys that need a signed-in user: their examples run for a signed-in visitor; others see
# them unlinked, with a note (and, on a results page, a sign-in link in the error).
ACCOUNT_KEYS = ("own", "want", "trade")
ACCOUNT_TERM_KEY = re.compile(r"[^:=<>!：＝＜＞！]+")


@dataclass(frozen=True)
class SearchState:
    """What the URL of a results page says; every link on the page is built from it."""

    q: str = ""
    view: str = "grid"
    order: str = ""
    direction: str = ""
    game: str = ""
    page: int = 1

    def url(self, **changes: Any) -> str:
        state = replace(self, **changes)
        params: dict[str, Any] = {
            "q": state.q,
            "view": state.view if state.view != "grid" else "",
            "order": state.order,
            "dir": state.direction,
            "game": state.game,
            "page": state.page if state.page != 1 else "",
        }
        return url_for("cards.results", **{k: v for k, v in params.items() if v})


def _state_from_args() -> SearchState:
    args = request.args
    raw_page = args.get("page", "")
    page = int(raw_page) if raw_page.isdigit() and 1 <= int(raw_page) <= MAX_PAGE else 1
    return SearchState(
        q=args.get("q", ""),
        view=args.get("view", "") if args.get("view") in VIEWS else "grid",
        order=args.get("order", "") if args.get("order") in ORDERS else "",
        direction=args.get("dir", "") if args.get("dir") in DIRECTIONS else "",
        game=args.get("game", ""),
        page=page,
    )


def _pages(result: SearchResult) -> list[int | None]:
    """Page numbers to link: the first, the last and two either side of the current; None is a gap."""
    shown = sorted({1, result.pages, *range(result.page - 2, result.page + 3)} & set(range(1, result.pages + 1)))
    out: list[int | None] = []
    for number in shown:
        if out and number - (out[-1] or 0) > 1:
            out.append(None)
        out.append(number)
    return out


def _labels_for(result: SearchResult) -> dict[str, str]:
    """Column headings: the game's own words when every hit is of one game."""
    games = {hit.game for hit in result.hits}
    return field_labels(games.pop() if len(games) == 1 else "")


def results_context(result: SearchResult) -> dict[str, Any]:
    """What the results macros need besides the hits."""
    if "catalogue_versions" not in g and len(result.catalogue_versions) > 0:
        g.catalogue_versions = result.catalogue_versions  # every game's: the search read them
    cards = [hit.card for hit in result.hits]
    deck_game, deck_text = working_deck()
    copies = copies_by_name(deck_text)
    context: dict[str, Any] = {
        "deck_game": deck_game,
        "deck_copies": {card.name: copies.get(fold(card.name), 0) for card in cards},
        "columns": _columns(cards),
        "labels": _labels_for(result),
        "games": GAMES,
        "several_games": len({hit.game for hit in result.hits}) > 1,
        "page_numbers": _pages(result),
        # the table view's own column; the grid's counts are its tiles' parts (tiles.py)
        "owned": None if _grid() else owned_for(hit.printing.id for hit in result.hits),
    }
    context["tiles"] = tiles_for(result, context)
    return context


def _grid() -> bool:
    """The results grid: every visitor's part of it (buttons, counts) is a part (answers.py)."""
    return request.args.get("view") != "table"


@bp.route("/cards")
@cached(everyone=_grid)
def results() -> Any:
    state = _state_from_args()
    if not state.q.strip():
        return render_template("cards/search.html", state=state, result=None, error=None, examples=_examples())
    try:
        result = search(
            session=get_session(),
            text=state.q,
            game=state.game or None,
            page=state.page,
            order=state.order or None,
            direction=state.direction or None,
            user_id=current_user.id if current_user.is_authenticated else None,
            games=game_rows(),
        )
    except QueryError as error:
        page = render_template(
            "cards/search.html",
            state=state,
            result=None,
            error=error,
            marked=mark_error(state.q, error, state.game),
            examples=_examples(),
            needs_sign_in=_needs_sign_in(error),
        )
        return page, 400
    if result.personal:
        dont_keep()  # own/want/trade: these hits are this user's alone
    if result.total == 1 and state.page == 1 and result.hits:
        # Exactly one card: go to it, as Scryfall does (a 302, so the query stays in the history).
        hit = result.hits[0]
        return redirect(url_for("cards.card_detail", game_slug=hit.game, name=hit.card.name))
    sort_locked = result.own_order

    def sort_url(order: str, current: SearchResult) -> str:
        """Sort by ``order``; the current order again flips the direction."""
        direction = "asc"
        if current.order == order and current.direction == "asc":
            direction = "desc"
        return state.url(order=order, direction=direction, page=1)

    return render_template(
        "cards/search.html",
        state=state,
        result=result,
        error=None,
        link=state.url,
        sort_url=sort_url,
        sort_locked=sort_locked,
        orders=list(ORDERS),
        **results_context(result),
    )


def _needs_sign_in(error: QueryError) -> bool:
    """Whether the query failed only for want of a signed-in user (own/want/trade)."""
    if current_user.is_authenticated:
        return False
    key = ACCOUNT_TERM_KEY.match(error.term.lstrip("-"))
    found = lookup(key.group(0)) if key else None
    return found is not None and found.name in ACCOUNT_KEYS


def _examples() -> list[str]:
    """A few queries for the empty search page."""
    return ["sunwukong", "swk", "龍王", "t:战魂 a:火 cost<=3", "kw:军团", "r>=UR set:M4", "a:火水 or a:光暗"]


@bp.route("/help/search")
@cached
def search_help() -> str:
    keys = [(key, EXAMPLES.get(key.name, ())) for key in KEYS]
    return render_template(
        "cards/search_help.html",
        keys=keys,
        account_keys=ACCOUNT_KEYS,
        flags=FLAGS,
        orders=ORDERS,
    )


# ---- keyword glossary ---------------------------------------------------------------------


def _glossary_or_404(game_slug: str) -> tuple[Any, GameModule]:
    game, module = _game_or_404(game_slug)
    if not module.keywords:
        abort(404, _("%(game)s还没有关键字词汇表", game=module.name))
    return game, module


@bp.route("/keywords")
@cached(everyone=alike)
def glossaries() -> str:
    summaries = [s for s in browse.game_summaries(get_session()) if s.module.keywords]
    return render_template("cards/glossaries.html", summaries=summaries)


@bp.route("/keywords/<game_slug>")
@cached(everyone=alike)
def glossary(game_slug: str) -> str:
    game, module = _glossary_or_404(game_slug)
    uses = browse.keyword_uses(get_session(), game)
    return render_template("cards/glossary.html", game=game, module=module, uses=uses)


@bp.route("/keywords/<game_slug>/<kind>")
@cached(everyone=_grid)
def keyword(game_slug: str, kind: str) -> Any:
    game, module = _glossary_or_404(game_slug)
    entry = module.keyword_info(kind)
    if entry is None:
        abort(404, _("%(game)s没有关键字 %(kind)s", game=module.name, kind=kind))
    state = _state_from_args()
    query = f"kw:{entry.zh}"
    result = search(session=get_session(), text=query, game=game.slug, page=state.page, games=game_rows())
    uses = browse.keyword_uses(get_session(), game).get(kind)

    def link(**changes: Any) -> str:
        """This page with another view or page (pagination stays on the glossary entry)."""
        changed = replace(state, **changes)
        params: dict[str, Any] = {
            "view": changed.view if changed.view != "grid" else "",
            "page": changed.page if changed.page != 1 else "",
        }
        return url_for("cards.keyword", game_slug=game.slug, kind=kind, **{k: v for k, v in params.items() if v})

    return render_template(
        "cards/keyword.html",
        game=game,
        module=module,
        entry=entry,
        uses=uses,
        result=result,
        state=state,
        link=link,
        search_url=SearchState(q=f"{query} g:{game.slug}").url(),
        **results_context(result),
    )
