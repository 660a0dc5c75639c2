"""The organiser's downloads and the store's exchange list (split from ``manage``): the event's
score sheet (XLSX, CSV), the store's dated exchange list (edit, redeem, export). Exports carry
no live formula and CSV headers follow the page's language; only the store's staff
act for a store.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import Response, abort, flash, redirect, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog.errors import Message
from catalog.events import prizes, stores
from catalog.events import registration as reg
from catalog.events.export import event_csv, event_workbook, exchange_csv, exchange_workbook
from catalog.numbers import parse_optional_int
from webapp.db import get_session
from webapp.events import bp
from webapp.events.common import form_int, goes_back, managed_event, require_organiser
from webapp.helpers import utcnow


def page_language() -> str:
    """The CSV header language: the page's."""
    return "en" if str(get_locale()) == "en" else "zh"


@bp.get("/events/<int:event_id>/export.<kind>")
@login_required
def export(event_id: int, kind: str) -> Any:
    """The score sheet (XLSX with the decks, or CSV standings): for the organiser."""
    if kind not in ("xlsx", "csv"):
        abort(404)
    event = managed_event(event_id)
    session = get_session()
    if kind == "xlsx":
        data = event_workbook(session=session, event=event)
        mimetype = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    else:
        csv_text = event_csv(session=session, event=event, header=page_language())
        data, mimetype = csv_text.encode("utf-8-sig"), "text/csv"
    response = Response(data, mimetype=mimetype)
    response.headers["Content-Disposition"] = f"attachment; filename=event-{event.id}.{kind}"
    return response


@bp.post("/stores/<store>/exchange")
@login_required
def exchange_edit(store: str) -> Any:
    """Add or change an exchange-list item, or redeem chests for one (organisers and admins)."""
    require_organiser()
    session = get_session()
    back = url_for("events.exchange", store=store[:100])
    form = request.form
    today = utcnow().date()
    goes_back(back)
    stores.require_staff(session=session, user=current_user, store=store[:100])
    if form.get("action") == "redeem":
        prizes.redeem(
            session=session, store=store[:100], player_key=form.get("player", "")[:80],
            item_id=form_int("item"), quantity=form_int("quantity", 1), today=today, now=utcnow(),
            by_user_id=current_user.id,
        )  # fmt: skip
        flash(_("已兑换"))
    else:
        item_id = form.get("item", "").strip()
        until = form.get("valid_until", "").strip()
        try:
            valid_from = date.fromisoformat(form.get("valid_from", "") or today.isoformat())
            valid_until = date.fromisoformat(until) if until else None
        except ValueError as error:
            raise reg.EventError(Message("日期应为 YYYY-MM-DD", "dates must be YYYY-MM-DD")) from error
        prizes.set_exchange_item(
            session=session, store=store[:100], name=form.get("name", ""), price=form_int("price"),
            valid_from=valid_from, valid_until=valid_until, now=utcnow(),
            item_id=parse_optional_int(item_id, field="item"),
        )  # fmt: skip
        flash(_("兑换列表已更新"))
    return redirect(back, code=303)


@bp.get("/stores/<store>/exchange.<kind>")
@login_required
def exchange_export(store: str, kind: str) -> Any:
    """The store's dated exchange list as XLSX or CSV (its staff and admins)."""
    if kind not in ("xlsx", "csv"):
        abort(404)
    session = get_session()
    goes_back(url_for("events.exchange", store=store[:100]))
    stores.require_staff(session=session, user=current_user, store=store[:100])
    items = prizes.exchange_list(session=session, store=store[:100])
    if kind == "xlsx":
        data = exchange_workbook(store[:100], items)
        mimetype = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    else:
        data, mimetype = exchange_csv(items, header=page_language()).encode("utf-8-sig"), "text/csv"
    response = Response(data, mimetype=mimetype)
    response.headers["Content-Disposition"] = f"attachment; filename=exchange.{kind}"
    return response
