"""Search result tiles: what a tile shows of its printing, rendered once and kept.

Rendering every tile of a results page cost more than the search it showed (macros, URLs, an
image version hashed from the card's data, translations: figures in CHANGELOG, Benchmarks).
Everything a tile shows of the card is the same on every page until the game's next import, so its face (the
``tile_face`` macro of ``cards/_tile.html``) is rendered once per printing, language and image
(an uploaded scan changes it) and kept here, with the translated labels of its buttons; a page
then only adds what is its own — the deck and collection buttons, their counts, the CSRF token
and the way back — in the lean ``tile`` macro of ``cards/_results.html``.

The key holds the game's ``catalogue_version`` (a new value on every import, read by the search
in the request's transaction, as ``catalog.decks.check.load_pool`` does for its pools), so a server
never shows a tile older than what its transaction sees, and several servers need not agree on
anything held in memory (DESIGN §9). Card data changes only through an import.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from flask import g, get_template_attribute, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup, escape

from catalog.caching import LRU
from catalog.games import GAMES
from catalog.search import SearchHit, SearchResult
from webapp.answers import PLAIN_CSRF, PREPARERS, renderer
from webapp.cards.routes import field_labels
from webapp.db import get_engine, get_session
from webapp.helpers import working_deck
from webapp.images.routes import card_scan

# Tiles kept per process: a face is ~2 kB, so at most ~10 MB; enough for the pages people browse
# between two imports, and old versions' tiles age out on their own.
TILE_CACHE_SIZE = 4096
_faces: LRU[Hashable, Face] = LRU(TILE_CACHE_SIZE)


@dataclass(frozen=True)
class Face:
    """The cached part of a tile: its HTML up to the end of the link, and its buttons' labels."""

    html: Markup
    deck_remove: str  # aria-labels naming the card: the same on every page
    deck_add: str
    collection_remove: str
    collection_add: str


@dataclass(frozen=True)
class TilePage:
    """What every tile of one page shares: the forms' targets, the CSRF token, the way back."""

    csrf: str
    back: str  # this page's path and query, where the buttons return
    deck_action: str
    deck_check: str
    collection_action: str
    deck_game: str
    signed_in: bool


@dataclass(frozen=True)
class Tile:
    hit: SearchHit
    face: Face
    page: TilePage
    deck_copies: int
    deck_text: str  # 卡组中 N 张
    owned: int
    owned_text: str  # 我有 N 张

    @property
    def deck_buttons(self) -> bool:
        """Only for cards of the working deck's game, or any game while no deck is started."""
        return self.page.deck_game in ("", self.hit.game)


def cache_clear() -> None:
    _faces.clear()


def _render_face(hit: SearchHit, several_games: bool, names: Mapping[str, str]) -> Face:
    macro = get_template_attribute("cards/_tile.html", "tile_face")
    name, number = hit.card.name, hit.printing.number
    return Face(
        html=Markup(macro(hit, GAMES[hit.game], names, several_games)),
        deck_remove=_("从卡组移出一张「%(name)s」", name=name),
        deck_add=_("加入一张「%(name)s」到卡组", name=name),
        collection_remove=_("从收藏移出一张「%(name)s」（%(number)s）", name=name, number=number),
        collection_add=_("收藏一张「%(name)s」（%(number)s）", name=name, number=number),
    )


def _per_count(translate: Callable[[int], str]) -> Callable[[int], str]:
    """``translate`` called once per count on this page (most counts are 0)."""
    seen: dict[int, str] = {}

    def text(n: int) -> str:
        if n not in seen:
            seen[n] = translate(n)
        return seen[n]

    return text


