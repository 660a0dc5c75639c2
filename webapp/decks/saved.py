"""Saved decks: a signed-in user's decks, what their collection covers of each,
and the missing cards into the want list. Thin views over catalog.collection.saved_decks.

Every page is the owner's: another user's deck id is a 404, with nothing read or changed.
"""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog.collection import saved_decks
from catalog.collection.wants import NotFound
from catalog.decks.check import format_choices, game_slug, load_format
from catalog.decks.lists import parse_decklist
from catalog.errors import LunzangError
from catalog.games import GAMES
from webapp.db import get_session
from webapp.decks import bp
from webapp.helpers import localized, utcnow
from webapp.refusal import on_refusal


def _user_id() -> int:
    return int(current_user.id)


def deck_query(summary: saved_decks.DeckSummary) -> dict[str, str]:
    """The query string the check, image and proxy routes read a deck from."""
    query = {
        "game": summary.game,
        "format": summary.deck.format_code,
        "list": summary.deck.text,
        "name": summary.deck.name,  # the deck image's title (it read 未命名卡组)
    }
    return {k: v for k, v in query.items() if v}


def _list_page(*, error: str | None = None, status: int = 200) -> Any:
    summaries = saved_decks.deck_summaries(session=get_session(), user_id=_user_id())
    return render_template("decks/mine.html", summaries=summaries, games=GAMES, error=error), status


def _deck_page(deck_id: int, *, error: str | None = None, status: int = 200) -> Any:
    try:
        (summary,) = saved_decks.deck_summaries(session=get_session(), user_id=_user_id(), deck_id=deck_id)
    except NotFound as failure:
        abort(404, localized(failure))
    choices = format_choices(get_session())
    # The format's name (标准), not its code (standard), in the header.
    names = {(c.game, code): name for c in choices for code, name in c.formats}
    page = render_template(
        "decks/saved.html",
        summary=summary,
        module=GAMES.get(summary.game),
        query=deck_query(summary),
        format_label=names.get((summary.game, summary.deck.format_code), summary.deck.format_code),
        choices=choices,
        error=error,
    )
    return page, status


def _save(deck_id: int | None) -> saved_decks.SavedDeck:
    """Create or update a deck from the posted form; a LunzangError when the input is bad."""
    text = request.form.get("list", "")
    word = request.form.get("game", "").strip() or (parse_decklist(text).game or "")
    format_code = request.form.get("format", "").strip()
    slug = game_slug(word)
    if format_code:
        format_code = load_format(get_session(), slug, format_code).code  # unknown → DeckCheckError
    return saved_decks.save_deck(
        session=get_session(),
        user_id=_user_id(),
        game=slug,
        name=request.form.get("name", ""),
        text=text,
        format_code=format_code,
        deck_id=deck_id,
        now=utcnow(),
    )


@bp.get("/decks/mine")
@login_required
def mine() -> Any:
    return _list_page()


@bp.post("/decks/mine")
@login_required
def mine_save() -> Any:
    """The check page's "保存卡组" form: a new saved deck from the working deck."""

    def refused(failure: LunzangError) -> Any:
        return _list_page(error=localized(failure), status=400)

    on_refusal(refused)
    deck = _save(None)
    flash(_("卡组「%(name)s」已保存", name=deck.name))
    return redirect(url_for("decks.mine_deck", deck_id=deck.id))


@bp.get("/decks/mine/<int:deck_id>")
@login_required
def mine_deck(deck_id: int) -> Any:
    return _deck_page(deck_id)


@bp.post("/decks/mine/<int:deck_id>")
@login_required
def mine_update(deck_id: int) -> Any:
    """Rename the deck, change its game, format or list."""
    try:
        saved_decks.get_deck(session=get_session(), user_id=_user_id(), deck_id=deck_id)
    except NotFound as failure:
        abort(404, localized(failure))

    def refused(failure: LunzangError) -> Any:
        return _deck_page(deck_id, error=localized(failure), status=400)

    on_refusal(refused)
    deck = _save(deck_id)
    flash(_("卡组「%(name)s」已更新", name=deck.name))
    return redirect(url_for("decks.mine_deck", deck_id=deck_id))


@bp.post("/decks/mine/<int:deck_id>/delete")
@login_required
def mine_delete(deck_id: int) -> Any:
    session = get_session()
    try:
        deck = saved_decks.get_deck(session=session, user_id=_user_id(), deck_id=deck_id)
        name = deck.name
        saved_decks.delete_deck(session=session, user_id=_user_id(), deck_id=deck_id)
    except NotFound as failure:
        abort(404, localized(failure))
    flash(_("卡组「%(name)s」已删除", name=name))
    return redirect(url_for("decks.mine"))


@bp.post("/decks/mine/<int:deck_id>/wants")
@login_required
def mine_wants(deck_id: int) -> Any:
    """Want every copy of the deck the collection lacks (any printing)."""
    session = get_session()
    try:
        deck = saved_decks.get_deck(session=session, user_id=_user_id(), deck_id=deck_id)
    except NotFound as failure:
        abort(404, localized(failure))
    changed = saved_decks.add_missing_to_wants(session=session, user_id=_user_id(), deck=deck, now=utcnow())
    if changed:
        flash(_("已把 %(n)d 种缺少的卡加入需求列表", n=changed))
    else:
        flash(_("没有需要加入需求列表的卡：缺少的卡都已在需求列表中"))
    return redirect(url_for("decks.mine_deck", deck_id=deck_id))
