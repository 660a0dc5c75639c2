"""Thin views over catalog.trading: inbox, composer, trade page, actions, matches, price list.

Only the two parties (and admins, read-only) see a trade; anyone else gets 404. Every form
works without JavaScript; a refused action re-renders the page with the reason (409/400) and
changes nothing (the request's transaction is rolled back).
"""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from catalog import accounts
from catalog.collection.grades import ItemGrade
from catalog.errors import LunzangError
from catalog.numbers import INT32, parse_int, parse_optional_int
from catalog.search import QueryError, printing_ids_matching
from catalog.trading import (
    LineSpec,
    TradeNotFound,
    accept,
    cancel,
    counter,
    decline,
    dispute,
    mark_received,
    mark_sent,
    propose,
)
from catalog.trading.balance import PriceListError, balance_of, import_prices
from catalog.trading.errors import TradeConflict
from catalog.trading.lines import MAX_QUANTITY
from catalog.trading.matching import find_matches
from catalog.trading.reads import TABS, action_count, list_trades, offerable, trade_view
from catalog.trading.reputation import feedback_given, leave_feedback, reputation_of
from webapp.db import get_session
from webapp.helpers import localized, trade_settings, utcnow
from webapp.refusal import on_refusal
from webapp.trading import bp

MAX_FIELDS = 400


def _me() -> int:
    return int(current_user.id)


@bp.app_context_processor
def trade_badge() -> dict[str, Any]:
    """The header's count of trades waiting for the signed-in user, and the profile's reputation."""

    def waiting() -> int:
        if not current_user.is_authenticated:
            return 0
        return action_count(session=get_session(), user_id=_me(), now=utcnow())

    def reputation(user_id: int) -> Any:
        return reputation_of(session=get_session(), user_id=user_id)

    return {"trades_waiting": waiting, "trade_reputation": reputation}


@bp.get("/trades")
@login_required
def inbox() -> Any:
    tab = request.args.get("tab", "incoming")
    if tab not in TABS:
        tab = "incoming"
    session, now = get_session(), utcnow()
    views = list_trades(session=session, user_id=_me(), now=now, tab=tab)
    counts = {t: len(list_trades(session=session, user_id=_me(), now=now, tab=t, limit=100)) for t in TABS}
    return render_template("trades/inbox.html", views=views, tab=tab, counts=counts, me=_me())


def _parse_prefill(side: str, values: list[str]) -> dict[str, int]:
    """``pid:cond:lang:finish:qty`` pairs from a match link → field → quantity (a number that is
    not one: :class:`~catalog.numbers.BadNumber`, a 400)."""
    out: dict[str, int] = {}
    for value in values[:MAX_FIELDS]:
        key, _sep, qty = value.rpartition(":")
        if not key:
            continue
        parse_int(key.partition(":")[0], field=f"{side}={value}", low=1)  # the printing id
        out[key] = parse_int(qty, field=f"{side}={value}", high=MAX_QUANTITY)
    return out


def _filtered(user_id: int, query: str, errors: list[str]) -> Any:
    if not query.strip():
        return None
    try:
        return printing_ids_matching(session=get_session(), text=query, user_id=_me())
    except QueryError as error:
        errors.append(localized(error))
        return None


def _composer(
    *, partner: Any, trade: Any = None, error: str | None = None, status: int = 200, chosen: dict[str, dict[str, int]]
) -> Any:
    session, now = get_session(), utcnow()
    errors: list[str] = []
    q_theirs, q_mine = request.args.get("q_theirs", ""), request.args.get("q_mine", "")
    counter_of = trade.trade.id if trade is not None else None
    # A counter: exactly what the new version may take, the trade's own holds left out (the
    # check counter() makes), its current lines shown even at 0.
    theirs = offerable(
        session=session,
        user_id=partner.id,
        now=now,
        printing_ids=_filtered(partner.id, q_theirs, errors),
        counter_of=counter_of,
        keep=_keys_of(trade, partner.id),
    )
    mine = offerable(
        session=session,
        user_id=_me(),
        now=now,
        printing_ids=_filtered(_me(), q_mine, errors),
        counter_of=counter_of,
        keep=_keys_of(trade, _me()),
    )
    return (
        render_template(
            "trades/compose.html",
            partner=partner,
            trade=trade,
            theirs=theirs,
            mine=mine,
            chosen=chosen,
            q_theirs=q_theirs,
            q_mine=q_mine,
            error=error or ("；".join(errors) if errors else None),
        ),
        status,
    )


def _keys_of(view: Any, giver_id: int) -> list[tuple[int, ItemGrade]]:
    """The (printing, grade) of each line ``giver_id`` gives in the trade shown (none: no trade)."""
    if view is None:
        return []
    lines = view.lines.get(giver_id, [])
    return [(line.printing_id, ItemGrade(line.condition, line.language, line.finish)) for line in lines]


def _partner(name: str) -> Any:
    user = accounts.get_user_by_name(session=get_session(), username=name)
    if user is None:
        abort(404, _("没有这个用户"))
    return user


