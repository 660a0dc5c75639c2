"""Decks players own: "my decks" (a file, pasted text or a known deck), marked for
trade, offered whole through the trade offers; a deck's page with its houses, cards by house,
enhancements and figures (§4). Thin views over catalog.collection.owned_decks."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog.collection import owned_decks
from catalog.decks.check import check_decklists
from catalog.errors import LunzangError, Message
from catalog.games import GAMES
from catalog.models import DeckRecord, User
from catalog.trading import offers
from webapp.db import get_session
from webapp.decks import bp
from webapp.helpers import localized, utcnow
from webapp.refusal import on_refusal

MAX_BYTES = 2 * 1024 * 1024


def _list_page(*, error: str | None = None, status: int = 200) -> Any:
    session = get_session()
    mine = owned_decks.my_decks(session=session, user_id=int(current_user.id), now=utcnow())
    known = owned_decks.known_decks(session=session)
    return render_template("decks/owned.html", mine=mine, known=known, error=error), status


@bp.get("/decks/owned")
@login_required
def owned() -> Any:
    return _list_page()


@bp.post("/decks/owned")
@login_required
def owned_add() -> Any:
    """Add decks: an uploaded file, pasted text, or a deck picked from the known decks."""
    session, now, user_id = get_session(), utcnow(), int(current_user.id)

    def refused(failure: LunzangError) -> Any:
        return _list_page(error=localized(failure), status=404 if failure.status == 404 else 400)

    on_refusal(refused)
    known = request.form.get("known", "").strip()
    if known:
        if not known.isdigit():
            raise owned_decks.DeckNotFound(Message("没有这副已知卡组", "no such known deck"))
        added = [owned_decks.add_known_deck(session=session, user_id=user_id, deck_id=int(known), now=now)]
    else:
        upload = request.files.get("file")
        if upload is not None and upload.filename:
            data = upload.stream.read(MAX_BYTES + 1)
            if len(data) > MAX_BYTES:
                raise LunzangError(Message("文件太大（最多 2 MB）", "the file is too large (2 MB at most)"))
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise LunzangError(Message("文件不是 UTF-8 文本", "the file is not UTF-8 text")) from None
        else:
            text = request.form.get("text", "")
        if not text.strip():
            raise LunzangError(Message("请上传卡组文件或粘贴卡组", "upload a deck file or paste a deck"))
        added = owned_decks.add_decks(session=session, user_id=user_id, text=text, now=now)
    flash(_("已加入 %(n)s 副卡组", n=len(added)))
    return redirect(url_for("decks.owned"))


@bp.post("/decks/owned/<int:owned_id>/trade")
@login_required
def owned_trade(owned_id: int) -> Any:
    """Mark a deck for trade, or take it off the trade list."""
    session = get_session()
    wanted = request.form.get("for_trade") == "1"

    def refused(failure: LunzangError) -> Any:
        if isinstance(failure, owned_decks.DeckNotFound):
            abort(404, localized(failure))
        return _list_page(error=localized(failure), status=409)

    on_refusal(refused)
    owned_decks.set_for_trade(session=session, user_id=int(current_user.id), owned_id=owned_id, for_trade=wanted)
    flash(_("卡组已标记为可交换") if wanted else _("卡组已不再可交换"))
    return redirect(url_for("decks.owned_deck", owned_id=owned_id))


def _figures(record: DeckRecord) -> Any:
    """The deck resolved and its figures (the game's own: every game with owned decks has them)."""
    slug = _slug(record)
    (check,) = check_decklists(session=get_session(), text=record.text, game=slug)
    figures = GAMES[slug].deck_figures
    if figures is None:
        abort(404)
    return check, figures(check.deck)


def _slug(record: DeckRecord) -> str:
    from catalog.models import Game

    game = get_session().get(Game, record.game_id)
    if game is None or game.slug not in GAMES:
        abort(404)
    return game.slug


def _deck_page(
    record: DeckRecord, view: owned_decks.OwnedView | None, *, error: str | None = None, status: int = 200
) -> Any:
    check, figures = _figures(record)
    session = get_session()
    owner = session.get(User, view.owned.user_id) if view is not None else None
    mine_for_trade: list[owned_decks.OwnedView] = []
    if current_user.is_authenticated and view is not None and view.owned.user_id != int(current_user.id):
        mine_for_trade = [
            v
            for v in owned_decks.my_decks(session=session, user_id=int(current_user.id), now=utcnow())
            if v.owned.for_trade and not v.locked and not v.held
        ]
    page = render_template(
        "decks/owned_deck.html",
        record=record,
        view=view,
        owner=owner,
        check=check,
        figures=figures,
        module=GAMES.get(_slug(record)),
        mine_for_trade=mine_for_trade,
        error=error,
    )
    return page, status


@bp.get("/decks/owned/<int:owned_id>")
def owned_deck(owned_id: int) -> Any:
    """One copy's page: public (players compare decks and offer trades for them)."""
    try:
        view = owned_decks.owned_view(session=get_session(), owned_id=owned_id, now=utcnow())
    except owned_decks.DeckNotFound as failure:
        abort(404, localized(failure))
    return _deck_page(view.deck, view)


@bp.get("/decks/known/<int:deck_id>")
def known_deck(deck_id: int) -> Any:
    record = get_session().get(DeckRecord, deck_id)
    if record is None:
        abort(404, _("没有这副卡组"))
    return _deck_page(record, None)


@bp.post("/decks/owned/<int:owned_id>/offer")
@login_required
def owned_offer(owned_id: int) -> Any:
    """Offer a trade for another player's deck: whole decks of one's own in exchange (or none)."""
    session, now = get_session(), utcnow()
    try:
        view = owned_decks.owned_view(session=session, owned_id=owned_id, now=now)
    except owned_decks.DeckNotFound as failure:
        abort(404, localized(failure))
    give = [int(v) for v in request.form.getlist("give") if v.isdigit()]

    def refused(failure: LunzangError) -> Any:
        return _deck_page(view.deck, view, error=localized(failure), status=failure.status)

    on_refusal(refused)
    trade = offers.propose(
        session=session,
        proposer_id=int(current_user.id),
        recipient_id=view.owned.user_id,
        give=[],
        get=[],
        give_decks=give,
        get_decks=[owned_id],
        message=request.form.get("message", ""),
        now=now,
    )
    flash(_("报价已发出"))
    return redirect(url_for("trades.show", trade_id=trade.id))
