"""What the event pages share (public, organiser and download pages): loading an event, the
organiser's checks, a form's whole numbers, going back with a refusal's message, a QR code."""

from __future__ import annotations

import io
from typing import Any

from flask import abort, flash, redirect, request
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user

from catalog.decks.lists import DecklistError
from catalog.errors import LunzangError
from catalog.events import registration as reg
from catalog.models import Event
from catalog.numbers import INT32, parse_int
from webapp.db import get_session
from webapp.helpers import localized
from webapp.refusal import on_refusal


def load_event(event_id: int, *, lock: bool = False) -> Event:
    try:
        return reg.get_event(session=get_session(), event_id=event_id, lock=lock)
    except reg.EventNotFound as missing:
        abort(404, localized(missing))


def goes_back(target: str) -> None:
    """This page's answer to a refusal (:mod:`webapp.refusal`): the message flashed, back to
    ``target``; nothing the request wrote is kept."""
    on_refusal(lambda error: failed(error, target))


def failed(error: LunzangError, target: str) -> Any:
    """Show a refusal's message and go back (the request's writes are already undone)."""
    if error.status == 403:
        abort(403, localized(error))  # another store's business: refused outright, nothing changed
    if isinstance(error, DecklistError):
        lines = [
            f"{_('第 %(n)d 行', n=p.line)}：{localized_problem(p)}" if p.line else localized_problem(p)
            for p in error.problems
        ]
        flash("；".join(lines[:10]), "error")
    else:
        flash(localized(error), "error")
    return redirect(target, code=303)


def localized_problem(problem: Any) -> str:
    return str(problem.message.en if str(get_locale()) == "en" else problem.message.zh)


def form_int(name: str, default: int | None = None, *, high: int = INT32) -> int:
    """A whole number from the form (ASCII digits, at most ``high`` either way: by default an
    integer column's bound, as ids are), else BadNumber; the domain checks each field's range."""
    raw = request.form.get(name, "").strip()
    if not raw and default is not None:
        return default
    return parse_int(raw, field=name, low=-high, high=high)


def qr_svg(url: str) -> str:
    """The QR code of ``url`` as inline SVG (segno: pure Python)."""
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=4, xmldecl=False, svgns=True, title=url)
    return out.getvalue().decode("utf-8")


def require_organiser() -> None:
    if current_user.role not in ("organizer", "admin"):
        abort(403, _("只有组织者或管理员可以创建赛事"))


def managed_event(event_id: int) -> Event:
    event = load_event(event_id, lock=request.method == "POST")
    if not reg.can_manage(event, current_user):
        abort(403, _("只有这场赛事的主办者或管理员可以管理它"))
    return event