def tile_views(
    result: SearchResult,
    *,
    several_games: bool,
    deck_game: str,
    deck_copies: Mapping[str, int],
    owned: Mapping[int, int] | None,
) -> list[Tile]:
    """The page's tiles: each hit's cached face (rendered now when missing) and its buttons."""
    if not result.hits:
        return []
    versions = result.catalogue_versions  # read by the search, in this request's transaction
    database = get_engine().url.render_as_string(hide_password=False)
    locale = str(get_locale())
    common = (database, request.script_root, locale, several_games)
    page = TilePage(
        csrf=generate_csrf(),
        back=request.full_path.rstrip("?"),
        deck_action=url_for("decks.edit_working"),
        deck_check=url_for("decks.check"),
        collection_action=url_for("collection.change_item"),
        deck_game=deck_game,
        signed_in=owned is not None,
    )
    deck_text = _per_count(lambda n: _("卡组中 %(n)d 张", n=n))
    owned_text = _per_count(lambda n: _("我有 %(n)d 张", n=n))
    labels: dict[str, dict[str, str]] = {}
    tiles = []
    for hit in result.hits:
        key = (*common, hit.game, versions.get(hit.game), hit.printing.id, card_scan(hit.printing))
        face = _faces.get(key)
        if face is None:
            if hit.game not in labels:
                labels[hit.game] = field_labels(hit.game)
            face = _render_face(hit, several_games, labels[hit.game])
            _faces.put(key, face)
        copies = deck_copies.get(hit.card.name, 0)
        have = owned.get(hit.printing.id or 0, 0) if owned is not None else 0
        tiles.append(Tile(hit, face, page, copies, deck_text(copies), have, owned_text(have)))
    g.tile_owned = owned  # what the tiles' parts count when drawn in this render
    return tiles


# ---- the visitor's part of a tile (webapp/answers.py): its deck and collection buttons ------


@dataclass(frozen=True)
class _Visitor:
    """What every tile's buttons on this request share."""

    csrf: str
    back: str
    deck_action: str
    deck_check: str
    collection_action: str
    deck_game: str
    deck_copies: dict[str, int]
    deck_text: Callable[[int], str]
    owned_text: Callable[[int], str]


def _visitor() -> _Visitor:
    found: _Visitor | None = g.get("tile_visitor")
    if found is None:
        from catalog.decks.lists import copies_by_name
        from catalog.text import fold

        deck_game, deck_list = working_deck()
        copies = copies_by_name(deck_list)
        found = g.tile_visitor = _Visitor(
            csrf=str(escape(generate_csrf())),
            back=str(escape(request.full_path.rstrip("?"))),
            deck_action=str(escape(url_for("decks.edit_working"))),
            deck_check=str(escape(url_for("decks.check"))),
            collection_action=str(escape(url_for("collection.change_item"))),
            deck_game=deck_game,
            deck_copies={name: n for name, n in copies.items()} if copies else {},
            deck_text=_per_count(lambda n: str(escape(_("卡组中 %(n)d 张", n=n)))),
            owned_text=_per_count(lambda n: str(escape(_("我有 %(n)d 张", n=n)))),
        )
        g.tile_fold = fold
    return found


@cache
def _owned_statement() -> Any:
    """``catalog.collection.reads.owned_counts``' rows as one statement built once: on every
    signed-in results page, building its clauses cost more than running it."""
    from sqlalchemy import bindparam, func, select

    from catalog.models.columns import ITEM

    return (
        select(ITEM.printing_id, func.sum(ITEM.quantity))
        .where(
            ITEM.user_id == bindparam("user_id"),
            ITEM.quantity > 0,
            ITEM.printing_id.in_(bindparam("ids", expanding=True)),
        )
        .group_by(ITEM.printing_id)
    )


def _owned(printing_ids: list[int]) -> dict[int, int] | None:
    """Copies the signed-in user owns per printing (``None`` for a visitor), one statement."""
    if not current_user.is_authenticated:
        return None
    if not printing_ids:
        return {}
    rows = (
        get_session().connection().execute(_owned_statement(), {"user_id": int(current_user.id), "ids": printing_ids})
    )
    return {printing_id: int(total) for printing_id, total in rows}


