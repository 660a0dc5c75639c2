"""Thin views over catalog.curation: a card's history (anyone), editing a card or a printing
and reverting a revision (curators and admins). A refused edit rolls back, shows the form
again with its message and the curator's cells, and changes nothing."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog import curation
from catalog.errors import LunzangError
from catalog.games import get_game
from catalog.ingest import ImportFailed
from catalog.models import Card, CardSet, Game, Printing
from webapp.curation import bp
from webapp.db import get_session
from webapp.helpers import safe_next, utcnow
from webapp.refusal import on_refusal


def _message(error: LunzangError) -> str:
    english = str(get_locale()) == "en"
    if isinstance(error, ImportFailed):
        lines = [f"{p.column}: {p.message.en if english else p.message.zh}" for p in error.problems[:10]]
        return "; ".join(lines)
    return error.message.en if english else error.message.zh


def _card_or_404(card_id: int) -> tuple[Card, Game]:
    session = get_session()
    card = session.get(Card, card_id)
    game = session.get(Game, card.game_id) if card else None
    if card is None or game is None:
        abort(404, _("没有这张卡"))
    return card, game


def _require_curator() -> None:
    if not curation.can_curate(current_user):
        abort(403, _("只有目录编辑（curator）或管理员可以修改卡牌目录。"))


@bp.get("/card/<int:card_id>/history")
def card_history(card_id: int) -> Any:
    card, game = _card_or_404(card_id)
    session = get_session()
    printings = {printing.id: (printing, card_set) for card_set, printing in curation.printings_of(session, card.id)}
    return render_template(
        "curation/history.html",
        card=card,
        game=game,
        module=get_game(game.slug),
        lines=curation.history(session, card=card),
        printings=printings,
        limit=curation.HISTORY_LIMIT,
        can_curate=curation.can_curate(current_user),
    )


def _edit_page(card: Card, game: Game, cells: dict[str, str], note: str, status: int = 200) -> Any:
    session = get_session()
    module = get_game(game.slug)
    assert module is not None
    printings = curation.printings_of(session, card.id)
    page = render_template(
        "curation/edit_card.html",
        card=card,
        game=game,
        module=module,
        columns=curation.card_columns(module),
        cells=cells,
        note=note,
        printings=printings,
    )
    return page, status


@bp.get("/card/<int:card_id>/edit")
@login_required
def edit_card_form(card_id: int) -> Any:
    _require_curator()
    card, game = _card_or_404(card_id)
    try:
        cells = curation.card_cells(get_session(), card)
    except LunzangError as error:
        flash(_message(error), "error")
        return redirect(url_for("curation.card_history", card_id=card_id))
    return _edit_page(card, game, cells, "")


@bp.post("/card/<int:card_id>/edit")
@login_required
def edit_card(card_id: int) -> Any:
    _require_curator()
    _card, game = _card_or_404(card_id)
    module = get_game(game.slug)
    assert module is not None
    cells = {column: request.form.get(column, "") for column in curation.card_columns(module) if column in request.form}
    note = request.form.get("note", "")
    session = get_session()

    def refused(error: LunzangError) -> Any:
        flash(_message(error), "error")
        card, game = _card_or_404(card_id)
        shown = {**curation.card_cells(get_session(), card), **cells}
        return _edit_page(card, game, shown, note, error.status)

    on_refusal(refused)
    revision = curation.edit_card(
        session=session, by=current_user, card_id=card_id, cells=cells, note=note, now=utcnow()
    )
    flash(_("已保存修订 #%(id)s。", id=revision.id))
    return redirect(url_for("curation.card_history", card_id=card_id))


def _printing_or_404(printing_id: int) -> tuple[Printing, CardSet, Card, Game]:
    session = get_session()
    printing = session.get(Printing, printing_id)
    if printing is None:
        abort(404, _("没有这个印刷版本"))
    card_set = session.get(CardSet, printing.set_id)
    card, game = _card_or_404(printing.card_id)
    assert card_set is not None
    return printing, card_set, card, game


def _printing_page(printing_id: int, cells: dict[str, str], note: str, status: int = 200) -> Any:
    printing, card_set, card, game = _printing_or_404(printing_id)
    page = render_template(
        "curation/edit_printing.html",
        printing=printing,
        card_set=card_set,
        card=card,
        game=game,
        module=get_game(game.slug),
        columns=curation.PRINTING_COLUMNS,
        cells=cells,
        note=note,
    )
    return page, status


@bp.get("/printing/<int:printing_id>/edit")
@login_required
def edit_printing_form(printing_id: int) -> Any:
    _require_curator()
    printing, _set, _card, _game = _printing_or_404(printing_id)
    return _printing_page(printing_id, curation.printing_cells(get_session(), printing), "")


@bp.post("/printing/<int:printing_id>/edit")
@login_required
def edit_printing(printing_id: int) -> Any:
    _require_curator()
    _printing, _set, card, _game = _printing_or_404(printing_id)
    cells = {column: request.form.get(column, "") for column in curation.PRINTING_COLUMNS if column in request.form}
    note = request.form.get("note", "")
    session = get_session()

    def refused(error: LunzangError) -> Any:
        flash(_message(error), "error")
        printing = get_session().get(Printing, printing_id)
        assert printing is not None
        shown = {**curation.printing_cells(get_session(), printing), **cells}
        return _printing_page(printing_id, shown, note, error.status)

    on_refusal(refused)
    revision = curation.edit_printing(
        session=session, by=current_user, printing_id=printing_id, cells=cells, note=note, now=utcnow()
    )
    flash(_("已保存修订 #%(id)s。", id=revision.id))
    return redirect(url_for("curation.card_history", card_id=card.id))


@bp.post("/revisions/<int:revision_id>/revert")
@login_required
def revert(revision_id: int) -> Any:
    _require_curator()
    session = get_session()
    card_id = request.form.get("card", "")
    back = safe_next(request.form.get("back")) or (
        url_for("curation.card_history", card_id=int(card_id))
        if card_id.isascii() and card_id.isdigit() and len(card_id) < 10
        else url_for("cards.home")
    )
    if request.form.get("confirm") != "1":
        flash(_("请勾选“确认撤销”后再提交。"), "error")
        return redirect(back)

    def refused(error: LunzangError) -> Any:
        flash(_message(error), "error")
        return redirect(back)

    on_refusal(refused)
    revision = curation.revert(
        session=session, by=current_user, revision_id=revision_id, note=request.form.get("note", ""), now=utcnow()
    )
    flash(_("已撤销修订 #%(old)s（新修订 #%(new)s）。", old=revision_id, new=revision.id))
    return redirect(back)


@bp.get("/set/<int:set_id>/history")
def set_history(set_id: int) -> Any:
    from catalog.curation.sets import provenance, set_history

    session = get_session()
    card_set = session.get(CardSet, set_id)
    game = session.get(Game, card_set.game_id) if card_set else None
    if card_set is None or game is None:
        abort(404, _("没有这个系列"))
    return render_template(
        "curation/set_history.html",
        card_set=card_set,
        game=game,
        module=get_game(game.slug),
        lines=set_history(session, card_set),
        provenance=provenance(session, card_set),
        limit=curation.HISTORY_LIMIT,
        can_curate=curation.can_curate(current_user),
    )
