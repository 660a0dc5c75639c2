"""Thin views over catalog.curation.catalogue and .create: curators add a printing to a set and
edit sets and formats (legal sets, ban/limit lists); a format's page shows it and its history.
A refused change rolls back and shows the form again with its message and the curator's cells."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog import curation
from catalog.curation import catalogue
from catalog.curation.create import add_printing, new_printing_columns
from catalog.errors import LunzangError
from catalog.games import get_game
from catalog.models import CardSet, Format, Game
from webapp.curation import bp
from webapp.curation.routes import _message, _require_curator
from webapp.db import get_session
from webapp.helpers import utcnow
from webapp.refusal import on_refusal


def _set_or_404(set_id: int) -> tuple[CardSet, Game]:
    session = get_session()
    card_set = session.get(CardSet, set_id)
    game = session.get(Game, card_set.game_id) if card_set else None
    if card_set is None or game is None:
        abort(404, _("没有这个系列"))
    return card_set, game


def _format_or_404(format_id: int) -> tuple[Format, Game]:
    session = get_session()
    fmt = session.get(Format, format_id)
    game = session.get(Game, fmt.game_id) if fmt else None
    if fmt is None or game is None:
        abort(404, _("没有这个赛制"))
    return fmt, game


def _form(title: str, action: str, back: str, columns: tuple[str, ...], cells: dict[str, str], **extra: Any) -> Any:
    status = extra.pop("status", 200)
    page = render_template(
        "curation/edit_entry.html",
        title=title,
        action=action,
        back=back,
        columns=columns,
        cells=cells,
        note=extra.pop("note", ""),
        **extra,
    )
    return page, status


def _save(do: Any, again: Any, done: str) -> Any:
    note = request.form.get("note", "")

    def refused(error: LunzangError) -> Any:
        flash(_message(error), "error")
        return again(note, error.status)

    on_refusal(refused)
    revision = do(note)
    flash(_("已保存修订 #%(id)s。", id=revision.id))
    return redirect(done)


def _entry_form(
    title: str,
    action: str,
    back: str,
    columns: tuple[str, ...],
    cells: dict[str, str],
    save: Callable[[dict[str, str], str], Any],
    *,
    adding: bool = False,
) -> Any:
    """The form of a set's or a format's manifest entry, or of a new printing (``adding``, no
    current values); posted, ``save(cells sent, note)`` makes the revision, or the form comes
    back with what was sent and why it was refused."""
    shown = {"adding": True} if adding else {}
    if request.method == "GET":
        return _form(title, action, back, columns, cells, **shown)
    sent = {c: request.form[c] for c in columns if c in request.form}

    def again(note: str, status: int) -> Any:
        return _form(title, action, back, columns, {**cells, **sent}, note=note, status=status, **shown)

    return _save(lambda note: save(sent, note), again, back)


@bp.route("/set/<int:set_id>/edit", methods=["GET", "POST"])
@login_required
def edit_set(set_id: int) -> Any:
    _require_curator()
    card_set, _game = _set_or_404(set_id)
    return _entry_form(
        f"{card_set.code} {card_set.name}",
        url_for("curation.edit_set", set_id=set_id),
        url_for("curation.set_history", set_id=set_id),
        catalogue.SET_COLUMNS,
        catalogue.set_cells(get_session(), card_set),
        lambda sent, note: catalogue.edit_set(
            session=get_session(), by=current_user, set_id=set_id, cells=sent, note=note, now=utcnow()
        ),
    )


@bp.route("/format/<int:format_id>/edit", methods=["GET", "POST"])
@login_required
def edit_format(format_id: int) -> Any:
    _require_curator()
    fmt, _game = _format_or_404(format_id)
    return _entry_form(
        f"{fmt.code} {fmt.name}",
        url_for("curation.edit_format", format_id=format_id),
        url_for("curation.format_history", format_id=format_id),
        catalogue.FORMAT_COLUMNS,
        catalogue.format_cells(get_session(), fmt),
        lambda sent, note: catalogue.edit_format(
            session=get_session(), by=current_user, format_id=format_id, cells=sent, note=note, now=utcnow()
        ),
    )


@bp.route("/sets/<int:set_id>/add", methods=["GET", "POST"])
@login_required
def add_to_set(set_id: int) -> Any:
    _require_curator()
    card_set, _game = _set_or_404(set_id)
    return _entry_form(
        f"{card_set.code} {card_set.name}",
        url_for("curation.add_to_set", set_id=set_id),
        url_for("curation.set_history", set_id=set_id),
        new_printing_columns(get_session(), card_set),
        {},
        lambda sent, note: add_printing(
            session=get_session(), by=current_user, set_id=set_id, cells=sent, note=note, now=utcnow()
        ),
        adding=True,
    )


@bp.get("/format/<int:format_id>/history")
def format_history(format_id: int) -> Any:
    fmt, game = _format_or_404(format_id)
    session = get_session()
    return render_template(
        "curation/format_history.html",
        fmt=fmt,
        game=game,
        module=get_game(game.slug),
        cells=catalogue.format_cells(session, fmt),
        revisions=catalogue.history_of(session, kind="format", target_id=format_id),
        can_curate=curation.can_curate(current_user),
    )
