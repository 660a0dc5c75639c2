"""Thin views: parse the URL, call catalog.browse, render."""

from __future__ import annotations

from random import SystemRandom
from types import SimpleNamespace
from typing import Any

from flask import abort, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user
from sqlalchemy import select
from sqlmodel import col

from catalog import browse, curation
from catalog.curation.catalogue import formats_of
from catalog.curation.sets import provenance
from catalog.decks.legality import card_legality
from catalog.decks.lists import copies_by_name
from catalog.games import GAMES, get_game
from catalog.games.base import FIELD_LABELS
from catalog.models import Card, CardSet, Game, Printing
from catalog.rules import SECTIONS
from catalog.search import QueryError, random_hit
from catalog.text import fold
from webapp.answers import alike, cached
from webapp.cards import bp
from webapp.db import get_session
from webapp.helpers import condition_choices, owned_for, working_deck
from webapp.wording import game_name

# Numeric card fields shown as columns/rows when a card has them (amber lives in card.extra).
STAT_FIELDS = ("level", "attack", "defense", "life", "amber")


def field_labels(slug: str) -> dict[str, str]:
    """Column headings for card fields, in the game's own words (its package says which), translated."""
    game = GAMES.get(slug)
    labels = game.labels() if game is not None else dict(FIELD_LABELS)
    return {field: _(label) for field, label in labels.items()}


@bp.app_template_global()
def stat(card: Card, field: str) -> Any:
    """A numeric field of a card: a column, else a game extra (KeyForge amber)."""
    value = getattr(card, field, None)
    return card.extra.get(field) if value is None else value


def _columns(cards: list[Card]) -> dict[str, Any]:
    """Which optional columns a table of these cards needs: those some card has a value for."""
    return {
        "attributes": any(c.attributes for c in cards),
        "faction": any(c.faction for c in cards),
        "cost": any(c.cost_text for c in cards),
        "stats": [f for f in STAT_FIELDS if any(stat(c, f) is not None for c in cards)],
    }


def _game_or_404(slug: str) -> Any:
    module = GAMES.get(slug)
    game = browse.get_game_row(get_session(), slug) if module else None
    if game is None or module is None:
        abort(404, _("没有这个游戏：%(slug)s", slug=slug))
    return game, module


@bp.route("/")
@cached(everyone=alike)
def home() -> str:
    summaries = browse.game_summaries(get_session())
    return render_template("cards/home.html", summaries=summaries)


@bp.route("/sets")
@cached(everyone=alike)
def all_sets() -> str:
    # every game's sets in two statements (not four per game): the template reads .game/.module
    games = [
        (SimpleNamespace(game=game, module=GAMES[game.slug]), groups)
        for game, groups in browse.every_set_by_series(get_session())
    ]
    return render_template("cards/sets.html", games=games)


@bp.route("/sets/<game_slug>")
@cached(everyone=alike)
def game_sets(game_slug: str) -> str:
    game, module = _game_or_404(game_slug)
    groups = browse.sets_by_series(get_session(), game)
    formats = formats_of(get_session(), game.id)
    return render_template("cards/game_sets.html", game=game, module=module, groups=groups, formats=formats)


@bp.route("/sets/<game_slug>/<code>")
@cached(everyone=alike)
def set_detail(game_slug: str, code: str) -> str:
    game, module = _game_or_404(game_slug)
    page = browse.set_page(get_session(), game, code)
    if page is None:
        abort(404, _("%(game)s没有系列 %(code)s", game=game_name(module), code=code))
    columns = _columns([card for _printing, card in page.rows])
    view = "grid" if request.args.get("view") == "grid" else "table"  # ?view=grid: the card faces
    return render_template(
        "cards/set.html",
        game=game,
        module=module,
        page=page,
        columns=columns,
        labels=field_labels(game.slug),
        view=view,
        provenance=provenance(get_session(), page.card_set),
    )


def _card_named(slug: str, name: str) -> tuple[Game, browse.CardPage] | None:
    """The game row, the card named exactly ``name`` and its printings in one statement (the
    card page's: a statement for each was three); ``None`` when no card has that very name
    (then the page looks again the long way: a folded name, an unknown game)."""
    rows = (
        get_session()
        .execute(
            select(Game, Card, Printing, CardSet)
            .join(Card, col(Card.game_id) == col(Game.id))
            .outerjoin(Printing, col(Printing.card_id) == col(Card.id))
            .outerjoin(CardSet, col(CardSet.id) == col(Printing.set_id))
            .where(col(Game.slug) == slug, col(Card.name) == name)
            .order_by(col(CardSet.position), col(Printing.number))
        )
        .all()
    )
    if not rows:
        return None
    printings = [(printing, card_set) for _game, _card, printing, card_set in rows if printing is not None]
    return rows[0][0], browse.CardPage(rows[0][1], printings)