@bp.get("/trades/new")
@login_required
def compose() -> Any:
    name = request.args.get("to", "").strip()
    if not name:
        return render_template("trades/pick_partner.html"), 200
    partner = _partner(name)
    if partner.id == _me():
        flash(_("不能和自己交易"))
        return redirect(url_for("trades.inbox"))
    chosen = {side: _parse_prefill(side, request.args.getlist(side)) for side in ("get", "give")}
    return _composer(partner=partner, chosen=chosen)


def _lines_from_form(prefix: str) -> tuple[list[LineSpec], dict[str, int], str | None]:
    """Quantities typed in the composer: fields ``give:PID:COND:LANG:FIN`` / ``get:…``."""
    lines: list[LineSpec] = []
    chosen: dict[str, int] = {}
    for name, raw in list(request.form.items())[: MAX_FIELDS * 2]:
        if not name.startswith(prefix + ":") or not raw.strip():
            continue
        parts = name.split(":")
        if len(parts) != 5:
            return [], chosen, _("表单字段无效")
        # the printing id of the name and the typed quantity: ASCII digits, within the column
        # (BadNumber → 400); a negative quantity is left to the domain's own message
        printing_id = parse_int(parts[1], field=name, low=1)
        quantity = parse_int(raw, field=name, low=-INT32)
        chosen[":".join(parts[1:])] = quantity
        if quantity == 0:
            continue
        lines.append(LineSpec(printing_id, ItemGrade(parts[2], parts[3], parts[4]), quantity))
    return lines, chosen, None


def _domain_status(error: LunzangError) -> int:
    if isinstance(error, TradeNotFound):
        return 404
    return 409 if isinstance(error, TradeConflict) else 400


@bp.post("/trades")
@login_required
def create() -> Any:
    partner = _partner(request.form.get("to", "").strip())
    give, chosen_give, bad1 = _lines_from_form("give")
    get, chosen_get, bad2 = _lines_from_form("get")
    chosen = {"give": chosen_give, "get": chosen_get}
    if bad1 or bad2:
        return _composer(partner=partner, chosen=chosen, error=bad1 or bad2, status=400)
    on_refusal(
        lambda error: _composer(partner=partner, chosen=chosen, error=localized(error), status=_domain_status(error))
    )
    trade = propose(
        session=get_session(),
        proposer_id=_me(),
        recipient_id=int(partner.id),
        give=give,
        get=get,
        mode=request.form.get("mode", "local"),
        message=request.form.get("message", ""),
        now=utcnow(),
        settings=trade_settings(),
    )
    flash(_("报价已发出"))
    return redirect(url_for("trades.show", trade_id=trade.id))


def _trade_page(trade_id: int, *, error: str | None = None, status: int = 200) -> Any:
    session, now = get_session(), utcnow()
    try:
        view = trade_view(
            session=session, trade_id=trade_id, viewer_id=_me(), is_admin=current_user.role == "admin", now=now
        )
    except TradeNotFound:
        abort(404, _("没有这笔交易"))
    sides = {giver: [(line.printing_id, line.quantity) for line in lines] for giver, lines in view.lines.items()}
    for party in (view.trade.proposer_id, view.trade.recipient_id):
        sides.setdefault(party, [])
    balance = balance_of(session=session, viewer_id=_me(), sides=sides)
    return (
        render_template(
            "trades/trade.html",
            view=view,
            t=view.trade,
            me=_me(),
            party=_me() in (view.trade.proposer_id, view.trade.recipient_id),
            balance=balance,
            feedback=feedback_given(session=session, trade_id=trade_id),
            error=error,
        ),
        status,
    )


@bp.get("/trades/<int:trade_id>")
@login_required
def show(trade_id: int) -> Any:
    return _trade_page(trade_id)


@bp.get("/trades/<int:trade_id>/counter")
@login_required
def counter_form(trade_id: int) -> Any:
    session = get_session()
    try:
        view = trade_view(session=session, trade_id=trade_id, viewer_id=_me(), now=utcnow())
    except TradeNotFound:
        abort(404, _("没有这笔交易"))
    other = view.trade.recipient_id if view.trade.proposer_id == _me() else view.trade.proposer_id
    partner = accounts.get_user_by_name(session=session, username=view.party_name(other))
    chosen = {
        "give": {
            f"{x.printing_id}:{x.condition}:{x.language}:{x.finish}": x.quantity for x in view.lines.get(_me(), [])
        },
        "get": {
            f"{x.printing_id}:{x.condition}:{x.language}:{x.finish}": x.quantity for x in view.lines.get(other, [])
        },
    }
    return _composer(partner=partner, trade=view, chosen=chosen)