def _prepare_tiles(batch: list[list[Any]]) -> Callable[..., str]:
    """Before a kept page's tiles are drawn: every tile's owned count in one statement, and
    the drawer of this request (what each tile needs read once, not from ``g`` per tile)."""
    g.pop("tile_visitor", None)
    owned = g.tile_owned = _owned(sorted({int(args[1]) for args in batch}))
    return _tile_drawer(_visitor(), owned, PLAIN_CSRF if g.get("answer_plain") else None)


PREPARERS["tile"] = _prepare_tiles


@renderer("tile")
def tile_actions(*args: Any) -> str:
    """A tile's buttons for this visitor: the working deck's copies, the user's owned copies.
    The texts come escaped (as the kept page was rendered); a plain visitor's CSRF token stays
    a marker (webapp/answers.py)."""
    csrf = PLAIN_CSRF if g.get("answer_plain") else None
    return _tile_drawer(g.get("tile_visitor") or _visitor(), g.get("tile_owned"), csrf)(*args)


def _tile_drawer(v: _Visitor, owned: Mapping[int, int] | None, csrf: str | None) -> Callable[..., str]:
    """What draws one tile's buttons (its part's arguments) for this request."""
    token = v.csrf if csrf is None else csrf
    fold = g.tile_fold
    deck_copies, deck_text, owned_text, deck_game = v.deck_copies, v.deck_text, v.owned_text, v.deck_game

    def draw(
        game: str,
        printing_id: int,
        name: str,
        deck_remove: str,
        deck_add: str,
        collection_remove: str,
        collection_add: str,
    ) -> str:
        out = ['  <div class="tile-actions">\n  ']
        if deck_game in ("", game):
            copies = deck_copies.get(fold(Markup(name).unescape()), 0) if deck_copies else 0
            out.append(
                f'<form class="deck-buttons" method="post" action="{v.deck_action}">\n'
                f'  <input type="hidden" name="csrf_token" value="{token}">\n'
                f'  <input type="hidden" name="game" value="{game}">\n'
                f'  <input type="hidden" name="name" value="{name}">\n'
                f'  <input type="hidden" name="next" value="{v.back}#hit-{printing_id}">\n'
                f'  <button type="submit" name="action" value="remove"{"" if copies else " disabled"}\n'
                f'          aria-label="{deck_remove}">−</button>\n'
                f'  <a class="deck-copies" href="{v.deck_check}">{deck_text(copies)}</a>\n'
                f'  <button type="submit" name="action" value="add"\n'
                f'          aria-label="{deck_add}">+</button>\n'
                "</form>"
            )
        if owned is not None:
            have = owned.get(printing_id, 0)
            out.append(
                f'\n<form class="collection-buttons" method="post" action="{v.collection_action}">\n'
                f'  <input type="hidden" name="csrf_token" value="{token}">\n'
                f'  <input type="hidden" name="printing_id" value="{printing_id}">\n'
                f'  <input type="hidden" name="next" value="{v.back}">\n'
                f'  <button type="submit" name="delta" value="-1"{"" if have else " disabled"}\n'
                f'          aria-label="−1 {collection_remove}">−1</button>\n'
                f'  <span class="owned-count" data-printing="{printing_id}" data-count="{have}" aria-live="polite">'
                f"{owned_text(have)}</span>\n"
                f'  <button type="submit" name="delta" value="1"\n'
                f'          aria-label="+1 {collection_add}">+1</button>\n'
                "</form>"
            )
        out.append("\n  </div>\n")
        return "".join(out)

    return draw


def tiles_for(result: SearchResult, context: Mapping[str, Any]) -> Callable[[], list[Tile]]:
    """For the results macros: the tiles, built only when the grid view shows them."""
    return lambda: tile_views(
        result,
        several_games=context["several_games"],
        deck_game=context["deck_game"],
        deck_copies=context["deck_copies"],
        owned=context["owned"],
    )