@bp.route("/cards/<game_slug>/<path:name>")
@cached
def card_detail(game_slug: str, name: str) -> Any:
    session = get_session()
    found = _card_named(game_slug, name) if game_slug in GAMES else None
    page: browse.CardPage | None
    if found is not None:
        game, page = found
        module = GAMES[game_slug]
    else:
        game, module = _game_or_404(game_slug)
        page = browse.card_page(session, game, name)
    if page is None:
        abort(404, _("%(game)s没有名为「%(name)s」的卡", game=game_name(module), name=name))
    if page.card.name != name:
        kept: dict[str, Any] = {k: v for k, v in request.args.items() if k in ("set", "number")}
        return redirect(url_for("cards.card_detail", game_slug=game_slug, name=page.card.name, **kept))
    # ?set=G2&number=G2-001 shows that printing's face (the prints list links there)
    chosen = next(
        (
            pair
            for pair in page.printings
            if pair[1].code == request.args.get("set") and pair[0].number == request.args.get("number")
        ),
        None,
    )
    keywords = [
        (k, info, info.explain(value=k.get("value"), subject=k.get("subject")) if info else None)
        for k in page.card.keywords
        for info in [module.keyword_info(k["kind"])]
    ]
    deck_game, deck_text = working_deck()
    return render_template(
        "cards/card.html",
        game=game,
        module=module,
        page=page,
        chosen=chosen,
        first_print=browse.first_printing(page.printings),
        keywords=keywords,
        legality=card_legality(
            session=session, game=game, card=page.card, set_codes=[card_set.code for _p, card_set in page.printings]
        ),
        labels=field_labels(game.slug),
        owned=owned_for(printing.id for printing, _set in page.printings),
        conditions=condition_choices(),
        deck_game=deck_game,
        deck_module=GAMES.get(deck_game),
        deck_copies=copies_by_name(deck_text).get(fold(page.card.name), 0),
        sections=SECTIONS,
        last_change=curation.last_change(session, card=page.card),
    )


@bp.route("/random")
def random() -> Any:
    """A random card: of ``game=`` when given, among the matches of ``q=`` when given."""
    session = get_session()
    slug = request.args.get("game", "").strip()
    text = request.args.get("q", "").strip()[:500]
    module = get_game(slug) if slug else None
    if slug and module is None:
        abort(404, _("没有这个游戏：%(slug)s", slug=slug))
    slug = module.slug if module is not None else ""
    if text:
        try:
            hit = random_hit(
                session=session,
                text=text,
                game=slug or None,
                rng=SystemRandom(),
                user_id=current_user.id if current_user.is_authenticated else None,
            )
        except QueryError:
            return redirect(url_for("cards.results", q=text, game=slug or None))  # shows what is wrong
        if hit is None:
            abort(404, _("没有符合这个查询的卡牌：%(query)s", query=text))
        return redirect(url_for("cards.card_detail", game_slug=hit.game, name=hit.card.name))
    row = browse.get_game_row(session, slug) if slug else None
    card = browse.random_card(session, row)
    if card is None:
        abort(404, _("目录是空的：请先导入卡牌数据"))
    game = next(g for g in browse.game_summaries(session) if g.game.id == card.game_id)
    return redirect(url_for("cards.card_detail", game_slug=game.game.slug, name=card.name))


@bp.route("/suggest")
def suggest() -> Any:
    """Card names for the letters typed so far: JSON for the suggestion boxes of
    the search box, the deck builder, wants and trades (static/suggest.js). ``q`` (a name,
    pinyin, initials or an English name, any part of it), optional ``game`` and ``limit``."""
    from flask import jsonify

    from catalog.suggest import MAX_LIMIT
    from catalog.suggest import suggest as suggest_names

    query = request.args.get("q", "")
    game = request.args.get("game", "").strip() or None
    if game is not None and game not in GAMES:
        body = {
            "code": "bad_request",
            "message": f"没有这个游戏：{game[:32]}",
            "message_en": f"no such game: {game[:32]}",
        }
        return jsonify({"error": body}), 400
    limit_text = request.args.get("limit", "8")
    limit = min(int(limit_text), MAX_LIMIT) if limit_text.isdigit() and int(limit_text) > 0 else 8
    found = suggest_names(session=get_session(), query=query, game=game, limit=limit)
    response = jsonify(
        {
            "query": query[:64],
            "suggestions": [
                {
                    "name": item.name,
                    "game": item.game,
                    "url": url_for("cards.card_detail", game_slug=item.game, name=item.name),
                }
                for item in found
            ],
        }
    )
    response.headers["Cache-Control"] = "max-age=60"  # the catalogue's, not the visitor's
    return response