@bp.post("/trades/<int:trade_id>/counter")
@login_required
def counter_post(trade_id: int) -> Any:
    give, _c1, bad1 = _lines_from_form("give")
    get, _c2, bad2 = _lines_from_form("get")
    if bad1 or bad2:
        return _trade_page(trade_id, error=bad1 or bad2, status=400)
    return _act(
        trade_id,
        lambda s, now: counter(
            session=s,
            trade_id=trade_id,
            user_id=_me(),
            version=_form_version(),
            give=give,
            get=get,
            message=request.form.get("message", ""),
            now=now,
            settings=trade_settings(),
            **_kept_decks(s, trade_id),
        ),
        _("还价已发出"),
    )


def _kept_decks(session: Any, trade_id: int) -> dict[str, list[int]]:
    """The whole decks of the current version: the card form does not edit them, so a
    counter keeps them on both sides instead of dropping them."""
    from catalog.collection.owned_decks import deck_lines_of
    from catalog.models import Trade

    trade = session.get(Trade, trade_id)
    if trade is None or _me() not in (trade.proposer_id, trade.recipient_id):
        return {}
    other = trade.recipient_id if _me() == trade.proposer_id else trade.proposer_id
    return {"give_decks": deck_lines_of(session, trade, _me()), "get_decks": deck_lines_of(session, trade, other)}


def _form_version() -> int:
    return parse_optional_int(request.form.get("version"), field="version") or 0


def _act(trade_id: int, action: Any, done: str) -> Any:
    # A refusal: the request's writes undone, the trade page explaining why (webapp.refusal).
    on_refusal(lambda error: _trade_page(trade_id, error=localized(error), status=_domain_status(error)))
    action(get_session(), utcnow())
    flash(done)
    return redirect(url_for("trades.show", trade_id=trade_id))


@bp.post("/trades/<int:trade_id>/<action>")
@login_required
def act(trade_id: int, action: str) -> Any:
    message = request.form.get("message", "")
    me = _me()
    actions = {
        "accept": (
            lambda s, now: accept(session=s, trade_id=trade_id, user_id=me, version=_form_version(), now=now),
            _("已接受"),
        ),
        "decline": (
            lambda s, now: decline(session=s, trade_id=trade_id, user_id=me, now=now, message=message),
            _("已拒绝"),
        ),
        "cancel": (
            lambda s, now: cancel(session=s, trade_id=trade_id, user_id=me, now=now, message=message),
            _("已取消"),
        ),
        "dispute": (
            lambda s, now: dispute(session=s, trade_id=trade_id, user_id=me, now=now, message=message),
            _("已提出争议"),
        ),
        "sent": (lambda s, now: mark_sent(session=s, trade_id=trade_id, user_id=me, now=now), _("已标记寄出")),
        "received": (lambda s, now: mark_received(session=s, trade_id=trade_id, user_id=me, now=now), _("已确认收到")),
        "feedback": (
            lambda s, now: leave_feedback(
                session=s,
                trade_id=trade_id,
                user_id=me,
                rating=request.form.get("rating", ""),
                comment=message,
                now=now,
            ),
            _("评价已保存"),
        ),
    }
    if action not in actions:
        abort(404)
    run, done = actions[action]
    return _act(trade_id, run, done)


@bp.get("/trades/matches")
@login_required
def matches() -> Any:
    from catalog.trading.reads import describe_lines

    session = get_session()
    found = find_matches(session=session, user_id=_me(), now=utcnow())
    rows = []
    for m in found:
        balance = balance_of(
            session=session,
            viewer_id=_me(),
            sides={
                m.user_id: [(x.printing_id, x.quantity) for x in m.they_give],
                _me(): [(x.printing_id, x.quantity) for x in m.i_give],
            },
        )
        rows.append(
            {
                "match": m,
                "they_give": describe_lines(session, m.they_give),
                "i_give": describe_lines(session, m.i_give),
                "balance": balance,
                "get_fields": [
                    f"{x.printing_id}:{x.grade.condition}:{x.grade.language}:{x.grade.finish}:{x.quantity}"
                    for x in m.they_give
                ],
                "give_fields": [
                    f"{x.printing_id}:{x.grade.condition}:{x.grade.language}:{x.grade.finish}:{x.quantity}"
                    for x in m.i_give
                ],
            }
        )
    return render_template("trades/matches.html", rows=rows, me=_me())


@bp.get("/trades/prices")
@login_required
def prices() -> Any:
    return render_template("trades/prices.html", error=None)


def _refused_prices(error: LunzangError) -> Any:
    problems = error.problems if isinstance(error, PriceListError) else []
    return render_template("trades/prices.html", error=localized(error), problems=problems), error.status


@bp.post("/trades/prices")
@login_required
def prices_post() -> Any:
    upload = request.files.get("file")
    data = upload.stream.read(10 * 1024 * 1024 + 1) if upload else b""
    if upload:
        upload.close()  # a large upload is spooled to a temporary file: closed now, not at GC
    if not data:
        return render_template("trades/prices.html", error=_("请选择一个 CSV 文件")), 400
    on_refusal(_refused_prices)
    kept = import_prices(session=get_session(), user_id=_me(), data=data)
    flash(_("价格表已导入：%(n)d 个价格", n=kept))
    return redirect(url_for("trades.prices"))
